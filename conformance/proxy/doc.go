// Package proxy is conform capture and conform shadow: a reverse proxy in front of a live
// Elasticsearch-compatible engine that passes every request and answer through unchanged,
// records the read requests as a workload of the user's own traffic (capture), and, in
// shadow, sends each sampled read to a candidate as well and checks the candidate's answer
// against the primary's with the strict check, the primary being the live oracle.
//
// It sits beside the runner: it takes a client's traffic instead of the workload's, and
// hands on a fixtures directory (workload.json, conform-workload/2, and for shadow the
// primary's answers as a golden file) that check, explain and the other commands replay. It
// never sends a client's writes or credentials anywhere but to the engine the client
// addressed, never stores a credential, and never lets the candidate delay a client: the
// candidate's work is queued after the primary's answer has been copied, and dropped, counted,
// when the queue is full. It does not time requests for statistics as the runner does; the
// latencies it reports are the proxy's view of each side.
package proxy

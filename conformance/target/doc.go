// Package target is how conform reaches the endpoints it checks: Elasticsearch, OpenSearch,
// gateways and proxies. It parses target specs (NAME=URL) with their auth, TLS, path prefix,
// index override and per-request timeout; hands the run a go-elasticsearch client for the
// untimed work (identity, counts, loading) that does not refuse a server for lacking
// Elasticsearch's product header; and owns the lean timed path: one raw keep-alive HTTP/1.1
// connection per client, requests serialised once per case before timing, and the timer
// spanning the write of the request to the read of the last byte of the body. On Linux over
// plain TCP that connection is a PollConn, an Async exchanger that the runner's event loops
// drive (Begin writes, Continue reads when the socket is ready); elsewhere, and over TLS, it
// is a Conn, waited on through Go's network poller. Both frame responses with one parser.
//
// It sits between the fixtures (which make concrete requests) and the runner (which drives
// clients and checks responses). It does not check responses, keep statistics or retry: a
// refused, reset, truncated or timed-out exchange is returned as a classified fault
// (transport or timeout), never hidden by a retry and never a panic. Credentials never leave
// it in any printable form: targets print redacted, errors are scrubbed, and curl commands
// name the credentials as environment variables. Watch and Stall are how the runner and the
// check decide, and say, that a target stopped answering; Interruption words a cancellation
// by its cause ("interrupted (Ctrl-C)").
package target

package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-dev/conform/fixtures"
)

// bulkBody writes one index action per document. With inAction every action line names the
// index as well as the id, which some engines (ZincSearch) need to answer with every item.
func bulkBody(index string, inAction bool, docs []fixtures.Doc) []byte {
	var b bytes.Buffer
	for _, d := range docs {
		b.WriteString(`{"index":{`)
		if inAction {
			b.WriteString(`"_index":`)
			b.Write(canonicalString(index))
			b.WriteByte(',')
		}
		b.WriteString(`"_id":`)
		b.Write(canonicalString(d.ID))
		if d.Routing != "" {
			// "routing", not "_routing": Elasticsearch 8's bulk parser refuses the latter.
			b.WriteString(`,"routing":`)
			b.Write(canonicalString(d.Routing))
		}
		b.WriteString("}}\n")
		b.Write(d.Source)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

type bulkItemReply struct {
	ID     string          `json:"_id"`
	Status int             `json:"status"`
	Error  json.RawMessage `json:"error"`
}

// bulkReply is what one _bulk reply says about the documents sent. It is read leniently: the
// loader proves the corpus by count and sample fingerprint afterwards, so a reply that does
// not account for every document is odd (a warning), and an item that reports an error is a
// rejected document, counted and reported with the final count.
type bulkReply struct {
	// listed is the number of items in the reply, -1 when there is no items list.
	listed  int
	refused []ItemError
	again   []fixtures.Doc // refused with 429, to be sent again
	// odd says what was wrong with the reply's shape, one phrase each.
	odd []string
}

// short reports a reply that lists fewer items than documents were sent, or none at all:
// what ZincSearch answers to a _bulk whose action lines do not name _index.
func (r bulkReply) short(sent int) bool { return r.listed < sent }

// readBulkReply reads a 200 reply to a _bulk of pending. Items are matched to documents by
// position when the reply lists one per document (Elasticsearch answers in request order),
// else by _id. Items refused with 429 go to again when retry429 is set.
func readBulkReply(body []byte, pending []fixtures.Doc, retry429 bool) bulkReply {
	r := bulkReply{listed: -1}
	var top struct {
		Errors json.RawMessage `json:"errors"`
		Error  json.RawMessage `json:"error"`
		Items  json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &top); err != nil {
		r.odd = append(r.odd, "the reply is not a JSON object: "+quoteSnippet(body))
		return r
	}
	if e := bytes.TrimSpace(top.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) && !bytes.Equal(e, []byte(`""`)) {
		r.odd = append(r.odd, "the reply carries an error: "+snippet(e))
	}
	var items []json.RawMessage
	switch {
	case len(top.Items) == 0 || bytes.Equal(top.Items, []byte("null")):
		r.odd = append(r.odd, fmt.Sprintf("no items list in the reply for %d documents", len(pending)))
		return r
	case json.Unmarshal(top.Items, &items) != nil:
		r.odd = append(r.odd, "the items are not a list: "+quoteSnippet(top.Items))
		return r
	}
	r.listed = len(items)
	full := len(items) == len(pending)
	if !full {
		r.odd = append(r.odd, fmt.Sprintf("%d items in the reply for %d documents", len(items), len(pending)))
	}
	var byID map[string]int
	if !full {
		byID = make(map[string]int, len(pending))
		for i, d := range pending {
			byID[d.ID] = i
		}
	}
	var malformed, unnamed, strangers, misplaced int
	var firstMalformed, firstStranger, firstMisplaced string
	for i, raw := range items {
		var m map[string]bulkItemReply
		if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
			if malformed++; malformed == 1 {
				firstMalformed = fmt.Sprintf("item %d is %s", i+1, quoteSnippet(raw))
			}
			continue
		}
		var it bulkItemReply
		for _, v := range m {
			it = v
		}
		// doc is the document the item answers for, -1 when the reply does not say.
		doc := -1
		switch {
		case full:
			doc = i
			if it.ID != "" && it.ID != pending[i].ID {
				if misplaced++; misplaced == 1 {
					firstMisplaced = fmt.Sprintf("item %d names %q where %q was sent", i+1, it.ID, pending[i].ID)
				}
			}
		case it.ID == "":
			unnamed++
		default:
			var ok bool
			if doc, ok = byID[it.ID]; !ok {
				doc = -1
				if strangers++; strangers == 1 {
					firstStranger = fmt.Sprintf("%q", it.ID)
				}
			}
		}
		typ, reason, hasErr := itemError(it.Error)
		if it.Status >= 200 && it.Status < 300 && !hasErr {
			continue
		}
		if it.Status == 0 && !hasErr {
			if malformed++; malformed == 1 {
				firstMalformed = fmt.Sprintf("item %d has no status: %s", i+1, quoteSnippet(raw))
			}
			continue
		}
		if it.Status == http.StatusTooManyRequests && retry429 && doc >= 0 {
			r.again = append(r.again, pending[doc])
			continue
		}
		ie := ItemError{ID: it.ID, Item: i + 1, Status: it.Status, Type: typ, Reason: reason}
		if doc >= 0 {
			ie.ID = pending[doc].ID
		}
		r.refused = append(r.refused, ie)
	}
	if malformed > 0 {
		r.odd = append(r.odd, fmt.Sprintf("%d item(s) not an action result (%s)", malformed, firstMalformed))
	}
	if unnamed > 0 {
		r.odd = append(r.odd, fmt.Sprintf("%d item(s) without an _id", unnamed))
	}
	if strangers > 0 {
		r.odd = append(r.odd, fmt.Sprintf("%d item(s) name an _id that was not sent (first %s)", strangers, firstStranger))
	}
	if misplaced > 0 {
		r.odd = append(r.odd, fmt.Sprintf("%d item(s) name another document than the one sent at their place (%s)", misplaced, firstMisplaced))
	}
	if bytes.Equal(bytes.TrimSpace(top.Errors), []byte("true")) && len(r.refused) == 0 && len(r.again) == 0 {
		r.odd = append(r.odd, `"errors" is true but no listed item reports one`)
	}
	return r
}

// itemError reads an item's error: Elasticsearch's {"type","reason"} object, or a bare string
// as some gateways send.
func itemError(raw json.RawMessage) (typ, reason string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", "", false
	}
	var e struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(raw, &e) == nil {
		if e.Type == "" && e.Reason == "" {
			return "", snippet(raw), true
		}
		return e.Type, e.Reason, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "", s, s != ""
	}
	return "", snippet(raw), true
}

func quoteSnippet(b []byte) string {
	return fmt.Sprintf("%q", snippet(bytes.TrimSpace(b)))
}

// bulk sends one batch, retrying the whole request on 429 and, after a partial success, only
// the items refused with 429. Other refusals are counted (reject) and the load goes on.
// A reply that does not account for every document is a warning: the count and the sample
// fingerprint decide afterwards. The first short reply of a load without _index in its action
// lines is answered by sending the batch again with _index named (the documents are indexed
// by id, so the second write replaces the first); if that reply is complete, the rest of the
// load names _index too.
func (l *esLoader) bulk(ctx context.Context, n int, docs []fixtures.Doc) error {
	op := opName("POST", l.o.Index, "_bulk")
	pending := docs
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			l.rep.Retries++
			if err := sleep(ctx, l.o.Backoff(attempt)); err != nil {
				return err
			}
		}
		r, err := l.send(ctx, pending, l.rep.IndexInAction)
		if err != nil {
			return err
		}
		if r.Status == http.StatusTooManyRequests {
			if attempt == l.o.MaxRetries {
				return fmt.Errorf("%s batch %d: still 429 Too Many Requests after %d retries", op, n, attempt)
			}
			fmt.Fprintf(l.o.Log, "bulk batch %d: 429, retrying (%d)\n", n, attempt+1)
			continue
		}
		if r.Status != http.StatusOK {
			return httpErr(op, r)
		}
		reply := readBulkReply(r.Body, pending, attempt < l.o.MaxRetries)
		switch {
		case reply.short(len(pending)) && !l.rep.IndexInAction && !l.resent:
			l.resent = true
			reply, err = l.resendNamingIndex(ctx, n, pending, reply, attempt < l.o.MaxRetries)
			if err != nil {
				return err
			}
		case len(reply.odd) > 0:
			l.warn("bulk batch %d: %s; going on: the count and the sample fingerprint decide", n, strings.Join(reply.odd, "; "))
		}
		if len(reply.refused) > 0 {
			l.reject(n, reply.refused)
		}
		if len(reply.again) == 0 {
			return nil
		}
		fmt.Fprintf(l.o.Log, "bulk batch %d: %d item(s) got 429, retrying them (%d)\n", n, len(reply.again), attempt+1)
		pending = reply.again
	}
}

// resendNamingIndex sends pending again with _index in every action line after first, a short
// reply, and returns the reply to believe. It warns either way, saying what it found.
func (l *esLoader) resendNamingIndex(ctx context.Context, n int, pending []fixtures.Doc, first bulkReply, retry429 bool) (bulkReply, error) {
	odd := strings.Join(first.odd, "; ")
	r, err := l.send(ctx, pending, true)
	if err != nil {
		return first, err
	}
	if r.Status != http.StatusOK {
		l.warn("bulk batch %d: %s; sent again with _index in every action line, it got HTTP %d; going on with the first reply: the count and the sample fingerprint decide", n, odd, r.Status)
		return first, nil
	}
	second := readBulkReply(r.Body, pending, retry429)
	if second.short(len(pending)) {
		l.warn("bulk batch %d: %s; sent again with _index in every action line: %s; going on: the count and the sample fingerprint decide", n, odd, strings.Join(second.odd, "; "))
		return second, nil
	}
	l.rep.IndexInAction = true
	l.warn("bulk batch %d: %s; sent again with _index in every action line, the reply listed all %d: naming _index for the rest of the load (--bulk-index-in-action starts that way)", n, odd, second.listed)
	if len(second.odd) > 0 {
		l.warn("bulk batch %d: %s; going on: the count and the sample fingerprint decide", n, strings.Join(second.odd, "; "))
	}
	return second, nil
}

func (l *esLoader) send(ctx context.Context, docs []fixtures.Doc, inAction bool) (*response, error) {
	return l.c.do(ctx, http.MethodPost, []string{l.o.Index, "_bulk"}, nil, bulkBody(l.o.Index, inAction, docs), "application/x-ndjson")
}

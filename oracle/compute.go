package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/conform-dev/conform/fixtures"
	"github.com/tidwall/gjson"
)

// Doer sends one concrete request to an oracle engine and returns its HTTP status and body.
// An error means the request got no answer (a transport failure), never an error status.
type Doer func(ctx context.Context, r fixtures.Request) (status int, body []byte, err error)

// Compute asks do for the answer to every case of the workload, in workload order, and returns
// the expectations. An after case is resolved from its page case's answer: the sort values of
// the page's last hit become its search_after. Every search that returns hits is then asked
// again with a wider window to see whether a page boundary falls inside a tie (see ties); such
// a case gets a warning, not an error, because Elasticsearch answers it, just not the same way
// twice. Compute fails on a transport error or when an after case has no cursor to continue
// from; the error names the case. The returned expectations have an empty Source: the caller
// names it.
func Compute(ctx context.Context, w *fixtures.Workload, s Settings, do Doer) (*Expectations, error) {
	if w == nil || len(w.Cases) == 0 {
		return nil, fmt.Errorf("the workload has no cases")
	}
	s = s.withDefaults(w)
	cases := make([]Expected, len(w.Cases))
	pos := make(map[string]int, len(w.Cases))
	for i := range w.Cases {
		pos[w.Cases[i].Name] = i
	}
	ask := func(i int, cursor json.RawMessage) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := &w.Cases[i]
		req, err := c.Request(s.Index, s.TrackTotalHits, cursor)
		if err != nil {
			return err
		}
		status, body, err := do(ctx, req)
		if err != nil {
			return fmt.Errorf("case %s: %s %s: %w", c.Name, req.Method, req.Path, err)
		}
		cases[i] = Expected{Request: req, Status: status, Body: body}
		return nil
	}
	// Pages first, so every after case finds its page's answer whatever the workload order.
	for i := range w.Cases {
		if w.Cases[i].After == "" {
			if err := ask(i, nil); err != nil {
				return nil, err
			}
		}
	}
	for i := range w.Cases {
		c := &w.Cases[i]
		if c.After == "" {
			continue
		}
		j, ok := pos[c.After]
		if !ok || w.Cases[j].After != "" {
			return nil, fmt.Errorf("case %s continues %s, which is not a page case of this workload", c.Name, c.After)
		}
		cursor, err := Cursor(&cases[j])
		if err != nil {
			return nil, fmt.Errorf("case %s continues %s: %w", c.Name, c.After, err)
		}
		if err := ask(i, cursor); err != nil {
			return nil, err
		}
	}
	for i := range cases {
		if !w.Cases[i].IsSearch() || cases[i].Status != 200 {
			continue
		}
		warnings, err := ties(ctx, do, &cases[i])
		if err != nil {
			return nil, fmt.Errorf("case %s: checking for ties: %w", w.Cases[i].Name, err)
		}
		cases[i].Warnings = append(cases[i].Warnings, warnings...)
	}
	return NewExpectations("", s, cases), nil
}

// Cursor returns the search_after cursor a page's answer leads to: the raw JSON sort array of
// its last hit. A page that failed, has no hits or whose hits carry no sort values has none.
func Cursor(page *Expected) (json.RawMessage, error) {
	if page.Status != 200 {
		return nil, fmt.Errorf("%s answered HTTP %d%s, so it has no cursor to continue from", page.Request.Case, page.Status, errorReason(page.Body))
	}
	hits := gjson.GetBytes(page.Body, "hits.hits")
	if !hits.IsArray() {
		return nil, fmt.Errorf("%s answered without hits.hits, so it has no cursor to continue from", page.Request.Case)
	}
	all := hits.Array()
	if len(all) == 0 {
		return nil, fmt.Errorf("%s returned no hits, so it has no cursor to continue from", page.Request.Case)
	}
	sort := all[len(all)-1].Get("sort")
	if !sort.IsArray() {
		return nil, fmt.Errorf("the last hit of %s has no sort values to continue from", page.Request.Case)
	}
	return json.RawMessage(sort.Raw), nil
}

// errorReason renders an Elasticsearch error envelope's type and reason for a message.
func errorReason(body []byte) string {
	e := gjson.GetBytes(body, "error")
	if !e.Exists() {
		return ""
	}
	if e.Type == gjson.String {
		return ": " + e.String()
	}
	typ, reason := e.Get("type").String(), e.Get("reason").String()
	if rc := e.Get("root_cause.0"); rc.Exists() {
		typ, reason = rc.Get("type").String(), rc.Get("reason").String()
	}
	return fmt.Sprintf(" (%s: %s)", typ, reason)
}

// ties reports whether a search's page boundaries fall inside a tie group. Elasticsearch
// orders hits that are equal on every sort key (or on _score when there is no sort) by Lucene
// doc id, which differs between engines, between replicas and after merges, so which of the
// tied documents make the page is not part of the answer. It asks the same search again with
// one more hit past the end and, when from > 0, one more before the start, and compares the
// hits on each side of each boundary. Through the Doer it works for any oracle engine.
func ties(ctx context.Context, do Doer, x *Expected) ([]string, error) {
	page := gjson.GetBytes(x.Body, "hits.hits").Array()
	n := len(page)
	if n == 0 {
		return nil, nil
	}
	from, size, err := window(x.Request)
	if err != nil {
		return []string{"could not check for ties: " + err.Error()}, nil
	}
	if n < size && from == 0 {
		return nil, nil // nothing follows the last hit and nothing precedes the first
	}
	before := 0
	if from > 0 {
		before = 1
	}
	probe, err := withWindow(x.Request, from-before, size+1+before)
	if err != nil {
		return []string{"could not check for ties: " + err.Error()}, nil
	}
	status, body, err := do(ctx, probe)
	if err != nil {
		return nil, err
	}
	if status != 200 {
		return []string{fmt.Sprintf("could not check for ties: the wider search (from %d, size %d) answered HTTP %d%s",
			from-before, size+1+before, status, errorReason(body))}, nil
	}
	wide := gjson.GetBytes(body, "hits.hits").Array()
	var warnings []string
	if before == 1 && len(wide) >= 2 {
		if k := tieKey(wide[0]); k != "" && k == tieKey(wide[1]) {
			warnings = append(warnings, fmt.Sprintf(
				"page boundary inside a tie: the first hit (position %d) and the hit before it have equal %s %s; "+
					"Elasticsearch orders ties by Lucene doc id, which differs between engines and replicas, so this page is not a fixed answer",
				from+1, tieWhat(wide[0]), k))
		}
	}
	last, next := before+n-1, before+n
	if n == size && len(wide) > next {
		if k := tieKey(wide[last]); k != "" && k == tieKey(wide[next]) {
			warnings = append(warnings, fmt.Sprintf(
				"page boundary inside a tie: the last hit (position %d) and the next match have equal %s %s; "+
					"Elasticsearch orders ties by Lucene doc id, which differs between engines and replicas, so this page is not a fixed answer",
				from+n, tieWhat(wide[last]), k))
		}
	}
	return warnings, nil
}

// tieKey is what orders a hit: its sort values, or its score when the search has no sort.
func tieKey(hit gjson.Result) string {
	if s := hit.Get("sort"); s.Exists() {
		return s.Raw
	}
	return hit.Get("_score").Raw
}

func tieWhat(hit gjson.Result) string {
	if hit.Get("sort").Exists() {
		return "sort values"
	}
	return "_score"
}

// window returns a search's from and size, URL parameters taking precedence over the body as
// in Elasticsearch's RestSearchAction. Defaults are from 0 and size 10.
func window(r fixtures.Request) (from, size int, err error) {
	from, size = 0, 10
	if len(r.Body) > 0 {
		if v := gjson.GetBytes(r.Body, "from"); v.Exists() {
			from = int(v.Int())
		}
		if v := gjson.GetBytes(r.Body, "size"); v.Exists() {
			size = int(v.Int())
		}
	}
	if _, q, ok := strings.Cut(r.Path, "?"); ok {
		vals, err := url.ParseQuery(q)
		if err != nil {
			return 0, 0, fmt.Errorf("query string of %s: %w", r.Path, err)
		}
		if v := vals.Get("from"); v != "" {
			if from, err = strconv.Atoi(v); err != nil {
				return 0, 0, fmt.Errorf("from=%q is not an integer", v)
			}
		}
		if v := vals.Get("size"); v != "" {
			if size, err = strconv.Atoi(v); err != nil {
				return 0, 0, fmt.Errorf("size=%q is not an integer", v)
			}
		}
	}
	if from < 0 {
		from = 0
	}
	return from, size, nil
}

// withWindow returns a copy of a search asking for a different from and size. It sets them
// where the request sets them (URL parameters, body, or both), and in the body otherwise.
// Only the window changes; key order of the probe's body does not matter.
func withWindow(r fixtures.Request, from, size int) (fixtures.Request, error) {
	out := r
	inQuery := false
	if p, q, ok := strings.Cut(r.Path, "?"); ok {
		vals, err := url.ParseQuery(q)
		if err != nil {
			return r, err
		}
		if vals.Has("from") || vals.Has("size") {
			inQuery = true
			vals.Set("from", strconv.Itoa(from))
			vals.Set("size", strconv.Itoa(size))
			out.Path = p + "?" + vals.Encode()
		}
	}
	obj := map[string]json.RawMessage{}
	if len(r.Body) > 0 {
		if err := json.Unmarshal(r.Body, &obj); err != nil {
			return r, fmt.Errorf("request body is not a JSON object: %w", err)
		}
	}
	_, bodyFrom := obj["from"]
	_, bodySize := obj["size"]
	if bodyFrom || bodySize || !inQuery {
		obj["size"] = json.RawMessage(strconv.Itoa(size))
		if from > 0 || bodyFrom {
			obj["from"] = json.RawMessage(strconv.Itoa(from))
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return r, err
		}
		out.Body = b
	}
	return out, nil
}

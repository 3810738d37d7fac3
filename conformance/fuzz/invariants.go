package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/excerpt"
	"github.com/tidwall/gjson"
)

// The invariants, each a property of any correct engine that needs no expected answer.
const (
	InvPaging   = "search_after paging visits every match once, in order"
	InvCount    = "hits.total equals _count"
	InvTerms    = "terms buckets plus sum_other_doc_count equal the value count"
	InvNegation = "a filter's count plus its negation's equals the total"
	InvWindows  = "from/size windows concatenate into the whole result"
)

// Invariants lists them in the order requests cycle through them.
var Invariants = []string{InvPaging, InvCount, InvTerms, InvNegation, InvWindows}

// maxWalk bounds the matches a paging or window invariant walks through; of a query matching
// more, the first maxWalk hits by the sort are checked.
const maxWalk = 2000

// InvariantConfig is one oracle-free run.
type InvariantConfig struct {
	Gen    *Generator
	Index  string
	Target Doer
	// N checks, or as many as fit in Duration when N is 0.
	N        int
	Duration time.Duration
	Progress func(Progress)
}

// Violation is a broken invariant: what was asked and what did not add up.
type Violation struct {
	Seq       int
	Invariant string
	Detail    string
	Requests  []*Case
}

// InvariantReport is what an oracle-free run found.
type InvariantReport struct {
	Seed     uint64
	Checks   int
	Skipped  int // checks with nothing to check (a terms check on a schema without a usable field)
	Elapsed  time.Duration
	ByName   map[string]int
	Stopped  string
	Requests int // requests sent

	Violations []*Violation
}

// RunInvariants checks the invariants in turn on queries and sorts from the generator.
func RunInvariants(ctx context.Context, cfg InvariantConfig) (*InvariantReport, error) {
	if cfg.N <= 0 && cfg.Duration <= 0 {
		return nil, errors.New("fuzz: set a number of checks or a duration")
	}
	rep := &InvariantReport{Seed: cfg.Gen.seed, ByName: map[string]int{}}
	start := time.Now()
	last := start
	iv := &invRun{cfg: &cfg, rep: rep}
	for seq := 0; cfg.N <= 0 || seq < cfg.N; seq++ {
		if ctx.Err() != nil {
			rep.Stopped = "interrupted"
			break
		}
		if cfg.Duration > 0 && time.Since(start) >= cfg.Duration {
			break
		}
		name := Invariants[seq%len(Invariants)]
		v, skipped, err := iv.check(ctx, seq, name)
		if err != nil {
			if ctx.Err() != nil {
				rep.Stopped = "interrupted"
				break
			}
			rep.Elapsed = time.Since(start)
			rep.Stopped = err.Error()
			return rep, err
		}
		rep.Checks++
		rep.ByName[name]++
		if skipped {
			rep.Skipped++
		}
		if v != nil {
			rep.Violations = append(rep.Violations, v)
		}
		if cfg.Progress != nil && time.Since(last) >= 250*time.Millisecond {
			last = time.Now()
			cfg.Progress(Progress{Requests: rep.Checks, Disagreements: len(rep.Violations), Elapsed: time.Since(start)})
		}
	}
	rep.Elapsed = time.Since(start)
	if cfg.Progress != nil {
		cfg.Progress(Progress{Requests: rep.Checks, Disagreements: len(rep.Violations), Elapsed: rep.Elapsed})
	}
	return rep, nil
}

type invRun struct {
	cfg *InvariantConfig
	rep *InvariantReport
}

// ask sends a case and returns the body of a 200 answer; any other status is a violation of
// its own ("the engine refused a request it must answer"), reported by the caller.
func (iv *invRun) ask(ctx context.Context, c *Case) (int, []byte, error) {
	iv.rep.Requests++
	r := c.Request("", iv.cfg.Index)
	st, b, err := iv.cfg.Target(ctx, r.Method, r.Path, r.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("target: %s %s: %w", r.Method, r.Path, err)
	}
	return st, b, nil
}

func search(body *Object) *Case {
	return &Case{Kind: KindSearch, Method: "POST", Path: "/" + fixtures.IndexPlaceholder + "/_search", Body: body}
}

func countCase(q any) *Case {
	return &Case{Kind: KindCount, Method: "POST", Path: "/" + fixtures.IndexPlaceholder + "/_count", Body: Obj("query", q)}
}

// parts draws a query and a sort from the generator's request seq.
func (iv *invRun) parts(seq int) (q any, sortKeys []any) {
	st := &gen{Generator: iv.cfg.Gen, r: newRand(iv.cfg.Gen.seed, seq), feat: map[string]bool{}}
	q = st.query(0)
	if q == nil {
		q = Obj("match_all", Obj())
	}
	return q, st.sorts()
}

func (iv *invRun) check(ctx context.Context, seq int, name string) (*Violation, bool, error) {
	q, sorts := iv.parts(seq)
	viol := func(detail string, cs ...*Case) *Violation {
		return &Violation{Seq: seq, Invariant: name, Detail: detail, Requests: cs}
	}
	refused := func(c *Case, st int, b []byte) *Violation {
		return viol(fmt.Sprintf("HTTP %d to a valid request: %s", st, excerpt.Line(b)), c)
	}
	cc := countCase(q)
	st, b, err := iv.ask(ctx, cc)
	if err != nil || st != 200 {
		if err == nil {
			return refused(cc, st, b), false, nil
		}
		return nil, false, err
	}
	count := gjson.GetBytes(b, "count").Int()
	switch name {
	case InvCount:
		c := search(Obj("query", q, "size", num(0), "track_total_hits", true))
		st, b, err := iv.ask(ctx, c)
		if err != nil {
			return nil, false, err
		}
		if st != 200 {
			return refused(c, st, b), false, nil
		}
		total := gjson.GetBytes(b, "hits.total.value").Int()
		if total != count || gjson.GetBytes(b, "hits.total.relation").String() != "eq" {
			return viol(fmt.Sprintf("hits.total %s but _count %d", gjson.GetBytes(b, "hits.total").Raw, count), c, cc), false, nil
		}
	case InvNegation:
		all := countCase(Obj("match_all", Obj()))
		neg := countCase(Obj("bool", Obj("must_not", []any{q})))
		st1, b1, err := iv.ask(ctx, all)
		if err != nil {
			return nil, false, err
		}
		st2, b2, err := iv.ask(ctx, neg)
		if err != nil {
			return nil, false, err
		}
		if st1 != 200 || st2 != 200 {
			return refused(neg, st2, b2), false, nil
		}
		n, m := gjson.GetBytes(b1, "count").Int(), gjson.GetBytes(b2, "count").Int()
		if count+m != n {
			return viol(fmt.Sprintf("%d match, %d match its negation, but there are %d documents", count, m, n), cc, neg, all), false, nil
		}
		// A range and its complement on a field every document has also add up.
		if v := iv.complement(ctx, seq, int(n)); v != nil {
			return v, false, nil
		}
	case InvTerms:
		var fd *Field
		fs := iv.cfg.Gen.s.Fields
		for i := 0; i < len(fs); i++ {
			cand := fs[(seq/len(Invariants)+i)%len(fs)]
			if !(cand.Multi && cand.Kind != kindKeyword) {
				fd = cand
				break
			}
		}
		if fd == nil {
			return nil, true, nil
		}
		size := 1 + seq%20
		c := search(Obj("query", q, "size", num(0), "aggs", Obj(
			"t", Obj("terms", Obj("field", fd.Name, "size", num(int64(size)))),
			"n", Obj("value_count", Obj("field", fd.Name)))))
		st, b, err := iv.ask(ctx, c)
		if err != nil {
			return nil, false, err
		}
		if st != 200 {
			return refused(c, st, b), false, nil
		}
		sum := gjson.GetBytes(b, "aggregations.t.sum_other_doc_count").Int()
		for _, bk := range gjson.GetBytes(b, "aggregations.t.buckets").Array() {
			sum += bk.Get("doc_count").Int()
		}
		if n := gjson.GetBytes(b, "aggregations.n.value").Int(); sum != n {
			return viol(fmt.Sprintf("terms on %s: buckets plus sum_other_doc_count are %d, value_count is %d", fd.Name, sum, n), c), false, nil
		}
	case InvPaging, InvWindows:
		if count == 0 {
			return nil, false, nil
		}
		// A query matching more than maxWalk is walked through its first maxWalk hits.
		truncated := count > maxWalk
		whole := count
		if whole > maxWalk {
			whole = maxWalk
		}
		full := search(Obj("query", q, "size", num(whole), "sort", sorts, "_source", false))
		st, b, err := iv.ask(ctx, full)
		if err != nil {
			return nil, false, err
		}
		if st != 200 {
			return refused(full, st, b), false, nil
		}
		want := ids(b)
		page := int64(5 + seq%96)
		var got []string
		var last *Case
		var cursor any
		for int64(len(got)) < whole+page {
			body := Obj("query", q, "size", num(page), "sort", sorts, "_source", false)
			if name == InvWindows {
				from := int64(len(got))
				if from >= whole {
					break
				}
				size := page
				if from+size > whole {
					size = whole - from
				}
				body = Obj("query", q, "from", num(from), "size", num(size), "sort", sorts, "_source", false)
			} else if cursor != nil {
				body.Set("search_after", cursor)
			}
			last = search(body)
			st, b, err := iv.ask(ctx, last)
			if err != nil {
				return nil, false, err
			}
			if st != 200 {
				return refused(last, st, b), false, nil
			}
			hits := gjson.GetBytes(b, "hits.hits").Array()
			if len(hits) == 0 {
				break
			}
			got = append(got, ids(b)...)
			if truncated && int64(len(got)) >= whole {
				got = got[:whole]
				break
			}
			if cur, err := Parse([]byte(hits[len(hits)-1].Get("sort").Raw)); err == nil {
				cursor = cur
			}
		}
		if d := firstDiff(want, got); d != "" {
			return viol(fmt.Sprintf("%d matches; pages of %d: %s", count, page, d), full, last), false, nil
		}
	}
	return nil, false, nil
}

// complement checks count(range lt v) + count(range gte v) = n on a numeric or date field
// every document has.
func (iv *invRun) complement(ctx context.Context, seq, n int) *Violation {
	var full []*Field
	for _, f := range iv.cfg.Gen.s.byKind(kindInteger, kindFloat) {
		if !f.Missing && !f.Multi {
			full = append(full, f)
		}
	}
	if len(full) == 0 {
		return nil
	}
	fd := full[seq%len(full)]
	v := json64(fd.Numbers[(seq*7919)%len(fd.Numbers)])
	lt := countCase(Obj("range", Obj(fd.Name, Obj("lt", v))))
	gte := countCase(Obj("range", Obj(fd.Name, Obj("gte", v))))
	_, b1, err1 := iv.ask(ctx, lt)
	_, b2, err2 := iv.ask(ctx, gte)
	if err1 != nil || err2 != nil {
		return nil
	}
	a, b := gjson.GetBytes(b1, "count").Int(), gjson.GetBytes(b2, "count").Int()
	if int(a+b) != n {
		return &Violation{Seq: seq, Invariant: InvNegation, Detail: fmt.Sprintf("%s < %s: %d, >= %s: %d, but %d documents all have %s", fd.Name, v, a, v, b, n, fd.Name), Requests: []*Case{lt, gte}}
	}
	return nil
}

func ids(body []byte) []string {
	var out []string
	for _, h := range gjson.GetBytes(body, "hits.hits").Array() {
		out = append(out, h.Get("_id").String())
	}
	return out
}

func firstDiff(want, got []string) string {
	seen := map[string]int{}
	for i, id := range got {
		if j, dup := seen[id]; dup {
			return fmt.Sprintf("%s visited twice (positions %d and %d)", id, j, i)
		}
		seen[id] = i
	}
	for i := range want {
		if i >= len(got) {
			return fmt.Sprintf("the pages end after %d hits, the whole result has %d", len(got), len(want))
		}
		if want[i] != got[i] {
			return fmt.Sprintf("position %d is %s in the pages but %s in the whole result", i, got[i], want[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("the pages hold %d hits, the whole result %d", len(got), len(want))
	}
	return ""
}

func json64(f float64) any {
	if f == float64(int64(f)) {
		return num(int64(f))
	}
	return jsonNumber(strconv.FormatFloat(f, 'f', -1, 64))
}

// Render writes the report and each violation with its requests as curl commands.
func (r *InvariantReport) Render(w io.Writer, o RenderOptions) {
	fmt.Fprintf(w, "fuzz --invariants %s: seed %d, %d checks (%d requests) in %.1fs, %s\n", o.Target, r.Seed, r.Checks, r.Requests, r.Elapsed.Seconds(), plural(len(r.Violations), "broken invariant"))
	for _, name := range Invariants {
		fmt.Fprintf(w, "  %-60s %d checks\n", name, r.ByName[name])
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "  (%d checks skipped)\n", r.Skipped)
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "stopped early: %s\n", r.Stopped)
	}
	for i, v := range r.Violations {
		if i == 20 {
			fmt.Fprintf(w, "\n… and %d more\n", len(r.Violations)-20)
			break
		}
		fmt.Fprintf(w, "\n== check %d: %s\n%s\n", v.Seq, v.Invariant, v.Detail)
		for _, c := range v.Requests {
			req := c.Request(fmt.Sprintf("invariant/%d", v.Seq), o.Index)
			if o.Curl != nil {
				fmt.Fprintf(w, "  %s\n", o.Curl(req))
			} else {
				fmt.Fprintf(w, "  %s %s %s\n", req.Method, req.Path, strings.TrimSpace(string(req.Body)))
			}
		}
	}
}

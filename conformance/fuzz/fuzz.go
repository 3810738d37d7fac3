package fuzz

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/internal/excerpt"
	"github.com/conform-dev/conform/oracle/engine"
	"github.com/tidwall/gjson"
)

// Doer sends one request and returns the HTTP status and body. An error means no answer.
type Doer func(ctx context.Context, method, path string, body []byte) (int, []byte, error)

// EngineDoer answers from an embedded engine in process: the embedded oracle.
func EngineDoer(e *engine.Engine) Doer {
	return func(_ context.Context, method, path string, body []byte) (int, []byte, error) {
		st, b := e.Do(method, path, body)
		return st, b, nil
	}
}

// Config is one fuzzing run.
type Config struct {
	Gen *Generator
	// OracleIndex and TargetIndex are the index names on each side (usually the same).
	OracleIndex, TargetIndex string
	Oracle, Target           Doer
	Check                    *conformance.Options
	// N requests, or as many as fit in Duration when N is 0.
	N        int
	Duration time.Duration
	// Workers send requests concurrently (1 when 0); the report does not depend on it.
	Workers int
	// ShrinkBudget bounds the candidate requests tried per disagreement (200 when 0).
	// ShrinkPerSignature is how many disagreements of one request kind and signature are
	// always shrunk (3 when 0), ShrinkUnfitted how many more of a kind and class are shrunk
	// when no group's reproducer fits them (8 when 0).
	ShrinkBudget, ShrinkPerSignature, ShrinkUnfitted int
	// Progress, when set, is called about every 250 ms and at the end.
	Progress func(Progress)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Progress is the state of a run.
type Progress struct {
	Requests, Disagreements int
	Elapsed                 time.Duration
	Shrinking               bool
}

// Rate is requests per second.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Requests) / p.Elapsed.Seconds()
}

// Case is a concrete request: the method, the path with {index}, and the body.
type Case struct {
	Kind   string
	Method string
	Path   string
	Body   any // a tree; nil for a bodiless request
}

// Request is the case for an index.
func (c *Case) Request(name, index string) fixtures.Request {
	r := fixtures.Request{Case: name, Method: c.Method, Path: strings.ReplaceAll(c.Path, fixtures.IndexPlaceholder, index)}
	if c.Body != nil {
		r.Body = Marshal(c.Body)
	}
	return r
}

// Size is the number of JSON values in the body, the measure shrinking reduces.
func (c *Case) Size() int {
	if c.Body == nil {
		return 0
	}
	return Nodes(c.Body)
}

// Key identifies a case exactly.
func (c *Case) Key() string {
	return c.Method + " " + c.Path + " " + string(Marshal(c.Body))
}

// Answer is one side's response.
type Answer struct {
	Status int
	Body   []byte
}

// Disagreement is one request whose target answer failed the strict check.
type Disagreement struct {
	Seq       int
	Features  []string
	Original  *Case
	Minimal   *Case
	Signature Signature
	// Want and Got answer Minimal; Result is their check.
	Want, Got Answer
	Result    conformance.Result
	// Shrunk says whether shrinking ran; Tried counts the candidates it sent.
	Shrunk bool
	Tried  int
}

// Group is the disagreements whose minimal requests have the same shape (Case.Shape: the
// same request but for its values), one cause as far as requests tell. The first few
// disagreements of each signature (ShrinkPerSignature) are shrunk; after them, one is
// counted in the group whose reproducer shows its difference and fits it (is made of parts
// of its request: what shrinking it could have reached), the most specific, or shrunk when
// none fits (ShrinkUnfitted more of a signature), or past that counted, unshrunk, in the
// first group of its signature (or, failing that, of its class). Groups whose shapes and
// differences differ only by the fields they name are then one group (Fields).
type Group struct {
	// Shape is the minimal requests' shape, and the oracle's status when it is not 200 (a
	// document read that finds nothing is a case of its own); a group of several fields has
	// them written as <field>.
	Shape string
	// Name says what the group exercises, from its shape ("fuzz/range-price-gt-sort-rating"):
	// unique in the report, and the name of its saved case.
	Name string
	// Repro is the smallest minimal request of the group (the first found of the smallest);
	// of a group of several fields, its largest field's.
	Repro *Disagreement
	Seqs  []int
	// Signatures counts the group's requests by signature, in the order first seen.
	Signatures []SignatureCount
	// Shrunk counts the requests shrunk to this shape, Unshrunk those of this shape that a
	// stopped run did not shrink, Fitted those its reproducer fits, Unplaced those counted
	// here because no reproducer fit them once their signature's shrinks were spent.
	Shrunk, Unshrunk, Fitted, Unplaced int
	// Uncovered counts the requests the reproducer does not cover: those it was not shrunk
	// from or fitted to (Unplaced), and those whose difference it does not show (a request of
	// the same shape that differed elsewhere). Of a group of several fields, each field's
	// reproducer is judged for that field's requests.
	Uncovered int
	// Fields, for groups whose requests differ only by the fields they name (an exists query
	// inverted on five fields), lists each field (several joined by "+") with its requests
	// and its own reproducer, the most requests first; nil for a group of one field set.
	Fields []FieldGroup

	atoms   map[string]bool
	members []member
}

// FieldGroup is one field set of a group of several: what its requests named, how many
// there were and how many its reproducer does not cover, and the reproducer, saved under
// Name.
type FieldGroup struct {
	Fields              string
	Name                string
	Requests, Uncovered int
	Repro               *Disagreement
}

// member is one request counted in a group.
type member struct {
	sig      Signature
	unplaced bool
}

// SignatureCount is how many of a group's requests disagree with a signature.
type SignatureCount struct {
	Signature Signature
	Requests  int
}

func (g *Group) add(seq int, s Signature, unplaced bool) {
	g.Seqs = append(g.Seqs, seq)
	g.members = append(g.members, member{sig: s, unplaced: unplaced})
	for i := range g.Signatures {
		if g.Signatures[i].Signature == s {
			g.Signatures[i].Requests++
			return
		}
	}
	g.Signatures = append(g.Signatures, SignatureCount{Signature: s, Requests: 1})
}

// fitting is the group whose reproducer shows the disagreement's difference (its signature,
// Signature.ShownIn) and fits its request, with the oracle answering as it did: the most
// specific (the most atoms), then the first.
func fitting(groups []*Group, f *found, sig Signature) *Group {
	var best *Group
	var orig map[string]bool
	for _, g := range groups {
		if !g.Repro.Shrunk || g.Repro.Want.Status != f.want.Status || !sig.ShownIn(g.Repro.Result) {
			continue
		}
		if orig == nil {
			orig = f.c.atoms()
		}
		if fits(g.atoms, orig) && (best == nil || len(g.atoms) > len(best.atoms)) {
			best = g
		}
	}
	return best
}

// GroupKey is the shape a disagreement is grouped by: its minimal request's, and the
// oracle's status when it is not 200.
func (d *Disagreement) GroupKey() string {
	k := d.Minimal.Shape()
	if d.Want.Status != 200 {
		k += fmt.Sprintf(" (oracle: HTTP %d)", d.Want.Status)
	}
	return k
}

// CasePrefix starts the name of every case a fuzzing run saves (fixtures.FuzzCasePrefix).
const CasePrefix = fixtures.FuzzCasePrefix

// Report is what a run found.
type Report struct {
	Seed     uint64
	Weights  string
	Tiebreak string
	Requests int
	// Disagreements counts the requests the target answered differently.
	Disagreements int
	// OracleErrors counts requests the oracle answered with an error status (the generator
	// should make none), and Unsupported those it refused as outside the engine's subset.
	OracleErrors, Unsupported int
	Elapsed                   time.Duration
	ShrinkElapsed             time.Duration
	// Groups are by shape, the most requests first.
	Groups []*Group
	// ShrinkPerSignature and ShrinkUnfitted are the run's (Config).
	ShrinkPerSignature, ShrinkUnfitted int
	// Features counts the requests exercising each feature.
	Features map[string]int
	// Stopped is why the run ended early ("interrupted", or the target's failure).
	Stopped string
	// Examples of oracle errors, for fixing the generator.
	OracleErrorExamples []string
}

type found struct {
	seq      int
	features []string
	c        *Case
	want     Answer
	got      Answer
	res      conformance.Result
}

type runner struct {
	cfg *Config
	now func() time.Time
	// silent counts the shrink's requests in a row that got no answer from either side, and
	// stalled is set when there were too many: the rest is left unshrunk.
	silent  int
	stalled error
}

// maxSilent is how many requests in a row may go unanswered while shrinking before the run
// stops: one may be a candidate that crashes the target (a finding, skipped as not
// reproducing), two in a row is a side that stopped answering, which would otherwise cost
// a timeout per candidate left, up to the budget of every disagreement to shrink.
const maxSilent = 2

// Run fuzzes the target against the oracle. It returns the report with whatever was found
// even when it stops early: on a cancelled ctx (Stopped "interrupted", nothing is shrunk) or
// when the oracle or target stops answering (the error says which; the report is still
// returned).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Gen == nil || cfg.Oracle == nil || cfg.Target == nil {
		return nil, errors.New("fuzz: a generator, an oracle and a target are needed")
	}
	if cfg.N <= 0 && cfg.Duration <= 0 {
		return nil, errors.New("fuzz: set a number of requests or a duration")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.ShrinkBudget <= 0 {
		cfg.ShrinkBudget = 200
	}
	if cfg.ShrinkPerSignature <= 0 {
		cfg.ShrinkPerSignature = 3
	}
	if cfg.ShrinkUnfitted <= 0 {
		cfg.ShrinkUnfitted = 8
	}
	r := &runner{cfg: &cfg, now: cfg.Now}
	if r.now == nil {
		r.now = time.Now
	}
	rep := &Report{Seed: cfg.Gen.seed, Weights: cfg.Gen.o.Weights.String(), Tiebreak: cfg.Gen.Tiebreak(), Features: map[string]int{},
		ShrinkPerSignature: cfg.ShrinkPerSignature, ShrinkUnfitted: cfg.ShrinkUnfitted}
	start := r.now()
	var deadline time.Time
	if cfg.Duration > 0 {
		deadline = start.Add(cfg.Duration)
	}

	var mu sync.Mutex
	var founds []*found
	var firstErr error
	next := 0
	done := 0
	disagreements := 0
	lastProgress := start
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || ctx.Err() != nil {
			return 0, false
		}
		if cfg.N > 0 && next >= cfg.N {
			return 0, false
		}
		if !deadline.IsZero() && !r.now().Before(deadline) {
			return 0, false
		}
		next++
		return next - 1, true
	}
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seq, ok := take()
				if !ok {
					return
				}
				req := cfg.Gen.Request(seq)
				f, oerr, err := r.one(ctx, req)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil && ctx.Err() == nil {
						firstErr = err
					}
				default:
					done++
					for _, ft := range req.Features {
						rep.Features[ft]++
					}
					if oerr != "" {
						rep.OracleErrors++
						if strings.Contains(oerr, engine.UnsupportedType) {
							rep.Unsupported++
						}
						if len(rep.OracleErrorExamples) < 10 {
							rep.OracleErrorExamples = append(rep.OracleErrorExamples, oerr)
						}
					}
					if f != nil {
						founds = append(founds, f)
						disagreements++
					}
				}
				if cfg.Progress != nil && r.now().Sub(lastProgress) >= 250*time.Millisecond {
					lastProgress = r.now()
					cfg.Progress(Progress{Requests: done, Disagreements: disagreements, Elapsed: r.now().Sub(start)})
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Requests, rep.Disagreements = done, disagreements
	rep.Elapsed = r.now().Sub(start)
	if cfg.Progress != nil {
		cfg.Progress(Progress{Requests: done, Disagreements: disagreements, Elapsed: rep.Elapsed})
	}
	sort.Slice(founds, func(i, j int) bool { return founds[i].seq < founds[j].seq })
	switch {
	case ctx.Err() != nil:
		rep.Stopped = "interrupted"
	case firstErr != nil:
		rep.Stopped = firstErr.Error()
	}
	shrink := rep.Stopped == ""
	shrinkStart := r.now()
	rep.Groups = r.group(ctx, founds, shrink)
	rep.ShrinkElapsed = r.now().Sub(shrinkStart)
	if ctx.Err() != nil && rep.Stopped == "" {
		rep.Stopped = "interrupted while shrinking"
	}
	if r.stalled != nil && firstErr == nil {
		rep.Stopped, firstErr = r.stalled.Error(), r.stalled
	}
	return rep, firstErr
}

// unanswered notes a shrink request that got no answer and reports whether the run must stop
// shrinking (see maxSilent).
func (r *runner) unanswered(ctx context.Context, side string, err error) bool {
	if ctx.Err() != nil {
		return true
	}
	if r.silent++; r.silent >= maxSilent {
		r.stalled = fmt.Errorf("the %s stopped answering while shrinking: %d requests in a row got no answer, the last: %w", side, r.silent, err)
		return true
	}
	return false
}

// one sends a generated request to both sides. oerr describes an oracle error answer.
func (r *runner) one(ctx context.Context, req *Request) (f *found, oerr string, err error) {
	c := &Case{Kind: req.Kind, Method: req.Method, Path: req.Path}
	if req.Body != nil {
		c.Body = req.Body
	}
	if req.Continue {
		page := c.Request("", r.cfg.OracleIndex)
		st, body, err := r.cfg.Oracle(ctx, page.Method, page.Path, page.Body)
		if err != nil {
			return nil, "", fmt.Errorf("oracle: %s %s: %w", page.Method, page.Path, err)
		}
		if st == 200 {
			hits := gjson.GetBytes(body, "hits.hits").Array()
			if len(hits) > 0 {
				if cur, err := Parse([]byte(hits[len(hits)-1].Get("sort").Raw)); err == nil {
					b := clone(req.Body).(*Object)
					b.Set("search_after", cur)
					c.Body = b
				}
			}
		}
	}
	want, err := r.ask(ctx, r.cfg.Oracle, r.cfg.OracleIndex, c)
	if err != nil {
		return nil, "", fmt.Errorf("oracle: %w", err)
	}
	if want.Status >= 400 && !(want.Status == 404 && c.Method == "GET") {
		oerr = fmt.Sprintf("request %d: HTTP %d %s: %s", req.Seq, want.Status, Marshal(c.Body), excerpt.Line(want.Body))
	}
	got, err := r.ask(ctx, r.cfg.Target, r.cfg.TargetIndex, c)
	if err != nil {
		return nil, oerr, fmt.Errorf("target: %w", err)
	}
	res, err := check(c, want, got, r.cfg.Check)
	if err != nil {
		return nil, oerr, err
	}
	if res.Pass {
		return nil, oerr, nil
	}
	return &found{seq: req.Seq, features: req.Features, c: c, want: want, got: got, res: res}, oerr, nil
}

func (r *runner) ask(ctx context.Context, do Doer, index string, c *Case) (Answer, error) {
	req := c.Request("", index)
	st, body, err := do(ctx, req.Method, req.Path, req.Body)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	return Answer{Status: st, Body: body}, nil
}

func check(c *Case, want, got Answer, opts *conformance.Options) (conformance.Result, error) {
	x, err := conformance.Compile(want.Status, want.Body)
	if err != nil {
		return conformance.Result{}, fmt.Errorf("the oracle's answer is unusable: %w", err)
	}
	if c.Body != nil {
		// The request-aware relaxations (--relax opensearch) look at the request.
		x.ForRequest(Marshal(c.Body))
	}
	return x.Check(got.Status, got.Body, opts), nil
}

// group shrinks the disagreements and groups them by the shape of their minimal requests
// (see Group), in request order so the groups do not depend on the workers. Groups come
// largest first (then by their first request), each named by what it exercises.
func (r *runner) group(ctx context.Context, founds []*found, shrink bool) []*Group {
	type sigKey struct {
		kind string
		sig  string // Signature.Canonical
	}
	type classKey struct {
		kind  string
		class conformance.Class
	}
	var groups []*Group
	byKey := map[string]*Group{}
	seen := map[sigKey]int{}
	unfitted := map[sigKey]int{}
	firstOf := map[sigKey]*Group{}
	firstOfClass := map[classKey]*Group{}
	for _, f := range founds {
		s, _ := SignatureOf(f.res)
		k := sigKey{f.c.Kind, s.Canonical()}
		seen[k]++
		// The first few of a signature are shrunk whatever fits them: a reproducer that
		// fits a request need not be its cause, so each symptom gets shrinks of its own.
		if shrink && seen[k] > r.cfg.ShrinkPerSignature {
			if g := fitting(groups, f, s); g != nil {
				g.add(f.seq, s, false)
				g.Fitted++
				continue
			}
			if unfitted[k] >= r.cfg.ShrinkUnfitted || ctx.Err() != nil {
				g := firstOf[k]
				if g == nil {
					g = firstOfClass[classKey{f.c.Kind, s.Class}]
				}
				if g != nil {
					g.add(f.seq, s, true)
					g.Unplaced++
					continue
				}
			}
			unfitted[k]++
		}
		d := &Disagreement{Seq: f.seq, Features: f.features, Original: f.c, Minimal: f.c, Signature: s, Want: f.want, Got: f.got, Result: f.res}
		if shrink && ctx.Err() == nil {
			r.shrink(ctx, d)
		}
		key := d.GroupKey()
		g := byKey[key]
		switch {
		case g == nil:
			g = &Group{Shape: key, Repro: d, atoms: d.Minimal.atoms()}
			byKey[key] = g
			groups = append(groups, g)
		case d.Minimal.Size() < g.Repro.Minimal.Size():
			g.Repro, g.atoms = d, d.Minimal.atoms()
		}
		g.add(f.seq, s, false)
		if d.Shrunk {
			g.Shrunk++
		} else {
			g.Unshrunk++
		}
		if firstOf[k] == nil {
			firstOf[k] = g
		}
		if ck := (classKey{f.c.Kind, s.Class}); firstOfClass[ck] == nil {
			firstOfClass[ck] = g
		}
	}
	for _, g := range groups {
		for _, m := range g.members {
			if m.unplaced || !m.sig.ShownIn(g.Repro.Result) {
				g.Uncovered++
			}
		}
	}
	groups = mergeFields(groups, r.cfg.Gen.Tiebreak())
	for _, g := range groups {
		sort.Ints(g.Seqs)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if len(groups[i].Seqs) != len(groups[j].Seqs) {
			return len(groups[i].Seqs) > len(groups[j].Seqs)
		}
		return groups[i].Seqs[0] < groups[j].Seqs[0]
	})
	used := map[string]bool{}
	name := func(d *Disagreement) string {
		base := d.Minimal.Describe(r.cfg.Gen.Tiebreak())
		if d.Want.Status == 404 {
			base += "-absent"
		}
		name := base
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name] = true
		return CasePrefix + name
	}
	for _, g := range groups {
		g.Name = name(g.Repro)
		for i := range g.Fields {
			if g.Fields[i].Repro == g.Repro {
				g.Fields[i].Name = g.Name
			} else {
				g.Fields[i].Name = name(g.Fields[i].Repro)
			}
		}
	}
	return groups
}

// mergeFields makes one group of the groups whose reproducers differ only by the fields they
// name: the same field shape (Case.FieldShape), the same oracle status and the same
// difference once those fields are left out of its path. The merged group keeps every
// group's counts and, in Fields, each one's fields and reproducer; its own reproducer is its
// largest one's. keep is the unique tiebreak, which stays a field of its own.
func mergeFields(groups []*Group, keep string) []*Group {
	var out []*Group
	byKey := map[string]*Group{}
	members := map[*Group][]*Group{}
	for _, g := range groups {
		shape, fields := g.Repro.Minimal.FieldShape(keep)
		if len(fields) == 0 {
			out = append(out, g)
			continue
		}
		key := shape + "\x00" + fmt.Sprint(g.Repro.Want.Status) + "\x00" + withoutFields(g.Repro.Signature.Canonical(), fields)
		m := byKey[key]
		if m == nil {
			m = &Group{Shape: g.Shape}
			byKey[key] = m
			out = append(out, m)
		}
		members[m] = append(members[m], g)
	}
	for i, m := range out {
		gs := members[m]
		if gs == nil {
			continue
		}
		if len(gs) == 1 {
			out[i] = gs[0]
			continue
		}
		sort.SliceStable(gs, func(a, b int) bool { return len(gs[a].Seqs) > len(gs[b].Seqs) })
		first := gs[0]
		shape, _ := first.Repro.Minimal.FieldShape(keep)
		if first.Repro.Want.Status != 200 {
			shape += fmt.Sprintf(" (oracle: HTTP %d)", first.Repro.Want.Status)
		}
		*m = Group{Shape: shape, Repro: first.Repro, atoms: first.atoms}
		for _, g := range gs {
			_, fields := g.Repro.Minimal.FieldShape(keep)
			m.Fields = append(m.Fields, FieldGroup{Fields: strings.Join(fields, "+"), Requests: len(g.Seqs), Uncovered: g.Uncovered, Repro: g.Repro})
			m.Seqs = append(m.Seqs, g.Seqs...)
			m.members = append(m.members, g.members...)
			for _, sc := range g.Signatures {
				m.addSignature(sc)
			}
			m.Shrunk += g.Shrunk
			m.Unshrunk += g.Unshrunk
			m.Fitted += g.Fitted
			m.Unplaced += g.Unplaced
			m.Uncovered += g.Uncovered
		}
	}
	return out
}

func (g *Group) addSignature(sc SignatureCount) {
	for i := range g.Signatures {
		if g.Signatures[i].Signature == sc.Signature {
			g.Signatures[i].Requests += sc.Requests
			return
		}
	}
	g.Signatures = append(g.Signatures, sc)
}

// withoutFields writes a signature with the given field names, where they are steps of its
// path, as <field>.
func withoutFields(sig string, fields []string) string {
	for _, f := range fields {
		sig = strings.ReplaceAll(sig, "."+f+".", ".<field>.")
		if strings.HasSuffix(sig, "."+f) {
			sig = strings.TrimSuffix(sig, "."+f) + ".<field>"
		}
	}
	return sig
}

// shrink reduces d.Minimal greedily: the first simplification that still shows the original
// difference (Signature.ShownIn: its class at its place, not any difference of the class),
// with the oracle answering as it did (same status, nothing unsupported), is kept, and the search starts again from it, until none does or the budget is spent.
func (r *runner) shrink(ctx context.Context, d *Disagreement) {
	if r.stalled != nil {
		return // a side stopped answering: the rest stay as found
	}
	d.Shrunk = true
	if d.Minimal.Body == nil {
		return
	}
	cur := d.Minimal
	for d.Tried < r.cfg.ShrinkBudget && ctx.Err() == nil {
		progressed := false
		for _, e := range Edits(cur.Body, r.cfg.Gen.Tiebreak()) {
			if d.Tried >= r.cfg.ShrinkBudget || ctx.Err() != nil {
				break
			}
			cand := &Case{Kind: cur.Kind, Method: cur.Method, Path: cur.Path, Body: e(cur.Body)}
			// Every edit drops values or moves one toward a simpler value (0, a narrower
			// range, a day, ascending, a sort key's object form), so the search ends; the
			// budget bounds it too.
			if shrinkSize(cand) > shrinkSize(cur) || cand.Key() == cur.Key() {
				continue
			}
			d.Tried++
			want, err := r.ask(ctx, r.cfg.Oracle, r.cfg.OracleIndex, cand)
			if err != nil && r.unanswered(ctx, "oracle", err) {
				return
			}
			if err != nil || want.Status != d.Want.Status || engine.IsUnsupported(want.Status, want.Body) {
				continue
			}
			got, err := r.ask(ctx, r.cfg.Target, r.cfg.TargetIndex, cand)
			if err != nil {
				if r.unanswered(ctx, "target", err) {
					return
				}
				continue
			}
			r.silent = 0
			res, err := check(cand, want, got, r.cfg.Check)
			if err != nil || res.Pass || !d.Signature.ShownIn(res) {
				continue
			}
			cur = cand
			d.Minimal, d.Want, d.Got, d.Result = cand, want, got, res
			progressed = true
			break
		}
		if !progressed {
			return
		}
	}
}

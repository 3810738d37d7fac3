package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// diffSummary renders a result's differences as "class path fails|reported[ relaxed]" lines.
func diffSummary(r Result) []string {
	var out []string
	for _, d := range r.Diffs {
		s := fmt.Sprintf("%s %s", d.Class, d.Path)
		if d.Fails {
			s += " fails"
		} else {
			s += " reported"
		}
		if d.Relaxed != "" {
			s += " " + string(d.Relaxed)
		}
		out = append(out, s)
	}
	return out
}

// Elasticsearch 8.15's _mget answer: each element of docs is a document read, checked as one
// (its _id the identity, found, _source, versions report-only), and a document's error is
// checked as an error.
const mgetBody = `{"docs":[` +
	`{"_index":"c","_id":"a","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"p":1}},` +
	`{"_index":"c","_id":"zz","found":false},` +
	`{"_index":"nope","_id":"b","error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [nope]"}],"type":"index_not_found_exception","reason":"no such index [nope]"}}]}`

func TestCompileAnyText(t *testing.T) {
	for body, kind := range map[string]Kind{"green open catalogue\n": KindText, "": KindText, `[1]`: KindGeneric, `"x"`: KindGeneric, `{"a":1}`: KindGeneric} {
		if x, err := CompileAny(200, []byte(body)); err != nil || x.Kind() != kind {
			t.Errorf("CompileAny(%q): %v, want %s", body, err, kind)
		}
	}
	if _, err := CompileAny(200, []byte(`{"a":`)); err == nil {
		t.Error("a broken JSON answer compiled")
	}
}

// An _msearch answer: a search in relevance order, a sorted one, and an error item.
const msearchBody = `{"took":5,"responses":[` +
	`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":1.5,"hits":[` +
	`{"_index":"c","_id":"a","_score":1.5,"_source":{"p":1}},{"_index":"c","_id":"b","_score":0.5,"_source":{"p":2}}]},"status":200},` +
	`{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[` +
	`{"_index":"c","_id":"a","_score":null,"_source":{"p":1},"sort":[1]}]},"status":200},` +
	`{"error":{"root_cause":[{"type":"parsing_exception","reason":"x"}],"type":"parsing_exception","reason":"x"},"status":400}]}`

func TestKindsMgetMsearchGeneric(t *testing.T) {
	for _, tc := range []struct {
		why       string
		want, got string
		diffs     []string // diffSummary of the result
		opts      *Options
	}{
		{"mget: the same docs pass", mgetBody, mgetBody, nil, nil},
		{"mget: a doc's source is checked as a get's", mgetBody, strings.Replace(mgetBody, `"_source":{"p":1}`, `"_source":{"p":1.0}`, 1),
			[]string{"sources docs[0]._source.p fails"}, nil},
		{"mget: found", mgetBody, strings.Replace(mgetBody, `"_id":"zz","found":false`, `"_id":"zz","found":true`, 1),
			[]string{"found docs[1].found fails"}, nil},
		{"mget: another _id is another document, nothing else of it compared", mgetBody, strings.Replace(mgetBody, `"_id":"a","_version":1`, `"_id":"x","_version":7`, 1),
			[]string{"ids docs[0]._id fails"}, nil},
		{"mget: versions are report-only, as in a get", mgetBody, strings.Replace(mgetBody, `"_seq_no":0`, `"_seq_no":5`, 1),
			[]string{"version docs[0]._seq_no reported"}, nil},
		{"mget: a missing doc", mgetBody, strings.Replace(mgetBody, `,{"_index":"c","_id":"zz","found":false}`, ``, 1),
			[]string{"ids docs fails", "error docs[1].error fails", "ids docs[2] fails"}, nil},
		{"mget: an error where a doc was expected fails as error only", mgetBody,
			strings.Replace(mgetBody, `{"_index":"c","_id":"zz","found":false}`, `{"_index":"c","_id":"zz","error":{"type":"x","reason":"y"}}`, 1),
			[]string{"error docs[1].error fails"}, nil},

		{"msearch: the same responses pass, whatever each took", msearchBody, strings.ReplaceAll(msearchBody, `"took":1,`, `"took":9,`), nil, nil},
		{"msearch: an item's took must still be a non-negative integer", msearchBody, strings.Replace(msearchBody, `"took":1,`, `"took":-1,`, 1),
			[]string{"took responses[0].took reported"}, nil},
		{"msearch: an item's hits are checked as a search's", msearchBody, strings.Replace(msearchBody, `"_id":"b","_score":0.5`, `"_id":"c","_score":0.5`, 1),
			[]string{"ids responses[0].hits.hits[1]._id fails"}, nil},
		{"msearch: an item's status", msearchBody, strings.Replace(msearchBody, `"status":400`, `"status":500`, 1),
			[]string{"status responses[2].status fails"}, nil},
		{"msearch: scores fail in the item in relevance order", msearchBody, strings.Replace(msearchBody, `"_score":0.5`, `"_score":0.25`, 1),
			[]string{"score responses[0].hits.hits[1]._score fails"}, nil},
		{"msearch: scores are reported in the sorted item", msearchBody, strings.Replace(msearchBody, `"_score":null,"_source":{"p":1},"sort":[1]`, `"_score":2.0,"_source":{"p":1},"sort":[1]`, 1),
			[]string{"score responses[1].hits.hits[0]._score reported"}, nil},
		{"msearch: ignore-scores excuses the ranked item's scores", msearchBody, strings.Replace(strings.Replace(msearchBody, `"_score":0.5`, `"_score":7.0`, 1), `"max_score":1.5`, `"max_score":9.0`, 1),
			[]string{"score responses[0].hits.max_score reported ignore-scores", "score responses[0].hits.hits[1]._score reported ignore-scores"}, &Options{Relax: []Relaxation{RelaxScores}}},
		{"msearch: one response too few", msearchBody, strings.Replace(msearchBody, `,{"error":{"root_cause":[{"type":"parsing_exception","reason":"x"}],"type":"parsing_exception","reason":"x"},"status":400}`, ``, 1),
			[]string{"decode responses fails", "decode responses[2] fails"}, nil},

		{"generic: equal JSON passes", `{"cluster_name":"x","version":{"number":"8.15.0"}}`, ` {"cluster_name" : "x", "version":{"number":"8.15.0"}}`, nil, nil},
		{"generic: any value differing fails under body", `{"cluster_name":"x","version":{"number":"8.15.0"}}`, `{"cluster_name":"x","version":{"number":"8.15.1"}}`,
			[]string{"body version.number fails"}, nil},
		{"generic: number kinds too", `{"n":1}`, `{"n":1.0}`, []string{"body n fails"}, nil},
		{"generic: key order is reported", `{"a":1,"b":2}`, `{"b":2,"a":1}`, []string{"key_order  reported"}, nil},
		{"generic: took keeps its rule at the top", `{"took":3,"n":1}`, `{"took":9,"n":1}`, nil, nil},
		{"generic: an array", `[{"a":1},{"a":2}]`, `[{"a":1}]`, []string{"body  fails", "body [1] fails"}, nil},
		{"text: bytes", `green open catalogue`, `yellow open catalogue`, []string{"body  fails"}, nil},
		{"text: an empty body (HEAD)", ``, ``, nil, nil},
		{"text: a body where none was expected", ``, `{}`, []string{"body  fails"}, nil},
	} {
		x, err := CompileAny(200, []byte(tc.want))
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		r := x.Check(200, []byte(tc.got), tc.opts)
		got := diffSummary(r)
		if !slices.Equal(got, tc.diffs) {
			t.Errorf("%s:\n got %q\nwant %q\n%s", tc.why, got, tc.diffs, r)
		}
		wantPass := true
		for _, d := range tc.diffs {
			if strings.HasSuffix(d, " fails") {
				wantPass = false
			}
		}
		if r.Pass != wantPass {
			t.Errorf("%s: pass = %v, want %v", tc.why, r.Pass, wantPass)
		}
	}
}

// The rule for _score and max_score (DESIGN "The strict check", README): strict by default.
// When the hits are in score order (no sort values, or the request sorts by _score first)
// they are part of the answer and compared as numbers, value and kind; under a field sort,
// Elasticsearch 8.15 answers null for both (unless track_scores), and a difference is
// reported only. ignore-scores excuses every score, and the sort values of a _score key, but
// never the hits or their order.
func TestScoreRuleAndIgnoreScores(t *testing.T) {
	ranked := `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":1.5,"hits":[` +
		`{"_index":"c","_id":"a","_score":1.5,"_source":{"p":1}},{"_index":"c","_id":"b","_score":0.5,"_source":{"p":2}}]}}`
	// sort: ["_score", "p"]: the scores are also the first sort value.
	scoreSorted := `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":1.5,"hits":[` +
		`{"_index":"c","_id":"a","_score":1.5,"_source":{"p":1},"sort":[1.5,1]},{"_index":"c","_id":"b","_score":0.5,"_source":{"p":2},"sort":[0.5,2]}]}}`
	otherScores := func(s string) string {
		return strings.NewReplacer(`1.5`, `12.25`, `0.5`, `3.75`).Replace(s)
	}
	relax := &Options{Relax: []Relaxation{RelaxScores}}
	for _, tc := range []struct {
		why       string
		want, got string
		request   string
		opts      *Options
		diffs     []string
	}{
		{"relevance order: another score fails", ranked, otherScores(ranked), `{"query":{"match":{"t":"x"}}}`, nil,
			[]string{"score hits.max_score fails", "score hits.hits[0]._score fails", "score hits.hits[1]._score fails"}},
		{"relevance order: the same float in another spelling passes", ranked, strings.Replace(ranked, `"_score":0.5`, `"_score":5e-1`, 1), ``, nil, nil},
		{"relevance order: 1.0 and 1 are other kinds", strings.Replace(ranked, `0.5`, `1.0`, -1), strings.Replace(ranked, `"_score":0.5`, `"_score":1`, 1), ``, nil,
			[]string{"score hits.hits[1]._score fails"}},
		{"ignore-scores: other scores pass", ranked, otherScores(ranked), ``, relax,
			[]string{"score hits.max_score reported ignore-scores", "score hits.hits[0]._score reported ignore-scores", "score hits.hits[1]._score reported ignore-scores"}},
		{"ignore-scores: another order still fails", ranked, strings.NewReplacer(`"_id":"a"`, `"_id":"b"`, `"_id":"b"`, `"_id":"a"`).Replace(ranked), ``, relax,
			[]string{"ids hits.hits[0]._id fails", "ids hits.hits[1]._id fails"}},
		{"a _score sort key: its sort values are scores, and fail", scoreSorted, otherScores(scoreSorted), `{"sort":["_score",{"p":"asc"}]}`, nil,
			[]string{"score hits.max_score fails", "score hits.hits[0]._score fails", "sort hits.hits[0].sort[0] fails", "score hits.hits[1]._score fails", "sort hits.hits[1].sort[0] fails"}},
		{"ignore-scores excuses a _score key's sort values, not the others", scoreSorted, strings.Replace(otherScores(scoreSorted), `"sort":[3.75,2]`, `"sort":[3.75,3]`, 1), `{"sort":[{"_score":{"order":"desc"}},"p"]}`, relax,
			[]string{"score hits.max_score reported ignore-scores", "score hits.hits[0]._score reported ignore-scores", "sort hits.hits[0].sort[0] reported ignore-scores",
				"score hits.hits[1]._score reported ignore-scores", "sort hits.hits[1].sort[0] reported ignore-scores", "sort hits.hits[1].sort[1] fails"}},
		{"_score as the second key: position 1", strings.ReplaceAll(scoreSorted, `"sort":[1.5,1]`, `"sort":[1,1.5]`), strings.ReplaceAll(scoreSorted, `"sort":[1.5,1]`, `"sort":[1,9.5]`), `{"sort":{"p":"asc","_score":"desc"}}`, relax,
			[]string{"sort hits.hits[0].sort[1] reported ignore-scores"}},
		{"under a field sort scores are null and a difference is reported", sortedPage, strings.Replace(sortedPage, `"_score":null`, `"_score":1.0`, 1), `{"sort":[{"p":"asc"}]}`, nil,
			[]string{"score hits.hits[0]._score reported"}},
	} {
		x := mustCompile(t, 200, tc.want)
		if tc.request != "" {
			x.ForRequest([]byte(tc.request))
		}
		r := x.Check(200, []byte(tc.got), tc.opts)
		if got := diffSummary(r); !slices.Equal(got, tc.diffs) {
			t.Errorf("%s:\n got %q\nwant %q", tc.why, got, tc.diffs)
		}
	}
	// Recorded in reports by name.
	if got := relax.String(); got != "strict, relaxed: ignore-scores" {
		t.Errorf("String() = %q", got)
	}
	if rs, err := ParseRelaxations("ignore-scores"); err != nil || len(rs) != 1 {
		t.Errorf("ParseRelaxations: %v %v", rs, err)
	}
}

// In an _msearch, ForRequest reads the NDJSON body a search at a time: the second search
// sorts by _score, so its scores fail and ignore-scores excuses its sort values.
func TestMsearchScoreSortFromNDJSON(t *testing.T) {
	want := `{"took":5,"responses":[` +
		`{"took":1,"hits":{"total":{"value":1,"relation":"eq"},"max_score":null,"hits":[{"_index":"c","_id":"a","_score":null,"_source":{},"sort":[1]}]},"status":200},` +
		`{"took":1,"hits":{"total":{"value":1,"relation":"eq"},"max_score":2.5,"hits":[{"_index":"c","_id":"a","_score":2.5,"_source":{},"sort":[2.5]}]},"status":200}]}`
	req := "{}\n{\"sort\":[\"p\"]}\n{\"index\":\"c\"}\n{\"sort\":[\"_score\"]}\n"
	got := strings.ReplaceAll(want, "2.5", "4.5")
	x := mustCompile(t, 200, want).ForRequest([]byte(req))
	r := x.Check(200, []byte(got), nil)
	if d := diffSummary(r); !slices.Equal(d, []string{"score responses[1].hits.max_score fails", "score responses[1].hits.hits[0]._score fails", "sort responses[1].hits.hits[0].sort[0] fails"}) {
		t.Errorf("strict: %q", d)
	}
	r = x.Check(200, []byte(got), &Options{Relax: []Relaxation{RelaxScores}})
	if !r.Pass {
		t.Errorf("ignore-scores: %q", diffSummary(r))
	}
}

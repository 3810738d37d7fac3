//go:build realengines

package realengines

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/conformance/fuzz"
	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
	"github.com/tidwall/gjson"
)

// relationQueries is how many fuzz queries TestRelationAtThreshold asks about (seed 28;
// CONFORM_RELATION_N and CONFORM_RELATION_SEED change them). Each costs two or three small
// searches: 3000 took 27 s on this project's machine.
const relationQueries = 3000

// TestRelationAtThreshold proves, on real Elasticsearch 8.15.0 holding the catalogue
// (price-double), the rule that says when a search matching exactly its track_total_hits may
// answer "relation": "gte" (conformance.MayCountAtLeast, derived from Lucene 9.11's
// Weight#count): for each of many fuzz queries it asks for the exact total (track_total_hits
// true), then asks again at size 0 with track_total_hits set to that total, with the fuzz
// request's aggregations on some, and at size 3 on every fifth. A "gte" the rule does not
// allow is a disagreement, and so is a value other than the total or a "gte" at size 3. Real
// Elasticsearch's "eq" where the rule allows "gte" is counted: the rule cannot be stricter
// without knowing the segment layout.
func TestRelationAtThreshold(t *testing.T) {
	es := state(t)["ES_URL"]
	fxDir := priceDouble(t)
	mustConform(t, "load", "--target", "es="+es, "--fixtures", fxDir, "--recreate")
	fx, err := fixtures.Load(fxDir)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := conformance.ParseFieldTypes(fx.Mapping)
	if err != nil {
		t.Fatal(err)
	}
	// The facts of the index as readiness reads them: its deleted documents (none, just
	// loaded) and the corpus's multi-valued fields.
	tg, err := target.Parse("es="+es, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := tg.Transport()
	if err != nil {
		t.Fatal(err)
	}
	if d := load.ProbeDeletions(context.Background(), tp, "catalogue"); !d.Known || d.Deleted != 0 {
		t.Fatalf("the catalogue just loaded: want no deletions reported, got %+v", d)
	}
	sources := make([][]byte, len(fx.Docs))
	for i, d := range fx.Docs {
		sources[i] = d.Source
	}
	facts := conformance.IndexFacts{Deletions: conformance.DeletionsNone, MultiValued: conformance.MultiValuedFields(sources)}
	schema, err := fuzz.NewSchema(fx)
	if err != nil {
		t.Fatal(err)
	}
	seed, count := uint64(28), relationQueries
	if v := os.Getenv("CONFORM_RELATION_SEED"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("CONFORM_RELATION_SEED: %v", err)
		}
	}
	if v := os.Getenv("CONFORM_RELATION_N"); v != "" {
		if count, err = strconv.Atoi(v); err != nil {
			t.Fatalf("CONFORM_RELATION_N: %v", err)
		}
	}
	gen, err := fuzz.NewGenerator(schema, seed, fuzz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Minute}
	search := func(body string) gjson.Result {
		t.Helper()
		resp, err := client.Post(es+"/catalogue/_search", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("search %s: %v", body, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("search %s: %d %s", body, resp.StatusCode, b)
		}
		return gjson.ParseBytes(b)
	}
	// The request first: a term on price and a range on views, one match.
	queries := []string{`{"bool":{"must":[{"term":{"price":58.25}},{"range":{"views":{"lte":7089}}}]}}`}
	var aggs []string
	aggs = append(aggs, "")
	for n := 0; len(queries) < count; n++ {
		req := gen.Request(n)
		if req.Body == nil {
			continue
		}
		body := gjson.ParseBytes(fuzz.Marshal(req.Body))
		q := body.Get("query").Raw
		a := ""
		if n%3 == 0 {
			a = body.Get("aggs").Raw
		}
		queries, aggs = append(queries, q), append(aggs, a)
	}
	var asked, exact, gte, allowed, eqWhereAllowed, zero, paged int
	start := time.Now()
	for i, q := range queries {
		withQuery := func(rest string) string {
			if q == "" {
				return "{" + rest + "}"
			}
			return `{"query":` + q + "," + rest + "}"
		}
		total := search(withQuery(`"size":0,"track_total_hits":true`)).Get("hits.total.value").Int()
		asked++
		if total == 0 {
			zero++ // track_total_hits must be at least 1 to say anything here
			continue
		}
		extra := ""
		if aggs[i] != "" {
			extra = `,"aggs":` + aggs[i]
		}
		body := withQuery(fmt.Sprintf(`"size":0,"track_total_hits":%d%s`, total, extra))
		r := search(body)
		exact++
		may := conformance.MayCountAtLeast(gjson.Parse(q), fields, facts)
		if may {
			allowed++
		}
		switch rel := r.Get("hits.total.relation").String(); {
		case r.Get("hits.total.value").Int() != total:
			t.Errorf("%s: value %d, want the total %d", body, r.Get("hits.total.value").Int(), total)
		case rel == "gte":
			gte++
			if !may {
				t.Errorf("disagreement: Elasticsearch 8.15.0 answered gte at exactly %d, the rule wants eq: %s", total, body)
			}
		case may:
			eqWhereAllowed++
		}
		if i%5 == 0 {
			paged++
			body := withQuery(fmt.Sprintf(`"size":3,"track_total_hits":%d`, total))
			if rel := search(body).Get("hits.total.relation").String(); rel != "eq" {
				t.Errorf("a hits page at exactly %d answered %s: %s", total, rel, body)
			}
		}
	}
	t.Logf("%d fuzz queries (seed %d) on Elasticsearch 8.15.0 in %v: %d asked again at exactly their total (%d had none), "+
		"%d answered gte, all of them allowed by the rule; the rule allowed gte for %d, of which %d answered eq; %d hits pages at exactly N answered eq",
		asked, seed, time.Since(start).Round(time.Second), exact, zero, gte, allowed, eqWhereAllowed, paged)
}

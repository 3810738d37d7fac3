//go:build realengines

package realengines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
	"github.com/tidwall/gjson"
)

// The price sweep compares real OpenSearch with the embedded engine on the designed
// catalogue's scaled_float price (scaling factor 100), every distinct price of the corpus as a
// bound of lt, lte, gt and gte.
//
// The two engines scale a query bound differently. Elasticsearch 8.15's
// ScaledFloatFieldMapper.ScaledFloatFieldType.rangeQuery (the embedded engine's rule,
// oracle/engine/scaled.go) scales in exact decimals, steps past an exclusive bound with
// nextUp/nextDown, and takes ceil for the lower and floor for the upper bound. OpenSearch 3.3
// and later (opensearch-project/OpenSearch PR 19188, modules/mapper-extras/.../
// ScaledFloatFieldMapper.java rangeQuery) scale with a double multiplication, round each bound
// to the nearest long with Math.round and keep the inclusive flags. On the grid (every corpus
// price) both give the same set; between grid points they differ. So the on-grid sweep must
// agree exactly, and the between-grid sweep must match each engine's own rule, differing
// exactly where the rules do.

// msearchBatch is how many counts go in one _msearch request.
const msearchBatch = 1000

type sweepQuery struct {
	price string // the bound as written in the request
	op    string
	// the inclusive intervals of stored longs each rule selects
	esLo, esHi, osLo, osHi int64
}

func (q sweepQuery) body() string {
	return `{"size":0,"track_total_hits":true,"query":{"range":{"price":{"` + q.op + `":` + q.price + `}}}}`
}

func testPriceSweep(t *testing.T, osURL string) {
	start := time.Now()
	fx := fixtures.Default()
	if got := gjson.GetBytes(fx.Mapping, "mappings.properties.price").Raw; !strings.Contains(got, `"scaled_float"`) || gjson.Get(got, "scaling_factor").Float() != 100 {
		t.Fatalf("the designed catalogue's price is %s, not scaled_float with scaling factor 100", got)
	}
	emb := engine.New()
	if err := emb.Load(fx.Workload.Index, fx.Mapping, fx.Docs); err != nil {
		t.Fatal(err)
	}

	// Stored longs: Math.round(value * 100) in doubles, the index-time rule of both engines.
	stored := []int64{}
	texts := map[string]bool{}
	for _, d := range fx.Docs {
		p := gjson.GetBytes(d.Source, "price")
		if !p.Exists() {
			continue
		}
		stored = append(stored, javaRound(p.Float()*100))
		texts[p.Raw] = true
	}
	sort.Slice(stored, func(i, j int) bool { return stored[i] < stored[j] })
	countIn := func(lo, hi int64) int64 {
		a := sort.Search(len(stored), func(i int) bool { return stored[i] >= lo })
		b := sort.Search(len(stored), func(i int) bool { return stored[i] > hi })
		if b < a {
			return 0
		}
		return int64(b - a)
	}

	var onGrid, between []sweepQuery
	ops := []string{"lt", "lte", "gt", "gte"}
	for text := range texts {
		cents := javaRound(gjson.Parse(text).Float() * 100)
		for _, op := range ops {
			// On the grid, scale(x) is the integer c exactly (Elasticsearch) and round(x*100)
			// is c (OpenSearch): lt c-1, lte c, gt c+1, gte c on both.
			q := sweepQuery{price: text, op: op}
			q.esLo, q.esHi = gridBounds(op, cents)
			q.osLo, q.osHi = osBounds(op, text)
			onGrid = append(onGrid, q)
		}
		// Between grid points: c + 0.3 and c + 0.7 hundredths.
		for _, tenth := range []int64{3, 7} {
			n := cents*10 + tenth // the bound is n/1000
			text := strconv.FormatInt(n/1000, 10) + "." + fmt.Sprintf("%03d", n%1000)
			for _, op := range ops {
				q := sweepQuery{price: text, op: op}
				// Elasticsearch: scale = n/10 exactly, strictly between c and c+1, so floor is
				// c and ceil c+1 whether or not the bound is inclusive.
				q.esLo, q.esHi = math.MinInt64, math.MaxInt64
				if op == "gt" || op == "gte" {
					q.esLo = cents + 1
				} else {
					q.esHi = cents
				}
				q.osLo, q.osHi = osBounds(op, text)
				between = append(between, q)
			}
		}
	}
	sortQueries(onGrid)
	sortQueries(between)

	osOn := osCounts(t, osURL, fx.Workload.Index, onGrid)
	osBetween := osCounts(t, osURL, fx.Workload.Index, between)
	embCount := func(q sweepQuery) int64 {
		st, b := emb.Do("POST", "/"+fx.Workload.Index+"/_search", []byte(q.body()))
		if st != 200 {
			t.Fatalf("embedded engine: %s: %d %s", q.body(), st, b)
		}
		return gjson.GetBytes(b, "hits.total.value").Int()
	}

	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 20 {
			t.Errorf(format, args...)
		}
	}
	for i, q := range onGrid {
		e, o := embCount(q), osOn[i]
		if e != o {
			report("%s %s on the grid: embedded %d, OpenSearch %d", q.op, q.price, e, o)
		}
		if want := countIn(q.esLo, q.esHi); e != want {
			report("%s %s on the grid: embedded %d, Elasticsearch's rule [%d, %d] selects %d", q.op, q.price, e, q.esLo, q.esHi, want)
		}
	}
	differ := map[string]int{}
	for i, q := range between {
		e, o := embCount(q), osBetween[i]
		wantES, wantOS := countIn(q.esLo, q.esHi), countIn(q.osLo, q.osHi)
		if e != wantES {
			report("%s %s: embedded %d, Elasticsearch's rule [%d, %d] selects %d", q.op, q.price, e, q.esLo, q.esHi, wantES)
		}
		if o != wantOS {
			report("%s %s: OpenSearch %d, OpenSearch's rule [%d, %d] selects %d", q.op, q.price, o, q.osLo, q.osHi, wantOS)
		}
		if (e != o) != (wantES != wantOS) {
			report("%s %s: embedded %d, OpenSearch %d, but the rules predict %d and %d", q.op, q.price, e, o, wantES, wantOS)
		}
		if e != o {
			differ[q.op]++
		}
	}
	if bad > 20 {
		t.Errorf("... %d mismatches in all", bad)
	}
	// The between-grid bounds must show the divergence, or the sweep proves nothing about
	// which engine it is talking to: OpenSearch's lt and gte at c+0.3 and lte and gt at c+0.7
	// reach a populated grid point Elasticsearch's rule leaves out (or the reverse).
	for _, op := range ops {
		if differ[op] == 0 {
			t.Errorf("no between-grid %s bound tells OpenSearch from Elasticsearch's rule", op)
		}
	}
	t.Logf("price sweep: %d distinct prices; %d on-grid bounds, compared with the embedded engine; %d between-grid bounds, each matching its engine's rule (%v by operator); %d _msearch requests; %v",
		len(texts), len(onGrid), len(between), differ, (len(onGrid)+msearchBatch-1)/msearchBatch+(len(between)+msearchBatch-1)/msearchBatch, time.Since(start).Round(time.Millisecond))
}

// gridBounds are the stored-long bounds of a range on the grid point c (both rules).
func gridBounds(op string, c int64) (int64, int64) {
	switch op {
	case "lt":
		return math.MinInt64, c - 1
	case "lte":
		return math.MinInt64, c
	case "gt":
		return c + 1, math.MaxInt64
	}
	return c, math.MaxInt64
}

// osBounds is OpenSearch 3.6's rangeQuery: b = Math.round(parse(x) * scalingFactor) in
// doubles, then NumberType.LONG.rangeQuery with the inclusive flag (an exclusive bound moves
// by one).
func osBounds(op, text string) (int64, int64) {
	x, err := strconv.ParseFloat(text, 64)
	if err != nil {
		panic(err)
	}
	b := javaRound(x * 100)
	switch op {
	case "lt":
		return math.MinInt64, b - 1
	case "lte":
		return math.MinInt64, b
	case "gt":
		return b + 1, math.MaxInt64
	}
	return b, math.MaxInt64
}

// javaRound is Math.round for the magnitudes of prices: the closest long, ties upward.
func javaRound(x float64) int64 {
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return int64(f)
}

func sortQueries(qs []sweepQuery) {
	sort.Slice(qs, func(i, j int) bool {
		if qs[i].price != qs[j].price {
			return qs[i].price < qs[j].price
		}
		return qs[i].op < qs[j].op
	})
}

// osCounts sends the queries in _msearch batches and returns each one's total hits.
func osCounts(t *testing.T, url, index string, qs []sweepQuery) []int64 {
	t.Helper()
	client := &http.Client{Timeout: time.Minute}
	out := make([]int64, 0, len(qs))
	for i := 0; i < len(qs); i += msearchBatch {
		batch := qs[i:min(i+msearchBatch, len(qs))]
		var body bytes.Buffer
		for _, q := range batch {
			body.WriteString("{}\n" + q.body() + "\n")
		}
		resp, err := client.Post(url+"/"+index+"/_msearch", "application/x-ndjson", &body)
		if err != nil {
			t.Fatalf("_msearch: %v", err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("_msearch: %d %v %.500s", resp.StatusCode, err, b)
		}
		var r struct {
			Responses []json.RawMessage `json:"responses"`
		}
		if err := json.Unmarshal(b, &r); err != nil || len(r.Responses) != len(batch) {
			t.Fatalf("_msearch: %d responses for %d searches (%v): %.500s", len(r.Responses), len(batch), err, b)
		}
		for j, raw := range r.Responses {
			g := gjson.ParseBytes(raw)
			if g.Get("error").Exists() || !g.Get("hits.total.value").Exists() {
				t.Fatalf("_msearch: %s: %.500s", batch[j].body(), raw)
			}
			out = append(out, g.Get("hits.total.value").Int())
		}
	}
	return out
}

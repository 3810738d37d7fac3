// Package clients drives go-elasticsearch, the official Go client, through the calls of the
// subset conform serves (info, ping, get, exists, a filtered sorted search, search_after, a
// terms aggregation, count, bulk, mget, msearch, point in time), once with its typed client
// (elasticsearch.NewTypedClient, which always sends typed_keys=true and compatible-with=8) and
// once with esapi. It returns what each call decoded, so the same calls against conform serve
// and against real Elasticsearch can be compared, and checks what must hold on the catalogue
// whichever engine answers. It writes only to its own scratch index, deleted at the end.
package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types"
	"github.com/elastic/go-elasticsearch/v8/typedapi/types/enums/refresh"
	"github.com/tidwall/gjson"
)

// Scratch is the index the bulk calls write to (created by them, deleted after).
const Scratch = "conform-clients-go"

// Page is the filtered, sorted search every client sends; After continues it.
const Page = `{"size":5,"query":{"bool":{"filter":[{"term":{"category":"tools"}},{"range":{"price":{"lt":50}}}]}},"sort":[{"price":"desc"},{"sku":"asc"}],"track_total_hits":true}`

// Terms is the terms aggregation every client sends.
const Terms = `{"size":0,"aggs":{"by_brand":{"terms":{"field":"brand","size":5},"aggs":{"avg_price":{"avg":{"field":"price"}}}},"in_stock":{"filter":{"term":{"in_stock":true}}}}}`

// Step is one call and what the client decoded from its answer (marshalled back to JSON, with
// took, point-in-time ids and index uuids blanked, which differ by engine).
type Step struct {
	Call   string          `json:"call"`
	Result json.RawMessage `json:"result"`
}

var blank = regexp.MustCompile(`"(took|pit_id|id|index_uuid)":("[^"]*"|\d+)`)

func step(call string, v any) Step {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"marshal_error": err.Error()})
	}
	return Step{call, blank.ReplaceAll(b, []byte(`"$1":"-"`))}
}

// GoCalls runs every call against url with the typed client, then with esapi.
func GoCalls(ctx context.Context, url string) ([]Step, error) {
	cfg := elasticsearch.Config{Addresses: []string{url}}
	typed, err := elasticsearch.NewTypedClient(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := elasticsearch.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	var steps []Step
	add := func(call string, v any, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", call, err)
		}
		steps = append(steps, step(call, v))
		return nil
	}
	if err := typedCalls(ctx, typed, add); err != nil {
		return steps, err
	}
	if err := esapiCalls(ctx, raw, add); err != nil {
		return steps, err
	}
	return steps, nil
}

func typedCalls(ctx context.Context, es *elasticsearch.TypedClient, add func(string, any, error) error) error {
	// Elasticsearch 8.15.0's integration-test distribution has no GET / (no rest-root module):
	// there info fails, and is recorded as such rather than ending the calls.
	if info, err := es.Info().Do(ctx); err != nil {
		_ = add("typed info", map[string]string{"error": err.Error()}, nil)
	} else {
		_ = add("typed info", map[string]string{"version": info.Version.Int}, nil)
	}
	if ok, err := es.Ping().IsSuccess(ctx); err != nil {
		_ = add("typed ping", map[string]string{"error": err.Error()}, nil)
	} else {
		_ = add("typed ping", ok, nil)
	}
	doc, err := es.Get("catalogue", "SKU-03331").Do(ctx)
	if err := add("typed get", doc, err); err != nil {
		return err
	}
	for _, id := range []string{"SKU-03331", "nope"} {
		ok, err := es.Exists("catalogue", id).IsSuccess(ctx)
		if err := add("typed exists "+id, ok, err); err != nil {
			return err
		}
	}
	page, err := es.Search().Index("catalogue").Raw(strings.NewReader(Page)).Do(ctx)
	if err := add("typed search", page, err); err != nil {
		return err
	}
	if len(page.Hits.Hits) == 0 {
		return fmt.Errorf("typed search: no hits")
	}
	after := page.Hits.Hits[len(page.Hits.Hits)-1].Sort
	next, err := es.Search().Index("catalogue").Raw(strings.NewReader(withAfter(Page, after))).Do(ctx)
	if err := add("typed search_after", next, err); err != nil {
		return err
	}
	terms, err := es.Search().Index("catalogue").Raw(strings.NewReader(Terms)).Do(ctx)
	if err := add("typed terms", terms, err); err != nil {
		return err
	}
	// The typed client reads typed_keys: the terms aggregation must come back as StringTerms.
	if _, ok := terms.Aggregations["by_brand"].(*types.StringTermsAggregate); !ok {
		return fmt.Errorf("typed terms: by_brand decoded as %T, not StringTermsAggregate", terms.Aggregations["by_brand"])
	}
	count, err := es.Count().Index("catalogue").Raw(strings.NewReader(`{"query":{"term":{"brand":"Acme"}}}`)).Do(ctx)
	if err := add("typed count", count, err); err != nil {
		return err
	}
	bulk := "{\"index\":{\"_id\":\"1\"}}\n{\"n\":1}\n{\"index\":{\"_id\":\"2\"}}\n{\"n\":2}\n{\"delete\":{\"_id\":\"9\"}}\n"
	br, err := es.Bulk().Index(Scratch).Refresh(refresh.True).Raw(strings.NewReader(bulk)).Do(ctx)
	if err := add("typed bulk", br, err); err != nil {
		return err
	}
	sc, err := es.Count().Index(Scratch).Do(ctx)
	if err := add("typed count scratch", sc, err); err != nil {
		return err
	}
	if _, err := es.Indices.Delete(Scratch).Do(ctx); err != nil {
		return fmt.Errorf("typed delete %s: %w", Scratch, err)
	}
	mg, err := es.Mget().Index("catalogue").Raw(strings.NewReader(`{"docs":[{"_id":"SKU-03331","_source":["brand","price"]},{"_id":"nope"},{"_index":"nope","_id":"x"}]}`)).Do(ctx)
	if err := add("typed mget", mg, err); err != nil {
		return err
	}
	ms, err := es.Msearch().Index("catalogue").Raw(strings.NewReader("{}\n" + Terms + "\n{\"index\":\"nope\"}\n{}\n{}\n" + Page + "\n")).Do(ctx)
	if err := add("typed msearch", ms, err); err != nil {
		return err
	}
	pit, err := es.OpenPointInTime("catalogue").KeepAlive("1m").Do(ctx)
	if err := add("typed open pit", pit.Id != "", err); err != nil {
		return err
	}
	var afterPit []types.FieldValue
	for i := 0; i < 2; i++ {
		body := `{"size":4,"pit":{"id":"` + pit.Id + `","keep_alive":"1m"},"sort":[{"rating":"desc"}],"_source":["rating"]}`
		if afterPit != nil {
			body = withAfter(body, afterPit)
		}
		res, err := es.Search().Raw(strings.NewReader(body)).Do(ctx)
		if err := add(fmt.Sprintf("typed pit page %d", i), res, err); err != nil {
			return err
		}
		if len(res.Hits.Hits) == 0 {
			return fmt.Errorf("typed pit page %d: no hits", i)
		}
		afterPit = res.Hits.Hits[len(res.Hits.Hits)-1].Sort
	}
	closed, err := es.ClosePointInTime().Id(pit.Id).Do(ctx)
	return add("typed close pit", closed, err)
}

func esapiCalls(ctx context.Context, es *elasticsearch.Client, add func(string, any, error) error) error {
	call := func(name string, req esapi.Request, ok ...int) error {
		res, err := req.Do(ctx, es)
		if err != nil {
			return add("esapi "+name, nil, err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			return add("esapi "+name, nil, err)
		}
		var v any
		if len(b) > 0 {
			if err := json.Unmarshal(b, &v); err != nil {
				return add("esapi "+name, nil, fmt.Errorf("%d %.200s: %w", res.StatusCode, b, err))
			}
		}
		return add("esapi "+name, map[string]any{"status": res.StatusCode, "body": v}, nil)
	}
	steps := []struct {
		name string
		req  esapi.Request
	}{
		{"info", esapi.InfoRequest{}},
		{"ping", esapi.PingRequest{}},
		{"get", esapi.GetRequest{Index: "catalogue", DocumentID: "SKU-49561"}},
		{"get missing", esapi.GetRequest{Index: "catalogue", DocumentID: "nope"}},
		{"exists", esapi.ExistsRequest{Index: "catalogue", DocumentID: "SKU-03331"}},
		{"exists missing", esapi.ExistsRequest{Index: "catalogue", DocumentID: "nope"}},
		{"search", esapi.SearchRequest{Index: []string{"catalogue"}, Body: strings.NewReader(Page)}},
		{"search filter_path", esapi.SearchRequest{Index: []string{"catalogue"}, Body: strings.NewReader(Page), FilterPath: []string{"hits.hits._id", "hits.hits.sort"}}},
		{"terms typed_keys", esapi.SearchRequest{Index: []string{"catalogue"}, Body: strings.NewReader(Terms), TypedKeys: esapi.BoolPtr(true)}},
		{"count", esapi.CountRequest{Index: []string{"catalogue"}}},
		{"bulk", esapi.BulkRequest{Index: Scratch, Refresh: "true", Body: strings.NewReader("{\"index\":{\"_id\":\"a\"}}\n{\"n\":1}\n{\"create\":{\"_id\":\"a\"}}\n{\"n\":2}\n")}},
		{"count scratch", esapi.CountRequest{Index: []string{Scratch}}},
		{"delete scratch", esapi.IndicesDeleteRequest{Index: []string{Scratch}}},
		{"mget", esapi.MgetRequest{Index: "catalogue", Body: strings.NewReader(`{"ids":["SKU-03331","SKU-11250","nope"]}`), SourceIncludes: []string{"brand", "tags"}}},
		{"msearch", esapi.MsearchRequest{Body: strings.NewReader("{\"index\":\"catalogue\"}\n" + Terms + "\n{\"index\":\"catalogue\"}\n" + Page + "\n"), TypedKeys: esapi.BoolPtr(true)}},
	}
	for _, s := range steps {
		if err := call(s.name, s.req); err != nil {
			return err
		}
	}
	res, err := esapi.OpenPointInTimeRequest{Index: []string{"catalogue"}, KeepAlive: "1m"}.Do(ctx, es)
	if err != nil {
		return add("esapi open pit", nil, err)
	}
	var pit struct{ ID string }
	err = json.NewDecoder(res.Body).Decode(&pit)
	res.Body.Close()
	if err != nil || pit.ID == "" {
		return add("esapi open pit", nil, fmt.Errorf("%d: no id (%v)", res.StatusCode, err))
	}
	body := `{"size":3,"pit":{"id":"` + pit.ID + `","keep_alive":"1m"},"sort":[{"released":"asc"}],"_source":["released"]}`
	if err := call("pit search", esapi.SearchRequest{Body: strings.NewReader(body)}); err != nil {
		return err
	}
	if err := call("close pit", esapi.ClosePointInTimeRequest{Body: strings.NewReader(`{"id":"` + pit.ID + `"}`)}); err != nil {
		return err
	}
	return call("close pit again", esapi.ClosePointInTimeRequest{Body: strings.NewReader(`{"id":"` + pit.ID + `"}`)})
}

func withAfter(body string, after []types.FieldValue) string {
	b, _ := json.Marshal(after)
	return strings.TrimSuffix(body, "}") + `,"search_after":` + string(b) + "}"
}

// Equal compares two runs' steps and names the first that differs.
func Equal(a, b []Step) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d steps against %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Call != b[i].Call || !bytes.Equal(a[i].Result, b[i].Result) {
			return fmt.Errorf("%s:\n  %s\n  %s", a[i].Call, a[i].Result, b[i].Result)
		}
	}
	return nil
}

// RootCalls are the calls of GET / and HEAD /, which Elasticsearch 8.15.0's integration-test
// distribution does not serve (no rest-root module).
var RootCalls = map[string]bool{"typed info": true, "typed ping": true, "esapi info": true, "esapi ping": true}

// Check asserts what the calls must have decoded on the catalogue, whichever engine answered:
// each client's view of the subset, not one engine's bytes. With noRoot, RootCalls are not
// checked.
func Check(steps []Step, noRoot bool) error {
	got := map[string]gjson.Result{}
	for _, s := range steps {
		got[s.Call] = gjson.ParseBytes(s.Result)
	}
	var errs []string
	want := func(call, path string, ok func(gjson.Result) bool, what string) {
		if noRoot && RootCalls[call] {
			return
		}
		v := got[call]
		if path != "" {
			v = v.Get(path)
		}
		if !ok(v) {
			errs = append(errs, fmt.Sprintf("%s: %s %s, got %s", call, path, what, v.Raw))
		}
	}
	is := func(s string) func(gjson.Result) bool { return func(v gjson.Result) bool { return v.Raw == s } }
	positive := func(v gjson.Result) bool { return v.Int() > 0 }
	count := func(n int) func(gjson.Result) bool {
		return func(v gjson.Result) bool { return len(v.Array()) == n }
	}
	want("typed info", "version", is(`"8.15.0"`), "is 8.15.0")
	want("typed ping", "", is("true"), "is true")
	want("typed get", "found", is("true"), "is true")
	want("typed get", "_source.sku", is(`"SKU-03331"`), "is the document's")
	want("typed exists SKU-03331", "", is("true"), "is true")
	want("typed exists nope", "", is("false"), "is false")
	want("typed search", "hits.hits", count(5), "holds 5 hits")
	want("typed search", "hits.total.value", positive, "is positive")
	want("typed search_after", "hits.hits", count(5), "holds 5 hits")
	first, next := got["typed search"].Get("hits.hits.4.sort.0").Float(), got["typed search_after"].Get("hits.hits.0.sort.0").Float()
	if next > first {
		errs = append(errs, fmt.Sprintf("typed search_after: continues at price %v after %v (sorted descending)", next, first))
	}
	if got["typed search"].Get("hits.hits.4._id").Raw == got["typed search_after"].Get("hits.hits.0._id").Raw {
		errs = append(errs, "typed search_after: repeats the last hit")
	}
	want("typed terms", "aggregations.by_brand.buckets", count(5), "holds 5 buckets")
	want("typed terms", "aggregations.by_brand.buckets.0.avg_price.value", positive, "is a positive average")
	want("typed terms", "aggregations.in_stock.doc_count", positive, "is positive")
	acme := got["typed terms"].Get(`aggregations.by_brand.buckets.#(key=="Acme").doc_count`).Int()
	want("typed count", "count", func(v gjson.Result) bool { return v.Int() == acme && acme > 0 }, fmt.Sprintf("is Acme's bucket (%d)", acme))
	want("typed bulk", "errors", is("false"), "is false")
	want("typed bulk", "items", count(3), "holds 3 items")
	want("typed count scratch", "count", is("2"), "is 2")
	want("typed mget", "docs", count(3), "holds 3 docs")
	want("typed mget", "docs.0._source", is(`{"brand":"Initech","price":36.25}`), "is the filtered source")
	want("typed mget", "docs.1.found", is("false"), "is false")
	want("typed mget", "docs.2.error.type", is(`"index_not_found_exception"`), "is index_not_found_exception")
	want("typed msearch", "responses", count(3), "holds 3 responses")
	want("typed msearch", "responses.0.aggregations.by_brand.buckets", count(5), "holds 5 buckets")
	want("typed msearch", "responses.1.status", is("404"), "is 404")
	want("typed msearch", "responses.2.hits.hits", count(5), "holds 5 hits")
	want("typed open pit", "", is("true"), "gave an id")
	want("typed pit page 0", "hits.hits", count(4), "holds 4 hits")
	want("typed pit page 1", "hits.hits", count(4), "holds 4 hits")
	want("typed pit page 0", "hits.hits.0.sort", count(2), "is rating and the _shard_doc tiebreaker")
	want("typed close pit", "", is(`{"num_freed":1,"succeeded":true}`), "freed it")
	for call, status := range map[string]string{"info": "200", "ping": "200", "get": "200", "get missing": "404", "exists": "200",
		"exists missing": "404", "search": "200", "search filter_path": "200", "terms typed_keys": "200", "count": "200", "bulk": "200",
		"count scratch": "200", "delete scratch": "200", "mget": "200", "msearch": "200", "pit search": "200", "close pit": "200",
		"close pit again": "404"} {
		want("esapi "+call, "status", is(status), "is "+status)
	}
	want("esapi get", "body._source.brand", is(`"𝔾alaxy"`), "is the document's")
	want("esapi search filter_path", "body", func(v gjson.Result) bool {
		return v.Get("hits.hits.#").Int() == 5 && !v.Get("took").Exists() && !v.Get("hits.hits.0._source").Exists()
	}, "keeps only hits.hits._id and sort")
	want("esapi terms typed_keys", "body.aggregations", func(v gjson.Result) bool {
		return v.Get(`sterms#by_brand.buckets.0.avg#avg_price`).Exists() && v.Get(`filter#in_stock.doc_count`).Exists()
	}, "names sterms#by_brand, avg#avg_price and filter#in_stock")
	want("esapi count", "body.count", is("10000"), "is 10000")
	want("esapi bulk", "body.items.1.create.status", is("409"), "is 409 (created twice)")
	want("esapi count scratch", "body.count", is("1"), "is 1")
	want("esapi mget", "body.docs.1._source", is(`{"brand":"Müller","tags":[]}`), "is the filtered source")
	want("esapi mget", "body.docs.2.found", is("false"), "is false")
	want("esapi msearch", "body.responses.#.status", is("[200,200]"), "is [200,200]")
	want("esapi pit search", "body.hits.hits", count(3), "holds 3 hits")
	want("esapi close pit", "body.num_freed", is("1"), "is 1")
	if len(errs) > 0 {
		return fmt.Errorf("%d checks failed:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	return nil
}

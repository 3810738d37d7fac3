//go:build realengines

package realengines

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestClientAPIs sends the same requests to real Elasticsearch 8.15.0 and to `conform serve
// --fixtures <price-double>`, both holding the catalogue, and compares status, Content-Type and
// body byte for byte: typed_keys, filter_path, _mget, _msearch, point in time and the
// compatibility headers. Two things are normalised, because they cannot match:
//
//   - "took": the milliseconds each engine spent (any "took":N becomes "took":0);
//   - point-in-time ids: each engine encodes its own node id, index uuid, session and context
//     number in them, so each side's own open id is replaced by <PIT> in its answers. An id of
//     real Elasticsearch's that is closed is sent to both as it is, and answered alike (its
//     node, index and context come from the id);
//   - the order of the header names in "Invalid media-type value on headers [Accept,
//     Content-Type]": Elasticsearch keeps them in a Set.of (RestRequest.MediaTypeHeaderException),
//     whose iteration order Java draws anew at every JVM start (ImmutableCollections.SALT), so
//     either order is Elasticsearch's (both seen on 8.15.0); the names are sorted.
//
// Nothing else is: _shards (one shard on both), hits, sort values (_shard_doc included: both
// number the documents in load order, checked first), aggregations, errors.
func TestClientAPIs(t *testing.T) {
	es := state(t)["ES_URL"]
	fx := priceDouble(t)
	loadCatalogue(t, es, fx)
	emb := startServe(t, fx)
	client := &http.Client{Timeout: time.Minute}

	// _shard_doc values are Lucene's document numbers on real Elasticsearch: they match the
	// engine's only where both number the documents in load order (one segment, or segments in
	// order), which conform load's sequential batches give.
	t.Run("document-order", func(t *testing.T) {
		id := openPIT(t, client, es)
		defer closePIT(client, es, id)
		_, _, b := send(t, client, es, "POST", "/_search?filter_path=hits.hits._id,hits.hits.sort", map[string]string{"Content-Type": "application/json"},
			`{"size":10000,"_source":false,"pit":{"id":"`+id+`"},"sort":["_shard_doc"]}`)
		_, _, want := send(t, client, emb, "POST", "/catalogue/_search?filter_path=hits.hits._id", map[string]string{"Content-Type": "application/json"},
			`{"size":10000,"_source":false,"sort":["_doc"]}`)
		var got, exp struct {
			Hits struct {
				Hits []struct {
					ID   string `json:"_id"`
					Sort []int  `json:"sort"`
				}
			}
		}
		if json.Unmarshal(b, &got) != nil || json.Unmarshal(want, &exp) != nil || len(got.Hits.Hits) != 10000 || len(exp.Hits.Hits) != 10000 {
			t.Fatalf("reading the documents in order: %.300s", b)
		}
		for i, h := range got.Hits.Hits {
			if h.Sort[0] != i || h.ID != exp.Hits.Hits[i].ID {
				t.Fatalf("document %d is %s (_shard_doc %d) on Elasticsearch, %s in load order: the index's segments are not in load order, so _shard_doc values cannot match", i, h.ID, h.Sort[0], exp.Hits.Hits[i].ID)
			}
		}
	})

	jsonH := map[string]string{"Content-Type": "application/json"}
	ndjson := map[string]string{"Content-Type": "application/x-ndjson"}
	compare := func(t *testing.T, c apiCase) {
		t.Helper()
		hdr := c.headers
		if hdr == nil && c.body != "" {
			hdr = jsonH
		}
		ws, wct, want := send(t, client, es, c.method, c.path, hdr, c.body)
		gs, gct, got := send(t, client, emb, c.method, c.path, hdr, c.body)
		want, got = normalise(want, ""), normalise(got, "")
		if ws != gs || wct != gct || !bytes.Equal(want, got) {
			t.Errorf("%s %s %.200s\nElasticsearch: %d %s\n%s\nembedded:      %d %s\n%s", c.method, c.path, c.body, ws, wct, want, gs, gct, got)
		}
	}
	var recorded []recordedCase
	for _, group := range clientAPICases() {
		t.Run(group.name, func(t *testing.T) {
			for _, c := range group.cases {
				if c.headers == nil && strings.Contains(c.path, "_msearch") {
					c.headers = ndjson
				}
				compare(t, c)
				if *recordClientAPIs {
					hdr := c.headers
					if hdr == nil && c.body != "" {
						hdr = jsonH
					}
					st, ct, b := send(t, client, es, c.method, c.path, hdr, c.body)
					recorded = append(recorded, recordedCase{group.name, c.method, c.path, hdr, c.body, st, ct, string(normalise(b, ""))})
				}
			}
			t.Logf("%d requests, byte-identical after normalising took", len(group.cases))
		})
	}
	if *recordClientAPIs {
		b, _ := json.MarshalIndent(recorded, "", " ")
		path := filepath.Join(root, "oracle", "engine", "testdata", "clientapis-es-8.15.0.json")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d answers of Elasticsearch 8.15.0 in %s", len(recorded), path)
	}

	// Point in time: open one on each engine, page through a filtered sort with search_after
	// (each side continuing from its own last hit), with aggregations and typed_keys, and close.
	t.Run("pit", func(t *testing.T) {
		n := 0
		bodies := []string{
			`{"size":7,"query":{"bool":{"filter":[{"term":{"category":"bath"}}]}},"sort":[{"in_stock":"asc"},{"released":"desc"}],"aggs":{"b":{"terms":{"field":"brand","size":3}},"p":{"avg":{"field":"price"}}}}`,
			`{"size":5,"_source":["brand","price"],"sort":[{"price":"asc"}]}`,
			`{"size":4,"_source":false,"sort":[{"rating":"desc"},{"_shard_doc":"desc"}]}`,
			`{"size":3,"_source":false,"sort":["_score"],"track_total_hits":false}`,
			`{"size":2,"_source":false}`,
		}
		for _, body := range bodies {
			eid, gid := openPIT(t, client, es), openPIT(t, client, emb)
			var eAfter, gAfter json.RawMessage
			for page := 0; page < 3; page++ {
				eb, gb := withPIT(body, eid, eAfter), withPIT(body, gid, gAfter)
				ws, _, want := send(t, client, es, "POST", "/_search?typed_keys=true", jsonH, eb)
				gs, _, got := send(t, client, emb, "POST", "/_search?typed_keys=true", jsonH, gb)
				eAfter, gAfter = lastSort(want), lastSort(got)
				want, got = normalise(want, eid), normalise(got, gid)
				n++
				if ws != gs || !bytes.Equal(want, got) {
					t.Errorf("page %d of %s\nElasticsearch: %d %s\nembedded:      %d %s", page, body, ws, want, gs, got)
					break
				}
				if eAfter == nil {
					break
				}
			}
			for _, side := range []struct{ url, id string }{{es, eid}, {emb, gid}} {
				st, _, b := send(t, client, side.url, "DELETE", "/_pit", jsonH, `{"id":"`+side.id+`"}`)
				if st != 200 || string(b) != `{"succeeded":true,"num_freed":1}` {
					t.Errorf("closing %s's point in time: %d %s", side.url, st, b)
				}
				n++
				st, _, b = send(t, client, side.url, "DELETE", "/_pit", jsonH, `{"id":"`+side.id+`"}`)
				if st != 404 || string(b) != `{"succeeded":false,"num_freed":0}` {
					t.Errorf("closing %s's point in time twice: %d %s", side.url, st, b)
				}
				n++
			}
		}
		// A closed id of Elasticsearch's, sent to both: the same 404, naming its node.
		closed := openPIT(t, client, es)
		closePIT(client, es, closed)
		for _, c := range []apiCase{
			{"POST", "/_search", nil, `{"pit":{"id":"` + closed + `"},"size":1}`},
			{"POST", "/_search", nil, `{"pit":{"id":"` + closed + `","keep_alive":"1m"},"size":1,"sort":["sku"]}`},
			{"DELETE", "/_pit", nil, `{"id":"` + closed + `"}`},
		} {
			compare(t, c)
			n++
		}
		t.Logf("%d requests, byte-identical after normalising took and each side's own point-in-time id", n)
	})
}

var recordClientAPIs = flag.Bool("record-clientapis", false, "write Elasticsearch's answers to TestClientAPIs' fixed requests into oracle/engine/testdata (check the diff)")

// recordedCase is one fixed request and Elasticsearch 8.15.0's answer (took set to 0), which
// oracle/engine's TestClientAPIsRecorded replays on the embedded engine without a JVM.
type recordedCase struct {
	Group   string            `json:"group"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Status  int               `json:"status"`
	CType   string            `json:"content_type"`
	Answer  string            `json:"answer"`
}

// apiCase is one request sent to both engines.
type apiCase struct {
	method, path string
	headers      map[string]string
	body         string
}

func clientAPICases() []struct {
	name  string
	cases []apiCase
} {
	nd := func(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
	const vnd = "application/vnd.elasticsearch+json; compatible-with="
	h := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	allAggs := `{"size":0,"aggs":{"kw":{"terms":{"field":"brand","size":3}},"lng":{"terms":{"field":"views","size":2}},` +
		`"int":{"terms":{"field":"stock","size":2,"order":{"mx":"desc"}},"aggs":{"mx":{"max":{"field":"price"}},"f":{"filter":{"term":{"brand":"Acme"}},"aggs":{"v":{"value_count":{"field":"sku"}},"s":{"sum":{"field":"price"}}}}}},` +
		`"dbl":{"terms":{"field":"price","size":2}},"flt":{"terms":{"field":"rating","size":2}},"date":{"terms":{"field":"released","size":2}},` +
		`"bool":{"terms":{"field":"in_stock"}},"unmapped":{"terms":{"field":"nope"}},"miss":{"terms":{"field":"color","missing":"none","size":2}},` +
		`"fs":{"filters":{"filters":{"acme":{"term":{"brand":"Acme"}},"cheap":{"range":{"price":{"lt":10}}}},"other_bucket_key":"rest"},"aggs":{"mn":{"min":{"field":"rating"}},"av":{"avg":{"field":"weight"}}}},` +
		`"fa":{"filters":{"filters":[{"term":{"category":"bath"}}]}},"one":{"filter":{"term":{"in_stock":true}}},` +
		`"mn":{"min":{"field":"released"}},"mx":{"max":{"field":"in_stock"}},"sm":{"sum":{"field":"weight"}},"av":{"avg":{"field":"price"}},"vc":{"value_count":{"field":"tags"}}}}`
	page := `{"size":3,"query":{"bool":{"filter":[{"term":{"category":"tools"}},{"range":{"price":{"lt":50}}}]}},"sort":[{"price":"desc"},{"sku":"asc"}],"aggs":{"b":{"terms":{"field":"brand","size":2},"aggs":{"m":{"avg":{"field":"price"}}}}}}`
	return []struct {
		name  string
		cases []apiCase
	}{
		{"typed_keys", []apiCase{
			{"POST", "/catalogue/_search?typed_keys=true", nil, allAggs},
			{"POST", "/catalogue/_search?typed_keys", nil, allAggs},
			{"POST", "/catalogue/_search?typed_keys=false", nil, allAggs},
			{"POST", "/catalogue/_search?typed_keys=true", nil, page},
			{"POST", "/catalogue/_search?typed_keys=true", nil, `{"size":1}`},
			{"POST", "/_msearch?typed_keys=true", nil, nd(`{"index":"catalogue"}`, allAggs, `{"index":"catalogue"}`, page)},
		}},
		{"filter_path", filterPathCases(page)},
		{"mget", []apiCase{
			{"POST", "/catalogue/_mget", nil, `{"ids":["SKU-03331","SKU-49561","SKU-11250","nope"]}`},
			{"GET", "/catalogue/_mget?_source_includes=brand,tags", nil, `{"ids":["SKU-03331","SKU-11250","nope"]}`},
			{"POST", "/catalogue/_mget?_source=false", nil, `{"ids":["SKU-03331"]}`},
			{"POST", "/catalogue/_mget?_source=brand,price", nil, `{"ids":["SKU-03331"]}`},
			{"POST", "/catalogue/_mget?_source_excludes=tags", nil, `{"ids":["SKU-03331"]}`},
			{"POST", "/_mget", nil, `{"docs":[{"_index":"catalogue","_id":"SKU-03331","_source":["brand"]},{"_index":"catalogue","_id":"nope"},{"_index":"nope","_id":"x"},{"_index":"catalogue","_id":"SKU-11250","_source":false},{"_index":"catalogue","_id":"SKU-49561","_source":"brand"},{"_index":"catalogue","_id":"SKU-91385","_source":{"includes":["views","sku"],"excludes":["sku"]}},{"_index":"catalogue","_id":7}]}`},
			{"POST", "/catalogue/_mget", nil, `{"docs":[{"_id":"SKU-03331"},{"_index":"catalogue","_id":"SKU-11250"}],"ids":["SKU-49561"]}`},
			{"POST", "/catalogue/_mget?filter_path=docs._id,docs.found", nil, `{"ids":["SKU-03331","nope"]}`},
			{"POST", "/catalogue/_mget?filter_path=docs._source.brand", nil, `{"ids":["SKU-03331","SKU-49561"]}`},
			{"POST", "/_mget", nil, ``},
			{"POST", "/_mget", nil, `{}`},
			{"POST", "/_mget", nil, `{"docs":[]}`},
			{"POST", "/_mget", nil, `{"ids":["a","b"]}`},
			{"POST", "/_mget", nil, `{"docs":[{"_id":"a"},{"_index":"catalogue"}]}`},
			{"POST", "/_mget", nil, `{"docs":[{"_index":"catalogue","_id":"SKU-03331","foo":1}]}`},
			{"POST", "/_mget", nil, `{"foo":[1]}`},
			{"POST", "/_mget", nil, `{"docs":{}}`},
			{"POST", "/_mget", nil, `{"docs":[1]}`},
			{"POST", "/_mget", nil, `{"ids":[{}]}`},
			{"POST", "/catalogue/_mget?foo=1", nil, `{"ids":["a"]}`},
		}},
		{"msearch", []apiCase{
			{"POST", "/_msearch", nil, nd(`{"index":"catalogue"}`, `{"size":1,"_source":false,"aggs":{"a":{"avg":{"field":"price"}}}}`, `{}`, `{"size":0}`, `{"index":"nope"}`, `{"size":0}`, `{"index":["catalogue"]}`, page)},
			{"GET", "/catalogue/_msearch", nil, nd(`{}`, `{"size":0,"track_total_hits":false}`, ``, `{"size":2,"sort":["sku"],"_source":["brand"]}`)},
			{"POST", "/catalogue/_msearch?rest_total_hits_as_int=true", nil, nd(`{}`, `{"size":2,"sort":["sku"]}`)},
			{"POST", "/catalogue/_msearch?filter_path=responses.hits.total,responses.status", nil, nd(`{}`, `{"size":0}`, `{"index":"nope"}`, `{}`)},
			{"POST", "/_msearch?filter_path=responses.error.type,responses.error.resource*", nil, nd(`{"index":"nope"}`, `{}`)},
			{"POST", "/catalogue/_msearch", h("Content-Type", "application/json"), nd(`{}`, `{"size":1}`)},
			{"POST", "/catalogue/_msearch", nil, "\n" + nd(`{"size":0}`)},
			{"POST", "/catalogue/_msearch", nil, strings.TrimSuffix(nd(`{}`, `{"size":0}`), "\n")},
			{"POST", "/catalogue/_msearch", nil, nd(`{}`)},
			{"POST", "/catalogue/_msearch", nil, nd(`{}`, ``)},
			{"POST", "/catalogue/_msearch", nil, nd(`{"foo":1}`, `{"size":0}`)},
			{"POST", "/catalogue/_msearch", nil, nd(`{}`, `{"size":-1}`)},
			{"POST", "/catalogue/_msearch?foo=1", nil, nd(`{}`, `{}`)},
			{"POST", "/catalogue/_msearch", nil, ``},
		}},
		{"pit-errors", []apiCase{
			{"POST", "/catalogue/_pit", nil, ``},
			{"POST", "/_pit", nil, ``},
			{"POST", "/_pit?keep_alive=1m", nil, ``},
			{"POST", "/catalogue/_pit?keep_alive=1m&foo=1", nil, ``},
			{"POST", "/nope/_pit?keep_alive=1m", nil, ``},
			{"POST", "/catalogue/_pit?keep_alive=abc", nil, ``},
			{"POST", "/_search", nil, `{"pit":{"id":"bogus"},"size":1}`},
			{"POST", "/_search", nil, `{"pit":{"id":"x"},"size":1}`},
			{"POST", "/_search", nil, `{"pit":{},"size":1}`},
			{"POST", "/_search", nil, `{"size":1,"sort":["_shard_doc"]}`},
			{"DELETE", "/_pit", nil, `{"id":"bogus"}`},
			{"DELETE", "/_pit", nil, `{}`},
			{"DELETE", "/_pit", nil, ``},
			{"DELETE", "/_pit", nil, `{"id":"x","y":1}`},
		}},
		{"headers", []apiCase{
			{"GET", "/catalogue/_doc/SKU-03331", h("Accept", vnd+"8"), ""},
			{"GET", "/catalogue/_doc/SKU-03331", h("Accept", vnd+"7"), ""},
			{"GET", "/catalogue/_doc/nope", h("Accept", vnd+"7"), ""},
			{"GET", "/catalogue/_doc/SKU-03331", h("Accept", vnd+"9"), ""},
			{"GET", "/catalogue/_doc/SKU-03331", h("Accept", "Application/VND.Elasticsearch+JSON;Compatible-With=9"), ""},
			{"GET", "/catalogue/_doc/SKU-03331", h("Accept", vnd+"6"), ""},
			{"HEAD", "/catalogue/_doc/SKU-03331", h("Accept", vnd+"9"), ""},
			{"POST", "/catalogue/_search", h("Accept", vnd+"8", "Content-Type", vnd+"8"), page},
			{"POST", "/catalogue/_search", h("Accept", vnd+"7", "Content-Type", vnd+"7"), page},
			{"POST", "/catalogue/_search", h("Accept", vnd+"9", "Content-Type", vnd+"9"), page},
			{"POST", "/catalogue/_search", h("Content-Type", vnd+"9"), page},
			{"POST", "/catalogue/_search", h("Content-Type", vnd+"8"), page},
			{"POST", "/catalogue/_search", h("Accept", vnd+"7", "Content-Type", vnd+"8"), page},
			{"POST", "/catalogue/_search", h("Accept", vnd+"8"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "text/plain"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "text/plain; charset=utf-8"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "application/x-www-form-urlencoded"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "foo"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "foo", "Accept", "bar"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "application/json; charset=UTF-8"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "application/json", "Accept", "application/json;charset=UTF-8"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "application/x-ndjson"), page},
			{"POST", "/catalogue/_search", h("Content-Type", "application/vnd.elasticsearch+json"), page},
			{"GET", "/catalogue/_count", h("Accept", "application/*"), ""},
			{"GET", "/catalogue/_count", h("Accept", "text/plain"), ""},
			{"GET", "/catalogue/_count", h("Accept", "text/html, */*"), ""},
			{"GET", "/catalogue/_count", h("Content-Type", "text/plain"), ""},
			{"GET", "/catalogue/_count", h("Accept", "application/vnd.elasticsearch+x-ndjson; compatible-with=8"), ""},
			{"GET", "/catalogue/_count", h("Accept", "application/json; x"), ""},
			{"POST", "/catalogue/_mget", h("Accept", vnd+"7", "Content-Type", vnd+"7"), `{"ids":["SKU-03331","nope"],"_source":false}`},
			{"POST", "/_mget", h("Accept", vnd+"7", "Content-Type", vnd+"7"), `{"docs":[{"_index":"nope","_id":"1"},{"_index":"catalogue","_id":"SKU-03331","_source":false}]}`},
			{"POST", "/catalogue/_msearch", h("Accept", vnd+"7", "Content-Type", "application/vnd.elasticsearch+x-ndjson; compatible-with=7"), nd(`{}`, `{"size":2,"_source":false}`)},
			{"POST", "/catalogue/_msearch", h("Accept", vnd+"8", "Content-Type", "application/vnd.elasticsearch+x-ndjson; compatible-with=8"), nd(`{}`, `{"size":2,"_source":false}`)},
			{"POST", "/catalogue/_search?filter_path=hits.hits._type,hits.hits._id", h("Accept", vnd+"7", "Content-Type", vnd+"7"), `{"size":2}`},
		}},
	}
}

// filterPathCases are filter_path values measured on Elasticsearch 8.15.0, on a search and on
// documents whose _source re-serialisation shows (a character outside the BMP, 92.0, an empty
// array, a long beyond a double's precision).
func filterPathCases(page string) []apiCase {
	var out []apiCase
	for _, fp := range []string{"hits.hits._id", "took,hits.total", "hits.hits._source.brand,hits.hits.sort", "-hits.hits._source",
		"aggregations.**.key", "**.doc_count", "hits.hits._source.tags", "nothing", "hits.hits._source,-hits.hits._source.tags",
		"-took,-_shards,-hits.hits", "*.total", "aggregations.b.buckets.m", "-", "**", "-**", "hits.hits.*", "-hits.hits.*",
		"hits.hits._source.tags.x", ",", ""} {
		out = append(out, apiCase{"POST", "/catalogue/_search?filter_path=" + fp, nil, page})
	}
	for _, fp := range []string{"_source.tags", "_source.tags.x", "-_source.tags", "_source,-_source.*", "-_source.*", "_source.*",
		"-_source", "_source.st*", "_s*.b*", "*", "-*", "_source.**", "found,-found", "-_source.tags.x", "_source.**.brand",
		"**.brand", "-**.brand", "**._id", "_*", "-", "_source.views"} {
		for _, id := range []string{"SKU-11250", "SKU-49561", "SKU-91385", "nope"} {
			out = append(out, apiCase{"GET", "/catalogue/_doc/" + id + "?filter_path=" + fp, nil, ""})
		}
	}
	return append(out,
		apiCase{"GET", "/nope/_doc/1?filter_path=status", nil, ""},
		apiCase{"POST", "/catalogue/_search?filter_path=error.type", nil, `{"size":-1}`},
		apiCase{"POST", "/catalogue/_count?filter_path=count", nil, `{"query":{"term":{"brand":"Acme"}}}`},
		apiCase{"GET", "/catalogue/_doc/SKU-49561?filter_path=_id,_source.brand&pretty", nil, ""},
	)
}

var (
	tookRE          = regexp.MustCompile(`"took":\d+`)
	mediaHeadersRE  = regexp.MustCompile(`Invalid media-type value on headers \[([^\]]*)\]`)
	mediaHeadersSep = ", "
)

// sortMediaHeaders sorts the header names of a media_type_header_exception's reason, whose
// order Elasticsearch draws at every JVM start (see TestClientAPIs).
func sortMediaHeaders(b []byte) []byte {
	return mediaHeadersRE.ReplaceAllFunc(b, func(m []byte) []byte {
		names := strings.Split(string(mediaHeadersRE.FindSubmatch(m)[1]), mediaHeadersSep)
		sort.Strings(names)
		return []byte("Invalid media-type value on headers [" + strings.Join(names, mediaHeadersSep) + "]")
	})
}

// normalise applies the normalisations TestClientAPIs documents: took, the side's own
// point-in-time id, and the order of a media-type error's header names.
func normalise(b []byte, pit string) []byte {
	b = tookRE.ReplaceAll(b, []byte(`"took":0`))
	b = sortMediaHeaders(b)
	if pit != "" {
		b = bytes.ReplaceAll(b, []byte(pit), []byte("<PIT>"))
	}
	return b
}

func send(t *testing.T, c *http.Client, base, method, path string, hdr map[string]string, body string) (int, string, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, base, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, base, path, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

func openPIT(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	st, _, b := send(t, c, base, "POST", "/catalogue/_pit?keep_alive=2m", nil, "")
	var r struct{ ID string }
	if st != 200 || json.Unmarshal(b, &r) != nil || r.ID == "" {
		t.Fatalf("opening a point in time on %s: %d %s", base, st, b)
	}
	return r.ID
}

func closePIT(c *http.Client, base, id string) {
	req, _ := http.NewRequest("DELETE", base+"/_pit", strings.NewReader(`{"id":"`+id+`"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
	}
}

// withPIT adds the point in time (and a search_after) to a search body.
func withPIT(body, id string, after json.RawMessage) string {
	extra := `"pit":{"id":"` + id + `","keep_alive":"2m"},`
	if after != nil {
		extra += `"search_after":` + string(after) + `,`
	}
	return "{" + extra + body[1:]
}

// lastSort is the sort values of a response's last hit, nil without one.
func lastSort(b []byte) json.RawMessage {
	var r struct {
		Hits struct {
			Hits []struct {
				Sort json.RawMessage `json:"sort"`
			}
		}
	}
	if json.Unmarshal(b, &r) != nil || len(r.Hits.Hits) == 0 {
		return nil
	}
	return r.Hits.Hits[len(r.Hits.Hits)-1].Sort
}

// startServe runs `conform serve --fixtures fx` on a free loopback port until the test ends.
func startServe(t *testing.T, fx string) string {
	t.Helper()
	return startServeWith(t, "--fixtures", fx)
}

// startServeWith runs `conform serve` with args on a free loopback port until the test ends,
// and returns its URL once it answers.
func startServeWith(t *testing.T, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", addr}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/"); err == nil {
			resp.Body.Close()
			return url
		}
	}
	t.Fatalf("conform serve %s did not answer on %s within 30s:\n%s", strings.Join(args, " "), addr, out.String())
	return ""
}

// loadCatalogue loads the price-double catalogue into Elasticsearch unless a probe finds it
// there intact already (the client tests run one after another on the same index).
func loadCatalogue(t *testing.T, es, fx string) {
	t.Helper()
	if code, out := conform(t, "load", "--probe", "--target", "es="+es, "--fixtures", fx); code == 0 && strings.Contains(out, "intact") {
		return
	}
	mustConform(t, "load", "--target", "es="+es, "--fixtures", fx, "--recreate")
}

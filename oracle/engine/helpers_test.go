package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// newTest creates index "test" with a mapping body and indexes the sources with ids 1, 2, ...
func newTest(t testing.TB, mapping string, sources ...string) *Engine {
	t.Helper()
	e := New()
	if st, b := e.Do("PUT", "/test", []byte(mapping)); st != 200 {
		t.Fatalf("create index: %d %s", st, b)
	}
	var bulk strings.Builder
	for i, s := range sources {
		fmt.Fprintf(&bulk, "{\"index\":{\"_id\":\"%d\"}}\n%s\n", i+1, s)
	}
	if len(sources) > 0 {
		st, b := e.Do("POST", "/test/_bulk?refresh=true", []byte(bulk.String()))
		if st != 200 || gjson.GetBytes(b, "errors").Bool() {
			t.Fatalf("bulk: %d %s", st, b)
		}
	}
	return e
}

func do(t testing.TB, e *Engine, method, target, body string) (int, gjson.Result, string) {
	t.Helper()
	st, b := e.Do(method, target, []byte(body))
	if !gjson.ValidBytes(b) && len(b) > 0 {
		t.Fatalf("%s %s: invalid JSON response: %s", method, target, b)
	}
	return st, gjson.ParseBytes(b), string(b)
}

func search(t testing.TB, e *Engine, body string) gjson.Result {
	t.Helper()
	st, r, raw := do(t, e, "POST", "/test/_search", body)
	if st != 200 {
		t.Fatalf("search %s: %d %s", body, st, raw)
	}
	return r
}

// raws returns the raw JSON of a path's array elements.
func raws(r gjson.Result, path string) []string {
	var out []string
	for _, x := range r.Get(path).Array() {
		out = append(out, x.Raw)
	}
	return out
}

func ids(r gjson.Result) string {
	var out []string
	for _, h := range r.Get("hits.hits").Array() {
		out = append(out, h.Get("_id").String())
	}
	return strings.Join(out, ",")
}

func sorts(r gjson.Result) string {
	var out []string
	for _, h := range r.Get("hits.hits").Array() {
		out = append(out, h.Get("sort").Raw)
	}
	return strings.Join(out, " ")
}

func getenv(k string) string { return os.Getenv(k) }

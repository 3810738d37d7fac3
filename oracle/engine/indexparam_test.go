package engine

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// TestIndexParameter: the query's "index" parameter names the index of _search, _count,
// _mget and _msearch when the path names none, and is consumed when it does, the path's
// winning, as on Elasticsearch 8.15.0 (indexExpr).
func TestIndexParameter(t *testing.T) {
	f := fixtures.Default()
	e := New()
	if err := e.Load(f.Workload.Index, f.Mapping, f.Docs[:20]); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	ix := f.Workload.Index
	cases := []struct {
		path, body, want, why string
		status                int
	}{
		{"/_msearch?index=" + ix, "{}\n{\"size\":0}\n", `"total":{"value":20,"relation":"eq"}`, "the parameter as the default index", 200},
		{"/nope/_msearch?index=" + ix, "{}\n{\"size\":0}\n", `"type":"index_not_found_exception"`, "the path wins", 200},
		{"/" + ix + "/_msearch?index=nope", "{}\n{\"size\":0}\n", `"total":{"value":20,"relation":"eq"}`, "the path wins, the parameter consumed", 200},
		{"/_search?index=" + ix, `{"size":0}`, `"total":{"value":20,"relation":"eq"}`, "search", 200},
		{"/_count?index=" + ix, `{}`, `"count":20`, "count", 200},
		{"/_mget?index=" + ix, `{"ids":["` + f.Docs[0].ID + `"]}`, `"found":true`, "mget", 200},
		{"/" + ix + "/_mget?index=nope", `{"ids":["` + f.Docs[0].ID + `"]}`, `"found":true`, "mget, the path wins", 200},
	}
	for _, c := range cases {
		ct := "application/json"
		if strings.Contains(c.path, "_msearch") {
			ct = "application/x-ndjson"
		}
		resp, err := http.Post(srv.URL+c.path, ct, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(b.String(), c.want) {
			t.Errorf("%s (%s): %d %s, want %d with %s", c.path, c.why, resp.StatusCode, b.String(), c.status, c.want)
		}
	}
}

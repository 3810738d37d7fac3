package load

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/conform-dev/conform/fixtures"
)

// kindsMapping covers every conversion the Qdrant loader makes.
const kindsMapping = `{
  "settings": {"number_of_shards": 1},
  "mappings": {
    "dynamic": "strict",
    "properties": {
      "sku": {"type": "keyword"},
      "tags": {"type": "keyword"},
      "code": {"type": "keyword", "ignore_above": 4},
      "stock": {"type": "integer"},
      "views": {"type": "long"},
      "level": {"type": "byte"},
      "rating": {"type": "float"},
      "ratio": {"type": "half_float"},
      "weight": {"type": "double"},
      "price": {"type": "scaled_float", "scaling_factor": 100},
      "released": {"type": "date"},
      "in_stock": {"type": "boolean"},
      "dims": {"properties": {"width": {"type": "short"}, "at": {"type": "date"}}},
      "note": {"type": "text"}
    }
  }
}`

// testFixtures builds fixtures from a mapping and (id, source) pairs, in order.
func testFixtures(t testing.TB, mapping string, docs ...[2]string) *fixtures.Fixtures {
	t.Helper()
	f := &fixtures.Fixtures{Mapping: []byte(mapping), Workload: &fixtures.Workload{Index: "catalogue"}}
	var corpus bytes.Buffer
	for _, d := range docs {
		if !json.Valid([]byte(d[1])) {
			t.Fatalf("test document %s is not JSON: %s", d[0], d[1])
		}
		id, _ := json.Marshal(d[0])
		corpus.WriteString(`{"index":{"_id":` + string(id) + "}}\n" + d[1] + "\n")
		f.Docs = append(f.Docs, fixtures.Doc{ID: d[0], Source: []byte(d[1])})
	}
	f.Corpus = corpus.Bytes()
	return f
}

// smallDefault is the default catalogue generator with fewer documents, for tests that load
// the real corpus shape many times.
func smallDefault(t testing.TB, n int) *fixtures.Fixtures {
	t.Helper()
	o := fixtures.DefaultOptions
	o.Documents = n
	o.Cases = fixtures.CaseCounts{Get: 1}
	f, err := fixtures.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

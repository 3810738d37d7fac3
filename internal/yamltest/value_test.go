package yamltest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func yamlValue(t *testing.T, src string) any {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	v, err := fromYAML(&n)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func jsonValue(t *testing.T, src string) any {
	t.Helper()
	v, err := decodeJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestYAMLKeepsNumberKindsAndOrder(t *testing.T) {
	v := yamlValue(t, `{z: 1, a: 1.0, l: 9223372036854775807, u: 18446744073709551615, e: 1e3, h: .5, x: 0x10, s: "1", d: 2016-05-03, n: null, b: true}`)
	o := v.(*Object)
	if got := strings.Join(o.Keys, ","); got != "z,a,l,u,e,h,x,s,d,n,b" {
		t.Errorf("key order %s", got)
	}
	tests := []struct {
		key, class, json string
	}{
		{"z", "Integer", "1"}, {"a", "Double", "1.0"}, {"l", "Long", "9223372036854775807"},
		{"u", "BigInteger", "18446744073709551615"}, {"e", "Double", "1e3"}, {"h", "Double", "0.5"}, {"x", "Integer", "16"},
	}
	for _, tt := range tests {
		n, ok := o.Map[tt.key].(Number)
		if !ok || n.javaClass() != tt.class || n.Text != tt.json {
			t.Errorf("%s: %#v, want a %s written %s", tt.key, o.Map[tt.key], tt.class, tt.json)
		}
	}
	if o.Map["s"] != "1" || o.Map["d"] != "2016-05-03" || o.Map["n"] != nil || o.Map["b"] != true {
		t.Errorf("scalars: s %#v d %#v n %#v b %#v", o.Map["s"], o.Map["d"], o.Map["n"], o.Map["b"])
	}
	b, err := encodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":1.0,"l":9223372036854775807,"u":18446744073709551615,"e":1e3,"h":0.5,"x":16,"s":"1","d":"2016-05-03","n":null,"b":true}`; string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
}

func TestMatchSemantics(t *testing.T) {
	tests := []struct {
		actual, expected string // JSON and YAML
		ok               bool
		reason           string
	}{
		{`1`, `1.0`, true, "top-level numbers of different kinds compare as doubles"},
		{`1.0`, `1`, true, "either way round"},
		{`[1]`, `[1.0]`, false, "nested numbers must have the same kind"},
		{`{"a":1}`, `{a: 1.0}`, false, "also inside objects"},
		{`{"a":1,"b":2}`, `{b: 2, a: 1}`, true, "key order does not matter"},
		{`{"a":1,"b":2}`, `{a: 1}`, false, "extra keys do not match"},
		{`9223372036854775807`, `9223372036854775807`, true, "longs"},
		{`2147483648`, `2147483648.0`, true, "long and double at the top level"},
		{`4.1`, `4.099999904632568`, false, "different doubles"},
		{`"abc"`, `/^a.c$/`, true, "regex"},
		{`"xabcx"`, `/abc/`, true, "regex finds, it need not match it all"},
		{`5`, `/5/`, false, "regex needs a string"},
		{`null`, `null`, true, "null"},
		{`0`, `null`, false, "null is not 0"},
		{`"1"`, `1`, false, "a string is not a number"},
		{`true`, `"true"`, false, "a boolean is not a string"},
	}
	for _, tt := range tests {
		err := matchValues("f", jsonValue(t, tt.actual), yamlValue(t, tt.expected))
		if (err == nil) != tt.ok {
			t.Errorf("match %s against %s: %v, want ok=%v (%s)", tt.actual, tt.expected, err, tt.ok, tt.reason)
		}
	}
}

func TestJavaRendering(t *testing.T) {
	doubles := []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0.5, "0.5"}, {1e20, "1.0E20"}, {1.2345678e7, "1.2345678E7"}, {9999999, "9999999.0"},
		{0.001, "0.001"}, {0.0001, "1.0E-4"}, {-2.5e-7, "-2.5E-7"}, {math.Inf(1), "Infinity"}, {0, "0.0"},
	}
	for _, tt := range doubles {
		if got := javaDouble(tt.f); got != tt.want {
			t.Errorf("javaDouble(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
	v := jsonValue(t, `{"root_cause":[{"type":"x","reason":"got -2"}],"n":1.0,"ok":true,"z":null}`)
	if got := javaString(v); got != "{root_cause=[{type=x, reason=got -2}], n=1.0, ok=true, z=null}" {
		t.Errorf("javaString = %s", got)
	}
	if n := utf16Len("a😀é"); n != 4 {
		t.Errorf("utf16Len = %d, want 4 (the emoji is a surrogate pair)", n)
	}
}

func TestEncodeBody(t *testing.T) {
	tests := []struct {
		yaml   string
		ndjson bool
		want   string
	}{
		{`{query: {match_all: {}}, size: 1.0}`, false, `{"query":{"match_all":{}},"size":1.0}`},
		{`"{\"a\": 1}"`, false, `{"a": 1}`},
		{"- '{\"index\": {\"_id\": \"1\"}}'\n- {f: 1}\n", true, "{\"index\": {\"_id\": \"1\"}}\n{\"f\":1}\n"},
		{"|\n  {\"index\":{}}\n  {\"f\": 2.50}\n", true, "{\"index\":{}}\n{\"f\":2.50}\n"},
	}
	for _, tt := range tests {
		b, err := encodeBody(yamlValue(t, tt.yaml), tt.ndjson)
		if err != nil || string(b) != tt.want {
			t.Errorf("encodeBody(%s) = %q, %v; want %q", tt.yaml, b, err, tt.want)
		}
	}
}

func TestRegexComments(t *testing.T) {
	re, err := javaRegexp("^ a [ ] b # comment\n c $", true)
	if err != nil {
		t.Fatal(err)
	}
	if !re.MatchString("a bc") || re.MatchString("abc") {
		t.Errorf("COMMENTS: white space outside classes is dropped, inside kept: %s", re)
	}
}

func TestVersionsAndFeatures(t *testing.T) {
	v815 := Version{8, 15, 0}
	ranges := []struct {
		spec string
		in   bool
	}{
		{" - 7.0.99", false}, {"8.0.0 - ", true}, {"all", true}, {" - 8.0.99, 8.8.0 - ", true},
		{"8.15.1 - 8.16.0", false}, {"8.15.0 - 8.15.0", true}, {" - 2.7.99", false},
	}
	for _, tt := range ranges {
		rs, err := parseVersionRanges(tt.spec)
		if err != nil {
			t.Fatalf("%q: %v", tt.spec, err)
		}
		in := false
		for _, r := range rs {
			in = in || r.contains(v815)
		}
		if in != tt.in {
			t.Errorf("8.15.0 in %q = %v, want %v", tt.spec, in, tt.in)
		}
	}
	features := []struct {
		v       Version
		name    string
		present bool
		known   bool
	}{
		{v815, "gte_v7.13.0", true, true},
		{v815, "gte_v8.15.0", true, true},
		{v815, "gte_v8.16.0", false, true},
		{v815, "search.sort.int_sort_for_int_short_byte_fields", false, true},
		{Version{8, 19, 2}, "search.sort.int_sort_for_int_short_byte_fields", true, true},
		{Version{9, 0, 3}, "search.sort.int_sort_for_int_short_byte_fields", false, true},
		{Version{9, 1, 0}, "search.sort.int_sort_for_int_short_byte_fields", true, true},
		{v815, "some.feature", false, false},
	}
	for _, tt := range features {
		p, k := hasFeature(tt.v, tt.name)
		if p != tt.present || k != tt.known {
			t.Errorf("hasFeature(%s, %s) = %v, %v; want %v, %v", tt.v, tt.name, p, k, tt.present, tt.known)
		}
	}
	if v, err := ParseVersion("8.15.0-SNAPSHOT"); err != nil || v != v815 {
		t.Errorf("ParseVersion with a qualifier: %v %v", v, err)
	}
}

func TestRoute(t *testing.T) {
	params := func(src string) *Object { return yamlValue(t, src).(*Object) }
	tests := []struct {
		api, params string
		body        bool
		want        string
	}{
		{"indices.create", `{index: test}`, false, "PUT /test"},
		{"indices.create", `{index: test}`, true, "PUT /test"},
		{"index", `{index: test, id: 1, refresh: true}`, true, "PUT /test/_doc/1?refresh=true"},
		{"index", `{index: test}`, true, "POST /test/_doc"},
		{"get", `{index: test, id: "foo|bar"}`, false, "GET /test/_doc/foo%7Cbar"},
		{"search", `{index: [test_1, test_2], rest_total_hits_as_int: true, size: 0}`, true, "POST /test_1,test_2/_search?rest_total_hits_as_int=true&size=0"},
		{"search", `{}`, false, "GET /_search"},
		{"search", `{index: "tes*", track_total_hits: false}`, true, "POST /tes*/_search?track_total_hits=false"},
		{"count", `{index: test}`, false, "POST /test/_count"},
		{"bulk", `{refresh: true}`, true, "POST /_bulk?refresh=true"},
		{"indices.refresh", `{index: [test_1, test_2]}`, false, "POST /test_1,test_2/_refresh"},
		{"indices.refresh", `{}`, false, "POST /_refresh"},
		{"indices.put_mapping", `{index: test_1}`, true, "PUT /test_1/_mapping"},
		{"indices.stats", `{index: test, metric: request_cache}`, false, "GET /test/_stats/request_cache"},
		{"cluster.health", `{wait_for_status: green}`, false, "GET /_cluster/health?wait_for_status=green"},
		{"raw", `{method: get, path: /_cat/indices, v: true}`, false, "GET /_cat/indices?v=true"},
	}
	for _, tt := range tests {
		c, err := route(tt.api, params(tt.params), tt.body)
		if err != nil {
			t.Errorf("%s %s: %v", tt.api, tt.params, err)
			continue
		}
		got := c.method + " " + c.path
		if q := c.query.Encode(); q != "" {
			got += "?" + q
		}
		got = strings.ReplaceAll(got, "%2A", "*")
		if got != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.api, tt.params, got, tt.want)
		}
	}
	if _, err := route("get", params(`{index: test}`), false); err == nil || !strings.Contains(err.Error(), "/{index}/_doc/{id}") {
		t.Errorf("get without id: %v", err)
	}
}

// sharedTests is the directory of Elasticsearch and OpenSearch YAML tests kept in the
// repository (testdata/es-rest-tests), or CONFORM_ES_REST_TESTS to run another set.
func sharedTests(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{os.Getenv("CONFORM_ES_REST_TESTS"), "../../testdata/es-rest-tests"} {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	t.Fatal("no testdata/es-rest-tests directory (or set CONFORM_ES_REST_TESTS)")
	return ""
}

// Every API the stored tests call must be in the table, so none is skipped for want of a
// mapping, and every file must parse.
func TestSharedRestTestsParseAndRoute(t *testing.T) {
	dir := sharedTests(t)
	files, names, err := Files([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSuite(f, names[i], data)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		for _, sec := range append([]*Section{s.Setup, s.Teardown}, s.Tests...) {
			if sec == nil {
				continue
			}
			for _, st := range sec.Steps {
				if st.unsupported != "" {
					t.Errorf("%s %q: %s", names[i], sec.Name, st.unsupported)
				}
				if st.kind == "do" {
					used[st.do.api] = true
				}
			}
		}
	}
	var missing []string
	for api := range used {
		if _, ok := apis[api]; !ok {
			missing = append(missing, api)
		}
	}
	if len(missing) > 0 {
		t.Errorf("APIs used by the stored tests but not mapped: %v", missing)
	}
	if len(used) < 8 {
		t.Errorf("only %d APIs found; were the files read?", len(used))
	}
	var b bytes.Buffer
	for api := range used {
		b.WriteString(api + " ")
	}
	t.Logf("APIs used: %s", b.String())
}

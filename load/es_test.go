package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/elastic/go-elasticsearch/v8"

	"github.com/conform-dev/conform/load/loadtest"
)

// serveES serves h on loopback and returns a transport for it that, like conform's, does
// not insist on Elasticsearch's product header.
func serveES(t testing.TB, h http.Handler) elastictransport.Interface {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	tp, err := elastictransport.New(elastictransport.Config{URLs: []*url.URL{u}})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func noBackoff(int) time.Duration { return time.Millisecond }

func TestLoadESLoadsInBatchesAndVerifies(t *testing.T) {
	f := smallDefault(t, 2500)
	es := loadtest.NewFakeES()
	var log bytes.Buffer
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if want := []int{1000, 1000, 500}; !reflect.DeepEqual(es.BulkDocs, want) {
		t.Errorf("bulk batches = %v, want %v", es.BulkDocs, want)
	}
	mapping, docs, ok := es.Index("catalogue")
	if !ok || !bytes.Equal(mapping, f.Mapping) {
		t.Fatalf("index created with mapping %s, want the fixtures' mapping", mapping)
	}
	if len(docs) != len(f.Docs) {
		t.Fatalf("%d documents stored, want %d", len(docs), len(f.Docs))
	}
	for _, d := range f.Docs {
		if !bytes.Equal(docs[d.ID], d.Source) {
			t.Fatalf("document %s stored as %s, want the corpus bytes %s", d.ID, docs[d.ID], d.Source)
		}
	}
	if ct := es.ContentTypes["POST /catalogue/_bulk"]; ct != "application/x-ndjson" {
		t.Errorf("bulk content type = %q", ct)
	}
	if es.RequestCount("POST /catalogue/_refresh") != 1 {
		t.Errorf("requests %v: want one refresh", es.Requests)
	}
	if rep.Documents != 2500 || rep.Batches != 3 || rep.Retries != 0 || rep.Replaced != "" {
		t.Errorf("report = %+v", rep)
	}
	p := rep.Probe
	if !p.Intact() || p.Count != 2500 || p.Sample.Docs != DefaultSampleDocs || p.Sample.Every != 25 {
		t.Errorf("probe = %+v", p)
	}
	if p.Identity.Distribution != "elasticsearch" || p.Identity.Version != "8.15.0" {
		t.Errorf("identity = %+v", p.Identity)
	}
	if got := es.RequestCount("GET /catalogue/_doc/"); got != DefaultSampleDocs {
		t.Errorf("%d sample GETs, want %d", got, DefaultSampleDocs)
	}
}

func TestLoadESBatchesByBytes(t *testing.T) {
	f := smallDefault(t, 300)
	es := loadtest.NewFakeES()
	if _, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{BatchBytes: 10 << 10}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, n := range es.BulkDocs {
		total += n
		if n >= 300 || n == 0 {
			t.Errorf("batch %d has %d documents; 10 KiB batches hold far fewer", i, n)
		}
	}
	if total != 300 || len(es.BulkDocs) < 5 {
		t.Errorf("batches %v", es.BulkDocs)
	}
}

func TestLoadESRetries429(t *testing.T) {
	f := smallDefault(t, 50)
	es := loadtest.NewFakeES()
	es.Bulk429 = 2
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Backoff: noBackoff})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Retries != 2 || !reflect.DeepEqual(es.BulkDocs, []int{50}) {
		t.Errorf("retries = %d, bulk batches that reached the index = %v", rep.Retries, es.BulkDocs)
	}
}

func TestLoadESRetriesOnlyItemsRefusedWith429(t *testing.T) {
	f := smallDefault(t, 40)
	es := loadtest.NewFakeES()
	es.ItemFaults = map[string]*loadtest.ItemFault{
		f.Docs[3].ID:  {Status: 429, Type: "es_rejected_execution_exception", Reason: "queue full", Times: 1},
		f.Docs[17].ID: {Status: 429, Type: "es_rejected_execution_exception", Reason: "queue full", Times: 2},
	}
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Backoff: noBackoff})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{40, 2, 1}; !reflect.DeepEqual(es.BulkDocs, want) {
		t.Errorf("bulk requests carried %v documents, want %v (only refused items retried)", es.BulkDocs, want)
	}
	if rep.Retries != 2 || !rep.Probe.Intact() {
		t.Errorf("report = %+v", rep)
	}
}

// Refused documents do not stop the load: they are counted, the first few kept, and the
// verification fails saying how many the engine holds.
func TestLoadESReportsRefusedItems(t *testing.T) {
	f := smallDefault(t, 40)
	es := loadtest.NewFakeES()
	es.ItemFaults = map[string]*loadtest.ItemFault{
		f.Docs[5].ID: {Status: 400, Type: "document_parsing_exception", Reason: "failed to parse field [stock] of type [integer]"},
		f.Docs[9].ID: {Status: 400, Type: "strict_dynamic_mapping_exception", Reason: "mapping set to strict"},
	}
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Backoff: noBackoff, BatchDocs: 10})
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a VerifyError", err)
	}
	if !reflect.DeepEqual(es.BulkDocs, []int{10, 10, 10, 10}) {
		t.Errorf("bulk requests carried %v documents: the load stopped at a refusal", es.BulkDocs)
	}
	if rep.Rejected != 2 || len(rep.FirstRejected) != 2 || rep.FirstRejected[0].ID != f.Docs[5].ID || rep.FirstRejected[0].Type != "document_parsing_exception" || rep.FirstRejected[1].ID != f.Docs[9].ID {
		t.Errorf("rejected %d, first %+v", rep.Rejected, rep.FirstRejected)
	}
	want := fmt.Sprintf(`index catalogue holds 38 of 40 documents; 2 rejected, first: %q: 400 document_parsing_exception: failed to parse field [stock] of type [integer]; %q: 400 strict_dynamic_mapping_exception: mapping set to strict; index catalogue is not intact`, f.Docs[5].ID, f.Docs[9].ID)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q\nwant it to start %q", err, want)
	}
}

func TestLoadESGivesUpAfterRetries(t *testing.T) {
	f := smallDefault(t, 10)
	es := loadtest.NewFakeES()
	es.Bulk429 = 100
	_, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Backoff: noBackoff, MaxRetries: 3})
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("err = %v, want a 429 error", err)
	}
	if got := es.RequestCount("POST /catalogue/_bulk"); got != 4 {
		t.Errorf("%d bulk requests, want 1 + 3 retries", got)
	}
}

func TestLoadESCatchesAWrongCount(t *testing.T) {
	f := smallDefault(t, 30)
	es := loadtest.NewFakeES()
	es.CountDelta = -1
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{PollInterval: time.Millisecond, CountStall: 20 * time.Millisecond})
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a VerifyError", err)
	}
	if len(ve.Problems) != 1 || ve.Problems[0].Kind != "count" || ve.Problems[0].Want != "30" || ve.Problems[0].Got != "29" {
		t.Errorf("problems = %+v", ve.Problems)
	}
	if rep == nil || rep.Probe.Intact() {
		t.Errorf("the report should come back with the failed probe: %+v", rep)
	}
}

func TestLoadESRefusesANonEmptyIndex(t *testing.T) {
	f := smallDefault(t, 20)
	es := loadtest.NewFakeES()
	es.AddIndex("catalogue", map[string]string{"keep-me": `{"sku":"keep-me"}`})
	_, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{})
	var ne *NotEmptyError
	if !errors.As(err, &ne) || ne.Count != 1 || ne.Name != "catalogue" {
		t.Fatalf("err = %v, want a NotEmptyError for catalogue with 1 document", err)
	}
	for _, r := range es.Requests {
		if !strings.HasPrefix(r, "HEAD ") && !strings.HasPrefix(r, "GET ") {
			t.Errorf("refusing, the loader still sent %s", r)
		}
	}
	if _, docs, _ := es.Index("catalogue"); len(docs) != 1 {
		t.Errorf("the index was touched: %d documents", len(docs))
	}

	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Recreate: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, docs, _ := es.Index("catalogue"); len(docs) != 20 || docs["keep-me"] != nil || rep.Replaced != "recreated" {
		t.Errorf("after --recreate: %d documents, replaced %q", len(docs), rep.Replaced)
	}
}

func TestLoadESReplacesAnEmptyIndex(t *testing.T) {
	f := smallDefault(t, 20)
	es := loadtest.NewFakeES()
	es.AddIndex("catalogue", nil)
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replaced != "empty" || es.RequestCount("DELETE /catalogue") != 1 {
		t.Errorf("replaced %q, requests %v", rep.Replaced, es.Requests)
	}
}

func TestLoadESUsesTheIndexOption(t *testing.T) {
	f := smallDefault(t, 20)
	es := loadtest.NewFakeES()
	if _, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Index: "cat alogue/2"}); err != nil {
		t.Fatal(err)
	}
	if _, docs, ok := es.Index("cat alogue/2"); !ok || len(docs) != 20 {
		t.Errorf("index with an awkward name: ok=%v, %d docs; requests %v", ok, len(docs), es.Requests[:3])
	}
	if es.RequestCount("PUT /cat%20alogue%2F2") != 1 {
		t.Errorf("index name not escaped in the path: %v", es.Requests[:3])
	}
}

func TestLoadESStopsOnAnHTTPError(t *testing.T) {
	f := smallDefault(t, 20)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":{"type":"mapper_parsing_exception","reason":"unknown parameter [scaling_factor]"},"status":400}`))
			return
		}
		loadtest.NewFakeES().ServeHTTP(w, r)
	})
	_, err := LoadES(context.Background(), serveES(t, h), f, ESOptions{})
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 400 || !strings.Contains(he.Body, "unknown parameter") || he.Op != "PUT /catalogue" {
		t.Fatalf("err = %#v", err)
	}
}

// The transport of a go-elasticsearch client loads OpenSearch; the client itself refuses it
// after its first answer for lacking Elasticsearch's product header. That is why conform hands
// LoadES a transport, never an *elasticsearch.Client.
func TestLoadESNeedsATransportWithoutTheProductCheck(t *testing.T) {
	f := smallDefault(t, 20)
	os := loadtest.NewFakeES()
	os.Distribution = "opensearch"
	srv := httptest.NewServer(os)
	defer srv.Close()
	client, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadES(context.Background(), client, f, ESOptions{}); err == nil || !strings.Contains(err.Error(), "not Elasticsearch") {
		t.Errorf("the product-checking client loaded OpenSearch: err = %v", err)
	}
	rep, err := LoadES(context.Background(), client.Transport, f, ESOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Probe.Identity.Distribution != "opensearch" || !rep.Probe.Intact() {
		t.Errorf("probe = %+v", rep.Probe)
	}
}

// A gateway that answers "errors":false over a refused item is still caught.
func TestLoadESReadsItemsWhateverTheErrorsFlag(t *testing.T) {
	f := smallDefault(t, 10)
	es := loadtest.NewFakeES()
	es.ItemFaults = map[string]*loadtest.ItemFault{f.Docs[2].ID: {Status: 400, Type: "illegal_argument_exception", Reason: "no"}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		es.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(bytes.Replace(rec.Body.Bytes(), []byte(`"errors":true`), []byte(`"errors":false`), 1))
	})
	rep, err := LoadES(context.Background(), serveES(t, h), f, ESOptions{})
	var ve *VerifyError
	if !errors.As(err, &ve) || rep.Rejected != 1 || rep.FirstRejected[0].ID != f.Docs[2].ID {
		t.Fatalf("err = %v, report %+v; want the refused item", err, rep)
	}
}

// A ZincSearch-like engine: no _count (404), and bulk replies that reject most documents
// (here every day-only date in released, with a bare-string error). The load counts with
// _search, goes on through every batch, does not wait for documents it knows were rejected,
// and ends with a VerifyError saying how many the engine holds and the first rejections.
func TestLoadESOnAZincSearchLikeEngine(t *testing.T) {
	f := smallDefault(t, 2000)
	dayOnly := regexp.MustCompile(`"released":"\d{4}-\d{2}-\d{2}"`)
	es := loadtest.NewFakeES()
	es.NoCount = true
	es.Reject = func(id string, src []byte) string {
		if dayOnly.Match(src) {
			return "released: unsupported date format"
		}
		return ""
	}
	var rejected []string
	for _, d := range f.Docs {
		if dayOnly.Match(d.Source) {
			rejected = append(rejected, d.ID)
		}
	}
	if len(rejected) < 10 {
		t.Fatalf("only %d day-only dates in the corpus: the test needs more", len(rejected))
	}
	var log bytes.Buffer
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Log: &log, BatchDocs: 500, PollInterval: time.Millisecond, CountStall: time.Hour})
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a VerifyError", err)
	}
	if !reflect.DeepEqual(es.BulkDocs, []int{500, 500, 500, 500}) {
		t.Errorf("bulk requests carried %v documents, want every batch sent", es.BulkDocs)
	}
	held := len(f.Docs) - len(rejected)
	want := fmt.Sprintf("holds %d of 2000 documents; %s rejected, first: %q: 400: released: unsupported date format; %q: 400: released: unsupported date format;",
		held, thousands(len(rejected)), rejected[0], rejected[1])
	if rep.Rejected != len(rejected) || len(rep.FirstRejected) != 5 || !strings.HasPrefix(err.Error(), "index catalogue "+want) {
		t.Errorf("rejected %d (want %d), error:\n%s\nwant it to start:\n%s", rep.Rejected, len(rejected), err, want)
	}
	if rep.Probe.Count != int64(held) || es.RequestCount("POST /catalogue/_search") == 0 {
		t.Errorf("count %d, %d searches; want %d counted with _search", rep.Probe.Count, es.RequestCount("POST /catalogue/_search"), held)
	}
	if !strings.Contains(log.String(), "warning: GET /catalogue/_count is not served; counting with POST /catalogue/_search (size 0, track_total_hits true)\n") {
		t.Errorf("the log does not say how it counted:\n%s", log.String())
	}
	// The count reached what was not rejected at once: no waiting for the rejected ones.
	if rep.CountWaited != 0 || strings.Contains(log.String(), "waiting for it to rise") {
		t.Errorf("waited %v for a count that could not rise:\n%s", rep.CountWaited, log.String())
	}
	var text strings.Builder
	TargetResult{Name: "zinc", URL: "http://zinc", Load: rep, Probe: rep.Probe}.WriteText(&text)
	if !strings.Contains(text.String(), "zinc  "+want) || !strings.Contains(text.String(), "sent 2000 documents in 4 batches (0 retries, "+thousands(len(rejected))+" rejected)") {
		t.Errorf("load's text does not give the count with the rejections:\n%s", text.String())
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 87: "87", 999: "999", 1000: "1,000", 9913: "9,913", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load/loadtest"
)

func TestReadBulkReply(t *testing.T) {
	docs := []fixtures.Doc{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	ok := func(id string) string { return fmt.Sprintf(`{"index":{"_id":%q,"status":201}}`, id) }
	refused := func(id string, status int) string {
		return fmt.Sprintf(`{"index":{"_id":%q,"status":%d,"error":{"type":"mapper_parsing_exception","reason":"bad %s"}}}`, id, status, id)
	}
	items := func(its ...string) string { return `{"errors":false,"items":[` + strings.Join(its, ",") + `]}` }
	for _, tc := range []struct {
		reason  string
		body    string
		listed  int
		odd     []string // each a substring of one phrase, in order
		refused []string // "id/item"
		again   []string
	}{
		{"a complete reply", items(ok("a"), ok("b"), ok("c")), 3, nil, nil, nil},
		{"Elasticsearch's status 200 for a replaced document", items(ok("a"), `{"index":{"_id":"b","status":200}}`, ok("c")), 3, nil, nil, nil},
		{"a short list, as ZincSearch answers", items(ok("a")), 1, []string{"1 items in the reply for 3 documents"}, nil, nil},
		{"an empty list", items(), 0, []string{"0 items in the reply for 3 documents"}, nil, nil},
		{"no items list", `{"took":3,"errors":false}`, -1, []string{"no items list in the reply for 3 documents"}, nil, nil},
		{"items null", `{"items":null}`, -1, []string{"no items list"}, nil, nil},
		{"items not a list", `{"items":{"a":1}}`, -1, []string{`the items are not a list: "{\"a\":1}"`}, nil, nil},
		{"not JSON", "<html>ok</html>", -1, []string{`not a JSON object: "<html>ok</html>"`}, nil, nil},
		{"a top-level error, as ZincSearch sends when it stopped partway", `{"error":"bulk index data format error","items":[` + ok("a") + `]}`, 1,
			[]string{"the reply carries an error: \"bulk index data format error\"", "1 items"}, nil, nil},
		{"more items than documents", items(ok("a"), ok("b"), ok("c"), ok("d")), 4, []string{"4 items in the reply for 3 documents", `name an _id that was not sent (first "d")`}, nil, nil},
		{"an item that is not an action result", items(ok("a"), `"created"`, ok("c")), 3, []string{`1 item(s) not an action result (item 2 is "\"created\"")`}, nil, nil},
		{"an item without a status", items(ok("a"), `{"index":{"_id":"b"}}`, ok("c")), 3, []string{"item 2 has no status"}, nil, nil},
		{"an item for another document", items(ok("a"), ok("c"), ok("b")), 3, []string{`item 2 names "c" where "b" was sent`}, nil, nil},
		{"errors true with no item to show", `{"errors":true,"items":[` + ok("a") + `]}`, 1, []string{"1 items", `"errors" is true but no listed item reports one`}, nil, nil},
		{"a refused item in a complete reply", items(ok("a"), refused("b", 400), ok("c")), 3, nil, []string{"b/2"}, nil},
		{"a refused item in a short reply, named by _id", items(refused("c", 400)), 1, []string{"1 items"}, []string{"c/1"}, nil},
		{"a refused item in a short reply without _id", items(`{"index":{"status":400,"error":{"type":"x","reason":"y"}}}`), 1, []string{"1 items", "1 item(s) without an _id"}, []string{"/1"}, nil},
		{"an error given as a string", items(ok("a"), ok("b"), `{"index":{"_id":"c","status":500,"error":"disk full"}}`), 3, nil, []string{"c/3"}, nil},
		{"an error under a 2xx status", items(ok("a"), ok("b"), `{"index":{"_id":"c","status":201,"error":{"type":"x","reason":"y"}}}`), 3, nil, []string{"c/3"}, nil},
		{"429 items are sent again", items(ok("a"), refused("b", 429), ok("c")), 3, nil, nil, []string{"b"}},
		{"a 429 in a short reply without _id cannot be sent again", items(`{"index":{"status":429}}`), 1, []string{"1 items", "without an _id"}, []string{"/1"}, nil},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			r := readBulkReply([]byte(tc.body), docs, true)
			if r.listed != tc.listed {
				t.Errorf("listed = %d, want %d", r.listed, tc.listed)
			}
			if len(r.odd) != len(tc.odd) {
				t.Fatalf("odd = %q, want %d phrases like %q", r.odd, len(tc.odd), tc.odd)
			}
			for i, want := range tc.odd {
				if !strings.Contains(r.odd[i], want) {
					t.Errorf("odd[%d] = %q, want it to contain %q", i, r.odd[i], want)
				}
			}
			var gotRefused, gotAgain []string
			for _, ie := range r.refused {
				gotRefused = append(gotRefused, fmt.Sprintf("%s/%d", ie.ID, ie.Item))
				if ie.Status == 0 {
					t.Errorf("refused item %+v has no status", ie)
				}
			}
			for _, d := range r.again {
				gotAgain = append(gotAgain, d.ID)
			}
			if !reflect.DeepEqual(gotRefused, tc.refused) || !reflect.DeepEqual(gotAgain, tc.again) {
				t.Errorf("refused %v, again %v; want %v, %v", gotRefused, gotAgain, tc.refused, tc.again)
			}
		})
	}
}

// The fake stores every document whatever its reply says; the load must go on past the reply,
// warn naming the batch, and pass on the strength of the count and the sample.
func TestLoadESPassesOverOddRepliesWhenTheCorpusIsIntact(t *testing.T) {
	f := smallDefault(t, 2500)
	for _, tc := range []struct {
		reason string
		fake   func(es *loadtest.FakeES)
		want   []string // in every warning
		// warnings is how many: one per batch, the first saying that sending it again with
		// _index named did not help.
		warnings int
	}{
		{"short items", func(es *loadtest.FakeES) { es.BulkItems = 7 }, []string{"7 items in the reply for", "going on: the count and the sample fingerprint decide"}, 3},
		{"no items", func(es *loadtest.FakeES) { es.BulkNoItems = true }, []string{"no items list in the reply for"}, 3},
		{"not JSON", func(es *loadtest.FakeES) { es.BulkGarbage = true }, []string{"the reply is not a JSON object"}, 3},
		{"a top-level error", func(es *loadtest.FakeES) { es.BulkTopError = "bulk index data format error" }, []string{"the reply carries an error"}, 3},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			es := loadtest.NewFakeES()
			tc.fake(es)
			var log bytes.Buffer
			rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Log: &log})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if !rep.Probe.Intact() || rep.Documents != 2500 || rep.IndexInAction {
				t.Errorf("report = %+v", rep)
			}
			if len(rep.Warnings) != tc.warnings {
				t.Fatalf("warnings = %q, want %d", rep.Warnings, tc.warnings)
			}
			for i, w := range rep.Warnings {
				if !strings.HasPrefix(w, fmt.Sprintf("bulk batch %d: ", i+1)) {
					t.Errorf("warning %q does not name batch %d", w, i+1)
				}
				for _, want := range tc.want {
					if !strings.Contains(w, want) {
						t.Errorf("warning %q lacks %q", w, want)
					}
				}
				if !strings.Contains(log.String(), "warning: "+w) {
					t.Errorf("warning %q is not in the log:\n%s", w, log.String())
				}
			}
			// Only the first short reply is answered by sending the batch again naming _index.
			if want := []int{1000, 1000, 1000, 500}; !reflect.DeepEqual(es.BulkDocs, want) && tc.reason != "a top-level error" {
				t.Errorf("bulk requests %v, want %v", es.BulkDocs, want)
			}
			if !strings.Contains(rep.Warnings[0], "sent again with _index in every action line") && tc.reason != "a top-level error" {
				t.Errorf("the first warning does not say the batch was sent again: %q", rep.Warnings[0])
			}
		})
	}
}

// Where the reply hid a lost document, the proof catches it and names it.
func TestLoadESFailsOverOddRepliesWhenADocumentIsLost(t *testing.T) {
	f := smallDefault(t, 2500)
	sampled, _ := Sample(f, 0)
	lost := sampled[30].ID
	for _, tc := range []struct {
		reason string
		fake   func(es *loadtest.FakeES)
	}{
		{"short items", func(es *loadtest.FakeES) { es.BulkItems = 7 }},
		{"no items", func(es *loadtest.FakeES) { es.BulkNoItems = true }},
		{"a complete reply that says created", func(es *loadtest.FakeES) {}},
		// A refusal the short reply leaves out is as lost as a silent drop.
		{"a refusal out of the short list", func(es *loadtest.FakeES) {
			es.BulkItems = 7
			es.Drop = nil
			es.ItemFaults = map[string]*loadtest.ItemFault{lost: {Status: 400, Type: "document_parsing_exception", Reason: "failed to parse"}}
		}},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			es := loadtest.NewFakeES()
			es.Drop = map[string]bool{lost: true}
			tc.fake(es)
			rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{PollInterval: time.Millisecond, CountStall: 20 * time.Millisecond})
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a VerifyError", err)
			}
			var kinds []string
			for _, p := range ve.Problems {
				kinds = append(kinds, p.String())
			}
			want := []string{"count: want 2500, got 2499", fmt.Sprintf("missing %q: want found, got 404", lost)}
			if !reflect.DeepEqual(kinds, want) {
				t.Errorf("problems %q, want %q", kinds, want)
			}
			if !strings.Contains(err.Error(), lost) || !strings.Contains(ve.Note, "it reached 2499") {
				t.Errorf("error %q does not name the lost document and the count it reached", err)
			}
			if rep == nil || rep.Probe == nil || rep.Probe.Intact() {
				t.Errorf("report = %+v", rep)
			}
		})
	}
}

func TestLoadESCountsItemsThatReportAnError(t *testing.T) {
	f := smallDefault(t, 40)
	for _, tc := range []struct {
		reason string
		fake   func(es *loadtest.FakeES)
		want   string
	}{
		{"in a complete reply", func(es *loadtest.FakeES) {}, fmt.Sprintf("%q: 400 document_parsing_exception: failed to parse field [stock]", f.Docs[3].ID)},
		{"in a short reply, by _id", func(es *loadtest.FakeES) { es.BulkItems = 5 }, fmt.Sprintf("%q: 400 document_parsing_exception", f.Docs[3].ID)},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			es := loadtest.NewFakeES()
			es.ItemFaults = map[string]*loadtest.ItemFault{f.Docs[3].ID: {Status: 400, Type: "document_parsing_exception", Reason: "failed to parse field [stock]"}}
			tc.fake(es)
			var log bytes.Buffer
			rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Log: &log, PollInterval: time.Millisecond, CountStall: 20 * time.Millisecond})
			var ve *VerifyError
			if !errors.As(err, &ve) || rep.Rejected != 1 || rep.FirstRejected[0].ID != f.Docs[3].ID {
				t.Fatalf("err = %v, report %+v; want one rejected document, %s", err, rep, f.Docs[3].ID)
			}
			if !strings.Contains(err.Error(), "holds 39 of 40 documents; 1 rejected, first: "+tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			if !strings.Contains(log.String(), "bulk batch 1: 1 document(s) rejected (first "+tc.want) {
				t.Errorf("log does not name the rejection as it happens:\n%s", log.String())
			}
		})
	}
	// An item the reply does not name is reported by its place.
	it := ItemError{Item: 4, Status: 500, Reason: "disk full"}
	if want := `item 4 (no _id): 500: disk full`; it.String() != want {
		t.Errorf("item %q, want %q", it.String(), want)
	}
}

// ZincSearch answers in full only when every action line names _index: one short reply, one
// resend, and the rest of the load names _index.
func TestLoadESSwitchesToIndexInActionAfterAShortReply(t *testing.T) {
	f := smallDefault(t, 2500)
	es := loadtest.NewFakeES()
	es.BulkItems, es.FullWhenIndexInAction = 7, true
	var log bytes.Buffer
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if want := []bool{false, true, true, true}; !reflect.DeepEqual(es.BulkIndexInAction, want) {
		t.Errorf("requests named _index %v, want %v", es.BulkIndexInAction, want)
	}
	if want := []int{1000, 1000, 1000, 500}; !reflect.DeepEqual(es.BulkDocs, want) {
		t.Errorf("bulk requests %v, want %v", es.BulkDocs, want)
	}
	want := "bulk batch 1: 7 items in the reply for 1000 documents; sent again with _index in every action line, the reply listed all 1000: naming _index for the rest of the load (--bulk-index-in-action starts that way)"
	if !reflect.DeepEqual(rep.Warnings, []string{want}) {
		t.Errorf("warnings %q, want [%q]", rep.Warnings, want)
	}
	if !rep.IndexInAction || !rep.Probe.Intact() || rep.Batches != 3 {
		t.Errorf("report = %+v", rep)
	}
}

func TestLoadESIndexInActionOption(t *testing.T) {
	f := smallDefault(t, 1500)
	es := loadtest.NewFakeES()
	es.BulkItems, es.FullWhenIndexInAction = 7, true
	rep, err := LoadES(context.Background(), serveES(t, es), f, ESOptions{IndexInAction: true, Index: "cat alogue"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(es.BulkIndexInAction, []bool{true, true}) || len(rep.Warnings) != 0 || !rep.IndexInAction {
		t.Errorf("named _index %v, warnings %q", es.BulkIndexInAction, rep.Warnings)
	}
	if _, docs, _ := es.Index("cat alogue"); len(docs) != 1500 {
		t.Errorf("%d documents in the index", len(docs))
	}
	body := bulkBody("cat alogue", true, f.Docs[:1])
	if want := `{"index":{"_index":"cat alogue","_id":` + string(canonicalString(f.Docs[0].ID)) + "}}\n"; !bytes.HasPrefix(body, []byte(want)) {
		t.Errorf("action line %q, want %q", body[:bytes.IndexByte(body, '\n')+1], want)
	}
}

// A routed document's action line carries "routing" (bulk's spelling; "_routing" is refused by
// Elasticsearch 8); an unrouted one's is as before.
func TestBulkBodyRouting(t *testing.T) {
	docs := []fixtures.Doc{{ID: "a", Source: []byte(`{"k":1}`), Routing: "r\"é"}, {ID: "b", Source: []byte(`{"k":2}`)}}
	want := "{\"index\":{\"_id\":\"a\",\"routing\":\"r\\\"é\"}}\n{\"k\":1}\n{\"index\":{\"_id\":\"b\"}}\n{\"k\":2}\n"
	if got := string(bulkBody("x", false, docs)); got != want {
		t.Errorf("bulk body\n%s\nwant\n%s", got, want)
	}
	want = "{\"index\":{\"_index\":\"x\",\"_id\":\"a\",\"routing\":\"r\\\"é\"}}\n{\"k\":1}\n{\"index\":{\"_index\":\"x\",\"_id\":\"b\"}}\n{\"k\":2}\n"
	if got := string(bulkBody("x", true, docs)); got != want {
		t.Errorf("bulk body naming _index\n%s\nwant\n%s", got, want)
	}
}

package proxy

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/conform-dev/conform/conformance"
)

// errUncheckable marks a primary answer the strict check has no expectation for (a body that
// is not one of the responses conform knows); such a request is counted, not judged.
type errUncheckable struct{ reason string }

func (e *errUncheckable) Error() string { return e.reason }

// Judge checks the candidate's answer against the primary's, which is the oracle, with the
// strict check and opts. What is compared depends on the endpoint:
//
//   - a HEAD (exists, source-exists): the status alone, the only thing it answers;
//   - a GET _source answering 2xx: the body as a document's _source (class sources), since
//     that endpoint answers the bare source object; an error answer as an error;
//   - every other read: conformance.Compile of the primary's answer, given the request body
//     (ForRequest) for the rules that read it, then Check of the candidate's.
//
// A primary answer the check cannot compile is an *errUncheckable.
func Judge(ep Endpoint, reqBody []byte, pStatus int, pBody []byte, cStatus int, cBody []byte, opts *conformance.Options) (conformance.Result, error) {
	switch {
	case ep.Name == "exists" || ep.Name == "source-exists":
		if pStatus == cStatus {
			return conformance.Result{Pass: true}, nil
		}
		return conformance.Result{Diffs: []conformance.Difference{{Class: conformance.ClassStatus,
			Want: fmt.Sprint(pStatus), Got: fmt.Sprint(cStatus), Fails: true}}}, nil
	case ep.Name == "source" && pStatus/100 == 2:
		wrap := func(b []byte) []byte {
			return append(append([]byte(`{"found":true,"_source":`), bytes.TrimSpace(b)...), '}')
		}
		pBody, cBody = wrap(pBody), wrap(cBody)
	}
	x, err := conformance.Compile(pStatus, pBody)
	if err != nil {
		return conformance.Result{}, &errUncheckable{reason: err.Error()}
	}
	if len(reqBody) > 0 && ep.Name != "msearch" {
		x.ForRequest(reqBody)
	}
	return x.Check(cStatus, cBody, opts), nil
}

// decodeAnswer returns an answer's body as JSON text: gunzipped when its Content-Encoding
// says gzip. Another encoding is an error.
func decodeAnswer(h http.Header, body []byte, limit int64) ([]byte, error) {
	switch enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))); enc {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(zr, limit+1))
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > limit {
			return nil, errTooLarge
		}
		return b, nil
	default:
		return nil, fmt.Errorf("content-encoding %q", enc)
	}
}

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

// Judge checks the candidate's answer against the primary's, which is the oracle, as conform
// check checks a captured case on replay: conformance.CompileAny of the primary's answer (a
// search, count, document, _mget or _msearch answer by its shape, any other JSON strictly as
// a whole, an empty answer such as a HEAD's or a text one byte for byte), given the request
// body for the rules that read it (ForRequest), then Check of the candidate's with opts. A
// primary answer the check cannot compile is an *errUncheckable.
func Judge(reqBody []byte, pStatus int, pBody []byte, cStatus int, cBody []byte, opts *conformance.Options) (conformance.Result, error) {
	x, err := conformance.CompileAny(pStatus, pBody)
	if err != nil {
		return conformance.Result{}, &errUncheckable{reason: err.Error()}
	}
	if len(reqBody) > 0 {
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

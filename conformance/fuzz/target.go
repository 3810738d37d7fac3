package fuzz

import "github.com/conform-dev/conform/conformance/target"

// TargetDoer sends requests to a target through go-elasticsearch's transport (one transport,
// so its keep-alive connections are reused), with errors scrubbed of credentials.
func TargetDoer(t *target.Target) (Doer, error) {
	do, err := t.Doer()
	if err != nil {
		return nil, err
	}
	return Doer(do), nil
}

// Command mutproxy serves a mutproxy.Proxy on loopback, for trying conform's commands by hand
// against a faulty target (the end-to-end mutation suite drives the same proxy in-process):
//
//	go run ./internal/mutproxy/cmd/mutproxy --backend http://127.0.0.1:9200 --mutation flip-found:found --get-only
//	conform check --target mut=http://127.0.0.1:9299
//
// --mutation is OPERATOR:CLASS for a mutation that must fail, OPERATOR or OPERATOR::REPORTED for
// one that must pass (conformance.Mutations names them).
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/conform-dev/conform/conformance"
	"github.com/conform-dev/conform/internal/mutproxy"
)

func main() {
	backend := flag.String("backend", "http://127.0.0.1:9200", "the engine to front, as a `URL`")
	addr := flag.String("addr", "127.0.0.1:9299", "listen on `HOST:PORT`")
	spec := flag.String("mutation", "", "the mutation as `OPERATOR:CLASS` (or OPERATOR::REPORTED for one that must pass)")
	getOnly := flag.Bool("get-only", false, "alter only document reads (GET /{index}/_doc/{id})")
	flag.Parse()
	op, rest, _ := strings.Cut(*spec, ":")
	class, reported, _ := strings.Cut(rest, ":")
	if op == "" {
		fmt.Fprintln(os.Stderr, "mutproxy: --mutation OPERATOR:CLASS is required")
		os.Exit(2)
	}
	p := mutproxy.New(*backend, mutproxy.Mutation{Operator: op, Class: conformance.Class(class), Reported: conformance.Class(reported)})
	if *getOnly {
		p.Match = func(method, path string, _ []byte) bool {
			return method == http.MethodGet && strings.Contains(path, "/_doc/")
		}
	}
	fmt.Fprintf(os.Stderr, "mutproxy: %s in front of %s on http://%s\n", *spec, *backend, *addr)
	if err := http.ListenAndServe(*addr, p); err != nil {
		fmt.Fprintln(os.Stderr, "mutproxy:", err)
		os.Exit(2)
	}
}

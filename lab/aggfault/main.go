// Command aggfault serves an Elasticsearch-compatible engine's answers through a proxy that
// gets aggregations wrong (internal/aggfault): a target for trying conform fuzz's shrinking
// by hand.
//
//	conform serve --addr 127.0.0.1:8090 &
//	go run ./lab/aggfault --backend http://127.0.0.1:8090 --addr 127.0.0.1:8091 --faults all &
//	conform fuzz --target mut=http://127.0.0.1:8091 --n 3000 --seed 1
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/conform-dev/conform/internal/aggfault"
)

func main() {
	backend := flag.String("backend", "http://127.0.0.1:9200", "the engine's base `URL`")
	addr := flag.String("addr", "127.0.0.1:8091", "listen on `HOST:PORT`")
	faults := flag.String("faults", "all", "comma-separated faults: filter-page, max-page, other-zero, empty-aggs, or all")
	flag.Parse()
	f, err := aggfault.ParseFaults(*faults)
	if err != nil {
		fmt.Fprintf(os.Stderr, "aggfault: --faults: %v\n", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "aggfault: %s -> %s with %+v\n", *addr, *backend, f)
	if err := http.ListenAndServe(*addr, aggfault.New(*backend, f)); err != nil {
		fmt.Fprintf(os.Stderr, "aggfault: %v\n", err)
		os.Exit(1)
	}
}

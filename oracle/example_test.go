package oracle_test

import (
	"fmt"

	"github.com/conform-dev/conform/oracle"
)

func ExampleParseSource() {
	for _, spec := range []string{"embedded", "live:https://elastic:secret@es.example:9200", "golden:es-8.15.0.golden.json"} {
		src, err := oracle.ParseSource(spec)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(src.Name())
	}
	// Output:
	// embedded
	// live:https://***@es.example:9200
	// golden:es-8.15.0.golden.json
}

func ExampleCanonicalBody() {
	fmt.Printf("%s\n", oracle.CanonicalBody([]byte(`{"took": 7, "hits": {"total": {"value": 3, "relation": "eq"}}}`)))
	// Output:
	// {"took":0,"hits":{"total":{"value":3,"relation":"eq"}}}
}

package load_test

import (
	"encoding/json"
	"fmt"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/load"
)

// The first document of the default catalogue, as a gateway finds it in Qdrant.
func ExampleQdrantSchema_Normalize() {
	f := fixtures.Default()
	s, err := load.NewQdrantSchema(f.Mapping)
	if err != nil {
		panic(err)
	}
	d := fixtures.Doc{ID: "SKU-11250", Source: []byte(`{"sku":"SKU-11250","tags":[],"stock":92.0,"rating":2.9,"price":19.99,"released":"2021-11-08T01:35:25+02:00","in_stock":"true","color":null}`)}
	payload, err := s.Normalize(d)
	if err != nil {
		panic(err)
	}
	delete(payload, load.PayloadSource) // the source bytes, verbatim
	b, _ := json.MarshalIndent(payload, "", "  ")
	fmt.Println(load.PointID(d.ID))
	fmt.Println(string(b))
	// Output:
	// b7fabc73-7288-5703-bda3-622eb69145ff
	// {
	//   "_epoch_ms": {
	//     "released": 1636328125000
	//   },
	//   "_es_id": "SKU-11250",
	//   "color": null,
	//   "in_stock": true,
	//   "price": 19.990000000000002,
	//   "rating": 2.9000000953674316,
	//   "released": "2021-11-07T23:35:25.000Z",
	//   "sku": "SKU-11250",
	//   "stock": 92,
	//   "tags": []
	// }
}

package load

import (
	"context"
	"fmt"
	"net/http"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
	"github.com/tidwall/gjson"
)

// Deletions is what an index said of its deleted documents: GET /{index}/_stats/docs,
// _all.total.docs.deleted. The total counts replicas too, and a search reads replicas as
// well as primaries, so a deletion on either matters. Deleted documents stay in their
// segments until a merge drops them: any update or reindex of an existing _id leaves one.
type Deletions struct {
	// Known is whether the target answered with the count.
	Known bool `json:"known"`
	// Deleted is the count, when Known.
	Deleted int64 `json:"deleted"`
	// Via is the request asked.
	Via string `json:"via"`
	// Why says why the count is not known: the target's status or error.
	Why string `json:"why,omitempty"`
}

// ProbeDeletions asks an index for its deleted documents. It never fails: a target that
// cannot say (a gateway without _stats, a 404, a body that is not Elasticsearch's, a
// transport error) gives a Deletions that is not Known, and says why.
func ProbeDeletions(ctx context.Context, tp elastictransport.Interface, index string) Deletions {
	d := Deletions{Via: opName("GET", index, "_stats", "docs")}
	r, err := esClient{tp: tp}.do(ctx, http.MethodGet, []string{index, "_stats", "docs"}, nil, nil, "")
	switch {
	case err != nil:
		d.Why = err.Error()
		return d
	case r.Status != http.StatusOK:
		d.Why = httpErr(d.Via, r).Error()
		return d
	}
	v := gjson.GetBytes(r.Body, "_all.total.docs.deleted")
	if !gjson.ValidBytes(r.Body) || v.Type != gjson.Number {
		d.Why = fmt.Sprintf("%s answered 200 without _all.total.docs.deleted: %s", d.Via, snippet(r.Body))
		return d
	}
	d.Known, d.Deleted = true, v.Int()
	return d
}

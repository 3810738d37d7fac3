package engine

import "errors"

// PageTies says whether a search page's boundaries fall inside a group of documents that
// compare equal on every sort key. Elasticsearch orders such documents by Lucene document id,
// which the engine reproduces for a fresh single-shard index but which merges, replicas and
// shard counts can change, so an oracle should not record a case whose page boundary splits
// such a group.
type PageTies struct {
	// AfterLast: the page's last hit and the next matching document are equal on every key.
	AfterLast bool
	// BeforeFirst: the page's first hit and the hit just before it (at from-1) are equal on
	// every key.
	BeforeFirst bool
}

// Any reports either tie.
func (t PageTies) Any() bool { return t.AfterLast || t.BeforeFirst }

// PageTies computes the ties of a _search body on one index, with the body's own from, size,
// sort, search_after and query.
func (e *Engine) PageTies(index string, body []byte) (PageTies, error) {
	var t PageTies
	r, err := parseSearchBody(body, false)
	if err != nil {
		return t, err
	}
	ixs, err := e.resolveIndices(index)
	if err != nil {
		return t, err
	}
	if len(ixs) != 1 {
		return t, errors.New("PageTies needs exactly one index")
	}
	ix := ixs[0]
	ix.readLock()
	defer ix.mu.RUnlock()
	from, size := r.window()
	probe := *r
	probe.from, probe.size = 0, from+size+1
	if r.hasAfter {
		probe.from = 0
	}
	// Scores decide relevance order, so compute them whenever the page is ordered by them.
	probe.trackScores = r.trackScores || r.relevance
	probe.noWindow = true
	out := queryShard(ix, &probe)
	if out.err != nil {
		return t, out.err
	}
	hits := out.hits
	equal := func(a, b int) bool {
		for _, k := range out.sc.keys {
			switch k.ct {
			case ctLong, ctString:
				if k.ints[a] != k.ints[b] {
					return false
				}
			case ctDouble, ctFloat:
				if cmpFloat(k.flts[a], k.flts[b]) != 0 {
					return false
				}
			case ctScore:
				if out.q.score(a) != out.q.score(b) {
					return false
				}
			case ctDoc:
				if a != b {
					return false
				}
			}
		}
		return true
	}
	last := from + size - 1
	if size > 0 && last+1 < len(hits) {
		t.AfterLast = equal(int(hits[last]), int(hits[last+1]))
	}
	if size > 0 && from > 0 && from < len(hits) {
		t.BeforeFirst = equal(int(hits[from-1]), int(hits[from]))
	}
	return t, nil
}

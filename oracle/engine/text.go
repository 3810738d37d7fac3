package engine

import (
	"math"
	"math/bits"
)

var mathLog = math.Log

// Full-text support is deliberately narrow: the standard analyzer (Unicode word segmentation,
// then lower-casing) is reproduced only for ASCII text, where the UAX #29 word-break rules
// reduce to the few below; any other text makes standardTokens refuse, and the engine answers
// "unsupported" instead of guessing tokens. Scores are Lucene's BM25 (k1 1.2, b 0.75) with
// per-shard statistics and one-byte length norms.

const (
	wbOther = iota
	wbLetter
	wbNumeric
	wbMidLetter    // :
	wbMidNum       // , ;
	wbMidNumLetQ   // . '
	wbExtendNumLet // _
)

func wbClass(c byte) int {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return wbLetter
	case c >= '0' && c <= '9':
		return wbNumeric
	case c == ':':
		return wbMidLetter
	case c == ',' || c == ';':
		return wbMidNum
	case c == '.' || c == '\'':
		return wbMidNumLetQ
	case c == '_':
		return wbExtendNumLet
	}
	return wbOther
}

// standardTokens analyses ASCII text as Elasticsearch's standard analyzer does. ok is false
// when the text is outside what this reproduction covers.
func standardTokens(s string) (toks []string, ok bool) {
	n := len(s)
	for i := 0; i < n; i++ {
		if s[i] >= 0x80 {
			return nil, false
		}
	}
	for i := 0; i < n; {
		c := wbClass(s[i])
		if c != wbLetter && c != wbNumeric && c != wbExtendNumLet {
			i++
			continue
		}
		start, j := i, i+1
		for j < n {
			prev, cur := wbClass(s[j-1]), wbClass(s[j])
			word := func(k int) bool { return k == wbLetter || k == wbNumeric || k == wbExtendNumLet }
			if word(prev) && word(cur) {
				j++
				continue
			}
			if j+1 < n {
				next := wbClass(s[j+1])
				if prev == wbLetter && next == wbLetter && (cur == wbMidLetter || cur == wbMidNumLetQ) ||
					prev == wbNumeric && next == wbNumeric && (cur == wbMidNum || cur == wbMidNumLetQ) {
					j += 2
					continue
				}
			}
			break
		}
		tok := s[start:j]
		onlyUnderscore := true
		for k := 0; k < len(tok); k++ {
			if tok[k] != '_' {
				onlyUnderscore = false
			}
		}
		if onlyUnderscore || len(tok) > 255 {
			return nil, false
		}
		b := []byte(tok)
		for k := range b {
			if b[k] >= 'A' && b[k] <= 'Z' {
				b[k] += 'a' - 'A'
			}
		}
		toks = append(toks, string(b))
		i = j
	}
	return toks, true
}

// Lucene's SmallFloat one-byte encoding of field lengths, used for norms.
const numFreeValues = 24 // 255 - longToInt4(Integer.MAX_VALUE)

func longToInt4(i int64) int {
	nb := 64 - bits.LeadingZeros64(uint64(i))
	if nb < 4 {
		return int(i)
	}
	shift := nb - 4
	enc := int(i>>uint(shift)) & 0x07
	return enc | (shift+1)<<3
}

func int4ToLong(i int) int64 {
	b := int64(i & 0x07)
	shift := (i >> 3) - 1
	if shift == -1 {
		return b
	}
	return (b | 0x08) << uint(shift)
}

func intToByte4(i int) byte {
	if i < numFreeValues {
		return byte(i)
	}
	return byte(numFreeValues + longToInt4(int64(i-numFreeValues)))
}

func byte4ToInt(b byte) int {
	i := int(b)
	if i < numFreeValues {
		return i
	}
	d := numFreeValues + int4ToLong(i-numFreeValues)
	if d > 1<<31-1 {
		d = 1<<31 - 1
	}
	return int(d)
}

// bm25 is a term's scorer with Lucene's float arithmetic: weight = boost × idf and
// score = weight − weight / (1 + freq × cache[norm]).
//
// Elasticsearch 8.15's default similarity is LegacyBM25Similarity
// (server/src/main/java/org/elasticsearch/lucene/similarity/LegacyBM25Similarity.java, made by
// SimilarityProviders.createBM25Similarity): its scorer hands Lucene's BM25Similarity the boost
// times (1 + k1), the k1+1 numerator of the pre-Lucene-8 formula. Real Elasticsearch 8.15.0
// explains a keyword term query as "boost 2.2 × idf × tf", and scores term "a" of a three
// document keyword index (a, b, b) 0.9808291: idf 0.98082924 × 2.2 × tf 0.45454544.
type bm25 struct {
	weight float32
	cache  [256]float32
}

func newBM25(boost float32, docFreq, docCount, sumTTF int64) *bm25 {
	var k1, b = float32(1.2), float32(0.75) // variables: float32 arithmetic, as Java's floats
	idf := float32(mathLog(1 + (float64(docCount)-float64(docFreq)+0.5)/(float64(docFreq)+0.5)))
	avgdl := float32(float64(sumTTF) / float64(docCount))
	s := &bm25{weight: boost * (1 + k1) * idf}
	for i := range s.cache {
		s.cache[i] = 1 / float32(k1*((1-b)+float32(b*float32(byte4ToInt(byte(i))))/avgdl))
	}
	return s
}

// score for a document with freq occurrences and norm byte; fields without norms use 1.
func (s *bm25) score(freq float32, norm byte) float32 {
	return s.weight - s.weight/(1+float32(freq*s.cache[norm]))
}

package stats

import (
	"encoding/binary"
	"testing"
	"time"
)

// FuzzQuantile checks the properties any quantile definition must keep: within the sample's
// range, monotone in p, and exact at p=0 and p=1.
func FuzzQuantile(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0}, 0.3, 0.7)
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 127, 0, 0, 0, 0, 0, 0, 0, 128}, 0.5, 0.99)
	f.Fuzz(func(t *testing.T, raw []byte, p1, p2 float64) {
		var samples []time.Duration
		for len(raw) >= 8 {
			samples = append(samples, time.Duration(binary.LittleEndian.Uint64(raw)))
			raw = raw[8:]
		}
		if len(samples) == 0 {
			return
		}
		if !(p1 >= 0 && p1 <= 1 && p2 >= 0 && p2 <= 1) {
			if _, err := Quantile(samples, p1); err == nil && !(p1 >= 0 && p1 <= 1) {
				t.Fatalf("p=%v accepted", p1)
			}
			return
		}
		if p1 > p2 {
			p1, p2 = p2, p1
		}
		qs, err := Quantiles(samples, 0, p1, p2, 1)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := samples[0], samples[0]
		for _, s := range samples {
			lo, hi = min(lo, s), max(hi, s)
		}
		if qs[0] != lo || qs[3] != hi {
			t.Fatalf("p0 %v p1 %v, want min %v max %v", qs[0], qs[3], lo, hi)
		}
		if !(lo <= qs[1] && qs[1] <= qs[2] && qs[2] <= hi) {
			t.Fatalf("quantiles %v at 0, %v, %v, 1 not monotone within [%v, %v]", qs, p1, p2, lo, hi)
		}
	})
}

// Package serdefloat says which double a Rust program built on serde_json reads back from the
// JSON text it wrote for a double, when serde_json's float_roundtrip feature is off. Qdrant is
// such a program: it stores every point's payload as serde_json text and parses it again on
// each read, so a double payload value comes back as RoundTrip of what was written. The loader
// uses it to tell that drift from a payload someone changed; the Qdrant fake uses it to serve
// doubles as the real server does.
//
// It models two published algorithms exactly, in IEEE double arithmetic (which Go and Rust
// share): the shortest formatting serde_json writes a finite f64 with (ryu's layout; the newest
// serde_json formats with zmij, to the same text), and serde_json's default (not
// float_roundtrip) parse of that text. serde_json 1.0.154, built and run on this project's
// machine, agrees on the values of its tests. It does not model serde_json's parse of
// arbitrary JSON text, only of ryu's output, and nothing about single-precision parsing.
package serdefloat

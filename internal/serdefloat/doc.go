// Package serdefloat says which double a Rust program built on serde_json reads back from the
// JSON text it wrote for a double, when serde_json's float_roundtrip feature is off. Qdrant is
// such a program: it stores every point's payload as serde_json text and parses it again on
// each read, so a double payload value comes back as RoundTrip of what was written. The loader
// uses it to tell that drift from a payload someone changed; the Qdrant fake uses it to serve
// doubles as the real server does.
//
// It models two published algorithms exactly, in IEEE double arithmetic (which Go and Rust
// share): ryu's shortest formatting, as serde_json writes a finite f64, and serde_json's
// default (not float_roundtrip) parse of that text. It does not model serde_json's parse of
// arbitrary JSON text, only of ryu's output, and nothing about single-precision parsing.
package serdefloat

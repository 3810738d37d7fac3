// Package load puts the corpus into the engines of a lab and proves, before each round, that it
// is still there and untouched.
//
// It sits beside the pipeline rather than in it: it takes fixtures (mapping, corpus) and an
// engine connection — an elastictransport.Interface for Elasticsearch, OpenSearch, the embedded
// engine or a gateway, a go-client *qdrant.Client for Qdrant — and hands on reports and probes
// (identity, exact count, a SHA-256 fingerprint over a fixed sample of documents) that run and
// experiment embed in their manifests. LoadES and LoadQdrant are the only code in conform that
// writes to an engine; they refuse to touch a non-empty index or collection unless told to
// recreate it, and they verify what they wrote before they return.
//
// Run carries out what `conform load` asks (a Plan: every engine in turn, then the Qdrant
// backend, loaded or, with Probe, only probed) and returns a Summary; Summary, TargetResult
// and QdrantResult are what the command prints, as text (WriteText) or JSON.
//
// It does not decide when a lab is ready (conformance/lab does, with these probes), time
// anything, or build target clients from command lines with auth and TLS (conformance/target
// does). The Qdrant payload it writes is a contract
// with the gateway that reads it; load/QDRANT.md documents that schema.
package load

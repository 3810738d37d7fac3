// Package lab decides whether a lab is ready to be timed and says what it is made of. Before
// a run, an experiment's rounds or a fuzzing session, Ready proves that a target holds the
// corpus (its identity, an exact document count, the fixtures' field types, a fingerprint over
// a fixed sample of documents) and, when a Qdrant backend is configured, that its collection is
// green with the same points; Environment is what the manifest records about the engines: the user's
// declared image ids and resource limits, docker's account of the lab's containers, and the
// Qdrant backend's version.
//
// It sits between load and the runner: it takes a Config, the fixtures and targets
// (conformance/target), calls load's probes and hands on runner.Run's Ready hook and the
// manifest's environment map (conformance/report). It never writes to an engine (load does),
// times nothing, and reads no flags or environment variables: the caller passes the Qdrant
// API key in Config, and the command line's checks of its own flags stay in cmd/conform.
package lab

//go:build race

package conformance

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = true

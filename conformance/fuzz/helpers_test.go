package fuzz

import (
	"sync"
	"testing"

	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle/engine"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

// defaultEngine is the embedded engine loaded with the default fixtures, shared read-only.
func defaultEngine(t testing.TB) (*engine.Engine, *fixtures.Fixtures) {
	t.Helper()
	f := fixtures.Default()
	engOnce.Do(func() {
		eng = engine.New()
		engErr = eng.Load(f.Workload.Index, f.Mapping, f.Docs)
	})
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng, f
}

func defaultGenerator(t testing.TB, seed uint64) *Generator {
	t.Helper()
	_, f := defaultEngine(t)
	s, err := NewSchema(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGenerator(s, seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

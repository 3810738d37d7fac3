package suite

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/conform-dev/conform/conformance/target"
	"github.com/conform-dev/conform/fixtures"
	"github.com/conform-dev/conform/oracle"
	"github.com/conform-dev/conform/oracle/engine"
)

// OracleSource resolves an oracle spec: embedded, golden:FILE or live:URL. A live oracle is
// reached like a target (a URL's userinfo as basic auth, the CA and TLS options of o), but
// never with the target's own credentials or index.
func OracleSource(spec string, o target.Options) (oracle.Source, error) {
	if url, ok := strings.CutPrefix(spec, "live:"); ok {
		t, err := LiveOracle(url, o)
		if err != nil {
			return nil, err
		}
		return &oracle.Live{Endpoint: Endpoint(t)}, nil
	}
	return oracle.ParseSource(spec)
}

// LiveOracle is the target named "oracle" through which a live oracle at url is reached: with
// o's CA, TLS and timeout options and url's own userinfo, but never with the target's
// credentials or index, which are dropped from o.
func LiveOracle(url string, o target.Options) (*target.Target, error) {
	o.Username, o.Password, o.APIKey, o.Index = "", "", "", ""
	return target.Parse("oracle="+url, o)
}

// LiveTarget is the target through which a live oracle made by OracleSource is reached, for a
// curl that asks it again; ok is false for any other source.
func LiveTarget(src oracle.Source) (t *target.Target, ok bool) {
	l, ok := src.(*oracle.Live)
	if !ok {
		return nil, false
	}
	ep, ok := l.Endpoint.(*endpoint)
	if !ok {
		return nil, false
	}
	return ep.t, true
}

// ExpectCase computes the expectations that explaining case c needs. An embedded or live
// oracle answers c and the page it continues, not the whole workload (a live Elasticsearch
// then answers two requests); a golden file is read whole, since it must match the workload
// it was recorded from.
func ExpectCase(ctx context.Context, src oracle.Source, f *fixtures.Fixtures, c *fixtures.Case, tth fixtures.TotalHits) (*oracle.Expectations, error) {
	if _, golden := src.(*oracle.Golden); !golden {
		f = f.Narrow(c)
	}
	return Expect(ctx, src, f, tth)
}

// Expect computes the expected responses of f's workload from src, once, before anything is
// sent to a target.
func Expect(ctx context.Context, src oracle.Source, f *fixtures.Fixtures, tth fixtures.TotalHits) (*oracle.Expectations, error) {
	x, err := src.Expect(ctx, f, oracle.Settings{Index: f.Workload.Index, TrackTotalHits: tth})
	if err != nil {
		return nil, fmt.Errorf("oracle %s: %w", src.Name(), err)
	}
	if x.Source == "" {
		x.Source = src.Name()
	}
	return x, nil
}

// Endpoint lets the oracle reach a live engine through a target's transport; its name and
// errors are redacted.
func Endpoint(t *target.Target) oracle.Endpoint { return &endpoint{t: t} }

type endpoint struct {
	t    *target.Target
	once sync.Once
	do   func(ctx context.Context, r fixtures.Request) (int, []byte, error)
	err  error
}

func (p *endpoint) Name() string { return p.t.Redacted() }

// Do sends the request through one transport made on first use, so a verify or record run
// reuses its connections instead of dialling for every case.
func (p *endpoint) Do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	return p.DoRequest(ctx, fixtures.Request{Method: method, Path: path, Body: body})
}

// DoRequest is Do with the request's own Content-Type and Accept headers.
func (p *endpoint) DoRequest(ctx context.Context, r fixtures.Request) (int, []byte, error) {
	p.once.Do(func() { p.do, p.err = p.t.RequestDoer() })
	if p.err != nil {
		return 0, nil, p.err
	}
	return p.do(ctx, r)
}

// Engine is a fresh embedded engine loaded with f's corpus under the workload's index: an
// http.Handler that answers as Elasticsearch 8.15 would.
func Engine(f *fixtures.Fixtures) (*engine.Engine, error) {
	eng := engine.New()
	if err := eng.Load(f.Workload.Index, f.Mapping, f.Docs); err != nil {
		return nil, fmt.Errorf("loading the embedded engine: %w", err)
	}
	return eng, nil
}

// EmbeddedServer serves a fresh embedded engine loaded with the fixtures on a loopback port:
// the default target when none is given.
type EmbeddedServer struct {
	URL string
	srv *http.Server
}

// StartEmbedded serves Engine(f) on 127.0.0.1 at a free port until Close.
func StartEmbedded(f *fixtures.Fixtures) (*EmbeddedServer, error) {
	eng, err := Engine(f)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &EmbeddedServer{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: eng, ReadHeaderTimeout: 10 * time.Second}}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *EmbeddedServer) Close() error { return s.srv.Close() }

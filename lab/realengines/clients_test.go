//go:build realengines

package realengines

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-dev/conform/internal/clients"
)

// The official clients against conform serve and real Elasticsearch 8.15.0, both holding the
// catalogue (price-double): the same calls, the same results. What differs by engine is blanked
// by the callers (took, point-in-time ids, index uuids). GET / and HEAD / (info, ping) are not
// compared: the integration-test distribution of Elasticsearch has no rest-root module, so they
// fail there (405) and are asserted on conform serve alone.

// TestGoClients: go-elasticsearch's typed client (typed_keys=true, compatible-with=8 on every
// call) and esapi.
func TestGoClients(t *testing.T) {
	es := state(t)["ES_URL"]
	fx := priceDouble(t)
	loadCatalogue(t, es, fx)
	emb := startServe(t, fx)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	real, err := clients.GoCalls(ctx, es)
	if err != nil {
		t.Fatalf("against Elasticsearch: %v", err)
	}
	served, err := clients.GoCalls(ctx, emb)
	if err != nil {
		t.Fatalf("against conform serve: %v", err)
	}
	if err := clients.Check(served, false); err != nil {
		t.Errorf("conform serve: %v", err)
	}
	if err := clients.Check(real, true); err != nil {
		t.Errorf("Elasticsearch: %v", err)
	}
	if err := clients.Equal(withoutRoot(real), withoutRoot(served)); err != nil {
		t.Errorf("Elasticsearch and conform serve differ at %v", err)
	}
	t.Logf("go-elasticsearch typed client and esapi: %d calls each, the same results from Elasticsearch 8.15.0 and conform serve (info and ping on serve only)", len(withoutRoot(real)))
}

func withoutRoot(steps []clients.Step) []clients.Step {
	var out []clients.Step
	for _, s := range steps {
		if !clients.RootCalls[s.Call] {
			out = append(out, s)
		}
	}
	return out
}

// scriptReport is what lab/clients/calls.py and calls.js print.
type scriptReport struct {
	Client string
	Steps  []struct {
		Call   string
		Result json.RawMessage
	}
}

// installClients runs lab/clients/install.sh (pip and npm into .engines/clients), once.
func installClients(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(root, ".engines", "clients")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "lab", "clients", "install.sh"))
	cmd.Env = append(os.Environ(), "CLIENTS_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		skip(t, "the Python and Node clients could not be installed (lab/clients/install.sh: %v):\n%s", err, out)
	}
	return dir
}

func runScript(t *testing.T, name string, args []string, env []string) scriptReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args[1:], " "), err, errb.String())
	}
	var r scriptReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Steps) == 0 {
		t.Fatalf("%s printed no report (%v):\n%.500s\n%s", name, err, out.String(), errb.String())
	}
	return r
}

// compareScripts runs one client script against both engines and compares every step but info
// and ping, which it checks on serve.
func compareScripts(t *testing.T, name string, cmd func(url string) ([]string, []string), refusedEverywhere bool) {
	es := state(t)["ES_URL"]
	fx := priceDouble(t)
	loadCatalogue(t, es, fx)
	emb := startServe(t, fx)
	args, env := cmd(es)
	real := runScript(t, name, args, env)
	args, env = cmd(emb)
	served := runScript(t, name, args, env)
	if len(real.Steps) != len(served.Steps) {
		t.Fatalf("%s: %d calls on Elasticsearch, %d on conform serve", real.Client, len(real.Steps), len(served.Steps))
	}
	compared := 0
	for i, r := range real.Steps {
		s := served.Steps[i]
		if r.Call != s.Call {
			t.Fatalf("call %d: %s against %s", i, r.Call, s.Call)
		}
		if !refusedEverywhere && (r.Call == "info" || r.Call == "ping") {
			continue
		}
		compared++
		// The header names of a media-type error come in either order (see TestClientAPIs).
		if !bytes.Equal(sortMediaHeaders(r.Result), sortMediaHeaders(s.Result)) {
			t.Errorf("%s %s:\nElasticsearch: %s\nconform serve: %s", real.Client, r.Call, r.Result, s.Result)
		}
	}
	byCall := map[string]string{}
	for _, s := range served.Steps {
		byCall[s.Call] = string(s.Result)
	}
	if refusedEverywhere {
		// Every call that sends compatible-with=9 is refused as Elasticsearch 8.15 refuses it.
		if !strings.Contains(byCall["info"], `Accept version must be either version 8 or 7, but found 9`) {
			t.Errorf("%s info on conform serve: %s", served.Client, byCall["info"])
		}
	} else {
		if !strings.Contains(byCall["info"], `"number": "8.15.0"`) && !strings.Contains(byCall["info"], `"number":"8.15.0"`) {
			t.Errorf("%s info on conform serve: %.300s", served.Client, byCall["info"])
		}
		if byCall["ping"] != "true" {
			t.Errorf("%s ping on conform serve: %s", served.Client, byCall["ping"])
		}
	}
	t.Logf("%s: %d calls, %d compared and the same on Elasticsearch 8.15.0 and conform serve", served.Client, len(served.Steps), compared)
}

// TestPythonClient: elasticsearch-py 8.15 (compatible-with=8), and 9.x, whose compatible-with=9
// both refuse alike.
func TestPythonClient(t *testing.T) {
	dir := installClients(t)
	script := filepath.Join(root, "lab", "clients", "calls.py")
	t.Run("8.15", func(t *testing.T) {
		compareScripts(t, "python", func(url string) ([]string, []string) {
			return []string{filepath.Join(dir, "py8", "bin", "python"), script, url}, nil
		}, false)
	})
	t.Run("9.x refused", func(t *testing.T) {
		compareScripts(t, "python", func(url string) ([]string, []string) {
			return []string{filepath.Join(dir, "py9", "bin", "python"), script, url}, nil
		}, true)
	})
}

// TestNodeClient: @elastic/elasticsearch 8.15.
func TestNodeClient(t *testing.T) {
	dir := installClients(t)
	node, err := exec.LookPath("node")
	if err != nil {
		skip(t, "node is not installed")
	}
	compareScripts(t, "node", func(url string) ([]string, []string) {
		return []string{node, filepath.Join(root, "lab", "clients", "calls.js"), url}, []string{"NODE_PATH=" + filepath.Join(dir, "node", "node_modules")}
	}, false)
}

package load

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

const composeFile = "../lab/compose.yaml"

type composeService struct {
	Image         string            `yaml:"image"`
	ContainerName string            `yaml:"container_name"`
	Environment   map[string]string `yaml:"environment"`
	CPUs          any               `yaml:"cpus"`
	MemLimit      any               `yaml:"mem_limit"`
	MemswapLimit  any               `yaml:"memswap_limit"`
	Deploy        struct {
		Resources struct {
			Limits struct {
				CPUs   any `yaml:"cpus"`
				Memory any `yaml:"memory"`
			} `yaml:"limits"`
		} `yaml:"resources"`
	} `yaml:"deploy"`
	Ports       []string `yaml:"ports"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
}

func readCompose(t *testing.T) (map[string]composeService, []byte) {
	t.Helper()
	raw, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]composeService `yaml:"services"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(false)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s does not parse: %v", composeFile, err)
	}
	return doc.Services, raw
}

// bytesOf reads a compose byte size such as "4g", "4096m" or 4294967296.
func bytesOf(v any) (int64, error) {
	s := fmt.Sprint(v)
	m := regexp.MustCompile(`^(\d+)([bkmg]?)b?$`).FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a byte size", s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	shift := map[string]uint{"": 0, "b": 0, "k": 10, "m": 20, "g": 30}[m[2]]
	return n << shift, nil
}

func TestLabComposeFile(t *testing.T) {
	services, raw := readCompose(t)
	want := []struct {
		service, image, container string
		ports                     []string // container ports, each published on 127.0.0.1
	}{
		{"elasticsearch", "docker.elastic.co/elasticsearch/elasticsearch:8.15.0", LabContainers[0], []string{"9200"}},
		{"opensearch", "opensearchproject/opensearch:3.9.0", LabContainers[1], []string{"9200"}},
		{"qdrant", "qdrant/qdrant:v1.19.2", LabContainers[2], []string{"6333", "6334"}},
	}
	if len(services) != len(want) {
		t.Errorf("services = %d, want %d (the gateway stays a commented slot)", len(services), len(want))
	}
	for _, w := range want {
		s, ok := services[w.service]
		if !ok {
			t.Errorf("no %s service", w.service)
			continue
		}
		if s.Image != w.image || s.ContainerName != w.container {
			t.Errorf("%s: image %q container %q, want %q %q", w.service, s.Image, s.ContainerName, w.image, w.container)
		}
		cpus, mem := s.CPUs, s.MemLimit
		if cpus == nil {
			cpus, mem = s.Deploy.Resources.Limits.CPUs, s.Deploy.Resources.Limits.Memory
		}
		if c, err := strconv.ParseFloat(fmt.Sprint(cpus), 64); err != nil || c != 2 {
			t.Errorf("%s: cpus %v, want 2", w.service, cpus)
		}
		if b, err := bytesOf(mem); err != nil || b != 4<<30 {
			t.Errorf("%s: memory limit %v, want 4 GiB (%v)", w.service, mem, err)
		}
		if s.MemswapLimit != nil {
			if b, err := bytesOf(s.MemswapLimit); err != nil || b != 4<<30 {
				t.Errorf("%s: memswap_limit %v, want 4 GiB: no swap beyond the limit", w.service, s.MemswapLimit)
			}
		}
		var published []string
		for _, p := range s.Ports {
			host, container, ok := strings.Cut(strings.TrimPrefix(p, "127.0.0.1:"), ":")
			if !strings.HasPrefix(p, "127.0.0.1:") || !ok || host == "" {
				t.Errorf("%s: port %q is not bound to 127.0.0.1 only", w.service, p)
				continue
			}
			published = append(published, container)
		}
		if strings.Join(published, ",") != strings.Join(w.ports, ",") {
			t.Errorf("%s publishes %v, want %v", w.service, published, w.ports)
		}
		if len(s.Healthcheck.Test) < 2 {
			t.Errorf("%s: no healthcheck", w.service)
		}
	}

	es, os := services["elasticsearch"].Environment, services["opensearch"].Environment
	if es["xpack.security.enabled"] != "false" || es["discovery.type"] != "single-node" {
		t.Errorf("elasticsearch environment = %v", es)
	}
	if os["DISABLE_SECURITY_PLUGIN"] != "true" || os["discovery.type"] != "single-node" {
		t.Errorf("opensearch environment = %v", os)
	}
	for name, opts := range map[string]string{"ES_JAVA_OPTS": es["ES_JAVA_OPTS"], "OPENSEARCH_JAVA_OPTS": os["OPENSEARCH_JAVA_OPTS"]} {
		m := regexp.MustCompile(`-Xms(\d+)g -Xmx(\d+)g`).FindStringSubmatch(opts)
		if m == nil || m[1] != m[2] || m[1] != "2" {
			t.Errorf("%s = %q, want a fixed 2g heap (half of 4 GiB)", name, opts)
		}
	}
	if !bytes.Contains(raw, []byte("# gateway:")) || !bytes.Contains(raw, []byte(`#     - "127.0.0.1:8080:8080"`)) {
		t.Error("the commented gateway slot is missing")
	}
}

// docker compose itself checks the file where it is installed: the v2 plugin, or else the
// standalone docker-compose (1.29 reads the compose spec without a top-level name). Neither
// needs a running daemon for `config`.
func TestLabComposeConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	abs, _ := filepath.Abs(composeFile)
	var cmd []string
	if out, err := exec.CommandContext(ctx, "docker", "compose", "version").CombinedOutput(); err == nil {
		cmd = []string{"docker", "compose"}
	} else if _, err2 := exec.LookPath("docker-compose"); err2 == nil {
		cmd = []string{"docker-compose"}
	} else {
		t.Skipf("neither docker compose (%s) nor docker-compose is available", firstLine(out, err))
	}
	args := append(cmd[1:], "-p", "conform-lab", "-f", abs, "config", "--quiet")
	out, err := exec.CommandContext(ctx, cmd[0], args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s config: %v\n%s", strings.Join(cmd, " "), err, out)
	}
	t.Logf("%s config accepts %s", strings.Join(cmd, " "), composeFile)
}

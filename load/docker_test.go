package load

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// fakeDocker answers docker commands from a table keyed by the joined arguments.
type fakeDocker map[string]struct {
	out, stderr string
	err         error
}

func (d fakeDocker) run(_ context.Context, name string, args ...string) ([]byte, []byte, error) {
	if name != "docker" {
		return nil, nil, fmt.Errorf("ran %s", name)
	}
	r, ok := d[strings.Join(args, " ")]
	if !ok {
		return nil, []byte("unexpected command"), errors.New("exit status 125")
	}
	return []byte(r.out), []byte(r.stderr), r.err
}

const inspectES = `[{"Id":"4f2a","Image":"sha256:9b1e","Name":"/conform-elasticsearch",
 "Config":{"Image":"docker.elastic.co/elasticsearch/elasticsearch:8.15.0"},
 "State":{"Status":"running","Health":{"Status":"healthy"}},
 "HostConfig":{"NanoCpus":2000000000,"CpuQuota":0,"CpuPeriod":0,"CpusetCpus":"","Memory":4294967296,"MemorySwap":4294967296}}]`

const inspectQdrant = `[{"Id":"77aa","Image":"sha256:c0de","Config":{"Image":"qdrant/qdrant:v1.19.2"},
 "State":{"Status":"running"},
 "HostConfig":{"NanoCpus":0,"CpuQuota":200000,"CpuPeriod":100000,"Memory":4294967296,"MemorySwap":-1}}]`

func TestDockerFactsRecordsImagesAndLimits(t *testing.T) {
	d := fakeDocker{
		"version --format {{.Server.Version}}":           {out: "28.2.2\n"},
		"inspect --type container conform-elasticsearch": {out: inspectES},
		"inspect --type container conform-qdrant":        {out: inspectQdrant},
		"inspect --type container conform-opensearch":    {stderr: "Error: No such container: conform-opensearch\n", err: errors.New("exit status 1")},
	}
	rep := dockerFacts(context.Background(), d.run, []string{"conform-elasticsearch", "conform-opensearch", "conform-qdrant"})
	if !rep.Available || rep.ServerVersion != "28.2.2" || len(rep.Containers) != 3 {
		t.Fatalf("report = %+v", rep)
	}
	es, os, q := rep.Containers[0], rep.Containers[1], rep.Containers[2]
	if es.ImageID != "sha256:9b1e" || es.Image != "docker.elastic.co/elasticsearch/elasticsearch:8.15.0" ||
		es.CPUs != 2 || es.MemoryBytes != 4<<30 || es.Health != "healthy" || es.State != "running" {
		t.Errorf("elasticsearch = %+v", es)
	}
	if os.Error != "Error: No such container: conform-opensearch" || os.ImageID != "" {
		t.Errorf("opensearch = %+v", os)
	}
	if q.CPUs != 2 || q.MemorySwapBytes != -1 || q.Health != "" {
		t.Errorf("qdrant (limits from quota/period) = %+v", q)
	}
}

func TestDockerFactsSaysPlainlyWhenDockerIsMissing(t *testing.T) {
	missing := func(context.Context, string, ...string) ([]byte, []byte, error) {
		return nil, nil, &exec.Error{Name: "docker", Err: exec.ErrNotFound}
	}
	rep := dockerFacts(context.Background(), missing, LabContainers)
	if rep.Available || rep.Reason != "docker is not installed (no docker in PATH)" || rep.Containers != nil {
		t.Errorf("report = %+v", rep)
	}
	noDaemon := fakeDocker{"version --format {{.Server.Version}}": {
		out:    "",
		stderr: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
		err:    errors.New("exit status 1"),
	}}
	rep = dockerFacts(context.Background(), noDaemon.run, LabContainers)
	if rep.Available || !strings.HasPrefix(rep.Reason, "docker did not answer: Cannot connect to the Docker daemon") {
		t.Errorf("report = %+v", rep)
	}
}

// On this machine: whatever docker is (absent, silent or running), DockerFacts answers.
func TestDockerFactsHere(t *testing.T) {
	rep := DockerFacts(context.Background(), LabContainers)
	if !rep.Available && rep.Reason == "" {
		t.Errorf("unavailable without a reason: %+v", rep)
	}
	t.Logf("docker here: available=%v reason=%q", rep.Available, rep.Reason)
}

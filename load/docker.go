package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// LabContainers are the container names lab/compose.yaml gives the three engines.
var LabContainers = []string{"conform-elasticsearch", "conform-opensearch", "conform-qdrant"}

// DockerReport is what docker says about the lab's containers, for the manifest. When docker
// is absent or its daemon does not answer, Available is false and Reason says which.
type DockerReport struct {
	Available     bool             `json:"available"`
	Reason        string           `json:"reason,omitempty"`
	ServerVersion string           `json:"server_version,omitempty"`
	Containers    []ContainerFacts `json:"containers,omitempty"`
}

// ContainerFacts are one container's image and resource limits from docker inspect.
type ContainerFacts struct {
	Name    string `json:"name"`
	Error   string `json:"error,omitempty"` // e.g. no such container; the other fields are empty
	ID      string `json:"id,omitempty"`
	Image   string `json:"image,omitempty"`    // the reference it was started from
	ImageID string `json:"image_id,omitempty"` // sha256:… of the image actually run
	State   string `json:"state,omitempty"`
	Health  string `json:"health,omitempty"`
	// CPUs is the CPU limit (from --cpus, or quota/period); 0 means unlimited.
	CPUs       float64 `json:"cpus"`
	CpusetCpus string  `json:"cpuset_cpus,omitempty"`
	// MemoryBytes is the memory limit; 0 means unlimited. MemorySwapBytes is memory plus
	// swap (-1 unlimited).
	MemoryBytes     int64 `json:"memory_bytes"`
	MemorySwapBytes int64 `json:"memory_swap_bytes,omitempty"`
}

// runFunc runs a command and returns its stdout and stderr.
type runFunc func(ctx context.Context, name string, args ...string) (stdout, stderr []byte, err error)

func execRun(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

// DockerFacts asks docker for each container's image id and resource limits. It never fails:
// a missing docker, a daemon that does not answer or an unknown container is reported in the
// result, so a manifest can say plainly what was not recorded.
func DockerFacts(ctx context.Context, containers []string) *DockerReport {
	return dockerFacts(ctx, execRun, containers)
}

func dockerFacts(ctx context.Context, run runFunc, containers []string) *DockerReport {
	call := func(args ...string) ([]byte, []byte, error) {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		return run(ctx, "docker", args...)
	}
	rep := &DockerReport{}
	out, stderr, err := call("version", "--format", "{{.Server.Version}}")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			rep.Reason = "docker is not installed (no docker in PATH)"
		} else {
			rep.Reason = "docker did not answer: " + firstLine(stderr, err)
		}
		return rep
	}
	rep.Available = true
	rep.ServerVersion = strings.TrimSpace(string(out))
	for _, name := range containers {
		cf := ContainerFacts{Name: name}
		out, stderr, err := call("inspect", "--type", "container", name)
		if err != nil {
			cf.Error = firstLine(stderr, err)
			rep.Containers = append(rep.Containers, cf)
			continue
		}
		if err := parseInspect(out, &cf); err != nil {
			cf.Error = err.Error()
		}
		rep.Containers = append(rep.Containers, cf)
	}
	return rep
}

func parseInspect(out []byte, cf *ContainerFacts) error {
	var list []struct {
		ID     string `json:"Id"`
		Image  string `json:"Image"` // the image id
		Config struct {
			Image string `json:"Image"`
		} `json:"Config"`
		State struct {
			Status string `json:"Status"`
			Health *struct {
				Status string `json:"Status"`
			} `json:"Health"`
		} `json:"State"`
		HostConfig struct {
			NanoCpus   int64  `json:"NanoCpus"`
			CpuQuota   int64  `json:"CpuQuota"`
			CpuPeriod  int64  `json:"CpuPeriod"`
			CpusetCpus string `json:"CpusetCpus"`
			Memory     int64  `json:"Memory"`
			MemorySwap int64  `json:"MemorySwap"`
		} `json:"HostConfig"`
	}
	if err := json.Unmarshal(out, &list); err != nil || len(list) != 1 {
		return fmt.Errorf("unreadable docker inspect output: %s", snippet(out))
	}
	c := list[0]
	cf.ID, cf.ImageID, cf.Image = c.ID, c.Image, c.Config.Image
	cf.State = c.State.Status
	if c.State.Health != nil {
		cf.Health = c.State.Health.Status
	}
	h := c.HostConfig
	switch {
	case h.NanoCpus > 0:
		cf.CPUs = float64(h.NanoCpus) / 1e9
	case h.CpuQuota > 0 && h.CpuPeriod > 0:
		cf.CPUs = float64(h.CpuQuota) / float64(h.CpuPeriod)
	}
	cf.CpusetCpus, cf.MemoryBytes, cf.MemorySwapBytes = h.CpusetCpus, h.Memory, h.MemorySwap
	return nil
}

func firstLine(stderr []byte, err error) string {
	s := strings.TrimSpace(string(stderr))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return err.Error()
	}
	return s
}

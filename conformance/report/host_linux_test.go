package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/conform-dev/conform/internal/cpuset"
)

// The manifest's host says which CPUs conform ran on, whoever chose them, so a noisy run can
// be told from one whose clients had CPUs of their own.
func TestHostFactsAffinity(t *testing.T) {
	want, err := cpuset.Current()
	if err != nil {
		t.Fatal(err)
	}
	h := HostFacts()
	if h.Affinity != want.String() || h.Affinity == "" {
		t.Fatalf("host affinity %q, want %q", h.Affinity, want)
	}
	data, err := MarshalJSON(&Manifest{Format: ManifestFormat, Kind: "run", Host: h})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"affinity": "`+want.String()+`"`) {
		t.Errorf("manifest.json lacks the affinity %s:\n%s", want, data)
	}
	var back Manifest
	if err := json.Unmarshal(data, &back); err != nil || back.Host.Affinity != h.Affinity {
		t.Errorf("affinity does not read back: %q, %v", back.Host.Affinity, err)
	}
}

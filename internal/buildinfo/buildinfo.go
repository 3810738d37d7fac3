// Package buildinfo reports conform's own version and source revision, for `conform version`
// and for every manifest, so a result can be traced to the code that produced it.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Version and Revision are set at link time by the Makefile
// (-X github.com/conform-dev/conform/internal/buildinfo.Revision=...). Without them, Revision
// falls back to the VCS stamp Go records when building inside a checkout.
var (
	Version  = "0.1.0-dev"
	Revision = ""
	Modified = "" // "true" when the working tree had uncommitted changes
)

// Info is what a manifest records about the tool.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"go_version"`
}

// Get returns the tool's identity. Revision is "unknown" when neither the linker nor Go's VCS
// stamp supplied one.
func Get() Info {
	info := Info{Version: Version, Revision: Revision, Modified: Modified == "true", GoVersion: runtime.Version()}
	if info.Revision == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					info.Revision = s.Value
				case "vcs.modified":
					info.Modified = s.Value == "true"
				}
			}
		}
	}
	if info.Revision == "" {
		info.Revision = "unknown"
	}
	return info
}

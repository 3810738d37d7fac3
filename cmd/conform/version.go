package main

import (
	"context"
	"fmt"

	"github.com/conform-dev/conform/internal/buildinfo"
)

func cmdVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "version", "", "Print conform's version, source revision and Go version.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	info := buildinfo.Get()
	dirty := ""
	if info.Modified {
		dirty = " (modified)"
	}
	fmt.Fprintf(e.stdout, "conform %s, revision %s%s, %s\n", info.Version, info.Revision, dirty, info.GoVersion)
	return nil
}

package main

import (
	"context"
	"fmt"

	"github.com/conform-dev/conform/fixtures"
)

func cmdFixtures(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "fixtures", "[--out DIR [--force] [--seed N] [--documents N] [--cases LIST]] [--fixtures DIR]", `
Write the default catalogue fixtures, or check and summarise a fixtures directory.

With --out, writes mapping.json (the body of PUT /{index}), corpus.ndjson (bulk format),
workload.json (the cases) and fixtures.json (seed, counts and SHA-256 hashes) into DIR. The
same seed gives byte-identical files on any machine. Every other command takes --fixtures DIR
to use those files (or your own) instead of the built-in default. DIR must not exist or be
empty: conform will not overwrite fixtures you may have edited unless --force is given (then
its four fixture files are replaced and anything else in DIR is left alone).

With --fixtures, reads and validates DIR: a malformed or inconsistent file is reported with its
file name and line or field, and conform exits 2.`,
		"conform fixtures                       # summarise the built-in default",
		"conform fixtures --out fixtures-default # write it out to edit or inspect",
		"conform fixtures --out small --documents 500 --cases get=20,page=8,after=8,terms=4,counts=4",
		"conform fixtures --fixtures ./my-fixtures",
		"conform fixtures --out fixtures-price-double --variant price-double",
	)
	out := fs.String("out", "", "write the generated fixtures into `DIR`")
	dir := fs.String("fixtures", "", "read and validate the fixtures in `DIR` instead of generating")
	seed := fs.Uint64("seed", fixtures.DefaultSeed, "generator seed")
	docs := fs.Int("documents", fixtures.DefaultDocuments, "number of documents to generate")
	variant := fs.String("variant", "", "write a named mapping `VARIANT` of the catalogue: price-double maps price as double, for Elasticsearch's\nintegration-test distribution, which lacks scaled_float (mapper-extras)")
	force := fs.Bool("force", false, "write into a --out DIR that is not empty, replacing its fixture files")
	cases := fs.String("cases", "", "case counts per operation as a `LIST` such as get=256,page=64,after=64,terms=32,counts=32")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("fixtures takes no arguments, got %q", fs.Args())
	}
	if *dir != "" && *out != "" {
		return usageErr("--fixtures reads a directory and --out writes one; give one of them")
	}
	if *dir != "" {
		f, err := loadFixtures(*dir)
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, f.Summary())
		return nil
	}
	if *out != "" {
		if err := fixtures.CheckOutDir(*out, *force); err != nil {
			return usageErr("--out %v", err)
		}
	} else if *force {
		return usageErr("--force goes with --out DIR")
	}
	opts := fixtures.DefaultOptions
	opts.Seed, opts.Documents, opts.Variant = *seed, *docs, *variant
	if *cases != "" {
		c, err := fixtures.ParseCaseCounts(*cases)
		if err != nil {
			return usageErr("--cases: %v", err)
		}
		opts.Cases = c
	}
	f, err := fixtures.Generate(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	if *out != "" {
		if err := f.Write(*out); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("writing fixtures: %w", err)}
		}
		f.Dir = *out
	}
	fmt.Fprint(e.stdout, f.Summary())
	return nil
}

// loadFixtures returns the fixtures in dir, or the built-in default when dir is empty. A bad
// directory is an infrastructure error (exit 2) whose message names the file and line.
func loadFixtures(dir string) (*fixtures.Fixtures, error) {
	if dir == "" {
		return fixtures.Default(), nil
	}
	f, err := fixtures.Load(dir)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("fixtures: %w", err)}
	}
	return f, nil
}

package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docRefRE matches a cited document: a path ending in .md.
var docRefRE = regexp.MustCompile(`[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]+\.md\b`)

// A cited document is one with a directory (docs/RESULTS.md) or a name in capitals
// (SIMULATION.md); report.md and the like are files conform writes.
func isDocRef(ref string) bool {
	if strings.Contains(ref, "/") {
		return true
	}
	name := strings.TrimSuffix(ref, ".md")
	return name == strings.ToUpper(name)
}

// Every document conform prints or writes a reference to (a string in its Go code: help
// texts, reports, skip reasons) and every document the repository's own documents cite
// exists in the repository: a user who follows one finds it.
func TestCitedDocumentsExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]bool{}
	type citation struct{ where, ref, dir string }
	var cites []citation
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "results" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			byName[d.Name()] = true
		}
		switch {
		case strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go"):
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, ref := range docRefRE.FindAllString(s, -1) {
					cites = append(cites, citation{rel, ref, filepath.Dir(path)})
				}
				return true
			})
		case strings.HasSuffix(path, ".md") && !strings.Contains(rel, "testdata"+string(filepath.Separator)) || rel == filepath.Join("testdata", "es-rest-tests", "README.md"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, ref := range docRefRE.FindAllString(string(data), -1) {
				cites = append(cites, citation{rel, ref, filepath.Dir(path)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cites {
		ref := strings.TrimPrefix(c.ref, "./")
		if !isDocRef(ref) {
			continue
		}
		checked++
		if !strings.Contains(ref, "/") {
			if !byName[ref] {
				t.Errorf("%s cites %s, which is nowhere in the repository", c.where, c.ref)
			}
			continue
		}
		_, errRoot := os.Stat(filepath.Join(root, ref))
		_, errHere := os.Stat(filepath.Join(c.dir, ref))
		if errRoot != nil && errHere != nil {
			t.Errorf("%s cites %s, which does not exist", c.where, c.ref)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d citations found: the walk is broken", checked)
	}
}

package yamltest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ExclusionsFile is the name of the exclusion list beside a tree of YAML tests.
const ExclusionsFile = "EXCLUDED.md"

// ReadExclusions reads an exclusion list: a Markdown file whose table rows
// (| file | section | reason |) name the sections real Elasticsearch 8.15.0 fails, so that
// they say nothing about a target. The file is the suite name (search/20_default_values.yml,
// opensearch:search/... for OpenSearch's suite); the section is its name as written. Every
// other line is prose for the reader. A missing file is no exclusion.
func ReadExclusions(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(text, "|") {
			continue
		}
		// A bar inside a cell is written \|, as Markdown tables escape it.
		cells := strings.Split(strings.Trim(strings.ReplaceAll(text, `\|`, "\x00"), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
		}
		file := strings.Trim(cells[0], "`")
		if !strings.HasSuffix(file, ".yml") && !strings.HasSuffix(file, ".yaml") {
			continue // the header row and its rule
		}
		if len(cells) != 3 || cells[1] == "" || cells[2] == "" {
			return nil, fmt.Errorf("%s:%d: an exclusion row is | file | section | reason |", path, line)
		}
		key := file + "/" + strings.Trim(cells[1], "`")
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s is excluded twice", path, line, key)
		}
		out[key] = cells[2]
	}
	return out, sc.Err()
}

// ExclusionsFor reads the exclusion list at the root of each directory among paths, and the
// lists named in extra (which, unlike a directory's own, must exist). A list may name sections
// of files the directories do not hold: the list of the repository's (testdata/es-rest-tests)
// also serves a fuller copy of Elasticsearch's tests kept outside it.
func ExclusionsFor(paths []string, extra ...string) (map[string]string, error) {
	all := map[string]string{}
	add := func(ex map[string]string) {
		for k, v := range ex {
			all[k] = v
		}
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		ex, err := ReadExclusions(filepath.Join(p, ExclusionsFile))
		if err != nil {
			return nil, err
		}
		add(ex)
	}
	for _, f := range extra {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("exclusion list: %w", err)
		}
		ex, err := ReadExclusions(f)
		if err != nil {
			return nil, err
		}
		add(ex)
	}
	return all, nil
}

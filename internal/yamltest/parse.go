package yamltest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Suite is one YAML test file.
type Suite struct {
	File     string // the path read
	Name     string // the path within the rest-api-spec test tree, e.g. search/90_search_after.yml
	Setup    *Section
	Teardown *Section
	Tests    []*Section
}

// Section is the setup, the teardown or one test: its prerequisites and its steps.
type Section struct {
	Name    string
	Line    int
	Prereqs []prereq
	Steps   []step
}

// prereq is a skip or requires step at the start of a section.
type prereq struct {
	requires           bool // a requires section; else a skip section
	line               int
	reason             string
	version            string
	features           []string // skip.features (legacy runner features)
	clusterFeatures    []string
	testRunnerFeatures []string
	knownIssues        [][2]string // cluster_feature, fixed_by
	capabilities       bool        // requires.capabilities: API capabilities this runner does not check
	awaitsFix          string
	os                 []string
}

// step is one executable step of a section.
type step struct {
	kind  string // do, match, length, is_true, is_false, set, gt, gte, lt, lte, close_to, exists, not_exists, contains
	line  int
	field string
	value any // the expected value; for set, the stash name
	sets  [][2]string
	do    *doStep
	// unsupported says why the runner cannot run this step; the section is then skipped.
	unsupported string
}

// doStep is a do section: one API call and what to expect of it.
type doStep struct {
	api           string
	params        *Object // every parameter but body
	body          any
	hasBody       bool
	catch         string
	headers       *Object
	warnings      []string
	warningsRegex []string
	allowed       []string
	allowedRegex  []string
	nodeSelector  bool
}

// text renders a step for failure messages.
func (s *step) text() string {
	switch s.kind {
	case "do":
		t := "do " + s.do.api
		if s.do.catch != "" {
			t += " (catch: " + s.do.catch + ")"
		}
		return t
	case "is_true", "is_false", "exists", "not_exists":
		return fmt.Sprintf("%s: %s", s.kind, s.field)
	case "set":
		var parts []string
		for _, kv := range s.sets {
			parts = append(parts, kv[0]+": "+kv[1])
		}
		return "set: {" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%s: {%s: %s}", s.kind, s.field, display(s.value))
}

// ParseSuite reads a YAML test file.
func ParseSuite(file, name string, data []byte) (*Suite, error) {
	s := &Suite{File: file, Name: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	seen := map[string]int{}
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
			continue // an empty document, as after a leading ---
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: a test document must be a mapping of a section name to its steps", file, root.Line)
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			if prev, dup := seen[k.Value]; dup {
				return nil, fmt.Errorf("%s:%d: section %q repeats line %d", file, k.Line, k.Value, prev)
			}
			seen[k.Value] = k.Line
			sec, err := parseSection(file, k.Value, k.Line, v)
			if err != nil {
				return nil, err
			}
			switch k.Value {
			case "setup":
				s.Setup = sec
			case "teardown":
				s.Teardown = sec
			default:
				s.Tests = append(s.Tests, sec)
			}
		}
	}
	if len(s.Tests) == 0 {
		return nil, fmt.Errorf("%s: no test sections", file)
	}
	return s, nil
}

func parseSection(file, name string, line int, n *yaml.Node) (*Section, error) {
	sec := &Section{Name: name, Line: line}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: section %q must be a list of steps", file, n.Line, name)
	}
	for _, sn := range n.Content {
		if sn.Kind != yaml.MappingNode || len(sn.Content) != 2 {
			return nil, fmt.Errorf("%s:%d: a step must be a mapping with one key (do, match, ...)", file, sn.Line)
		}
		kind, body := sn.Content[0].Value, sn.Content[1]
		if kind == "skip" || kind == "requires" {
			if len(sec.Steps) > 0 {
				sec.Steps = append(sec.Steps, step{kind: kind, line: sn.Line, unsupported: kind + " after the first steps of a section"})
				continue
			}
			p, err := parsePrereq(file, kind == "requires", body)
			if err != nil {
				return nil, err
			}
			sec.Prereqs = append(sec.Prereqs, p)
			continue
		}
		st, err := parseStep(file, kind, sn.Line, body)
		if err != nil {
			return nil, err
		}
		sec.Steps = append(sec.Steps, st)
	}
	return sec, nil
}

func strList(v any) []string {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			out = append(out, javaString(e))
		}
		return out
	}
	return []string{javaString(v)}
}

func parsePrereq(file string, requires bool, n *yaml.Node) (prereq, error) {
	p := prereq{requires: requires, line: n.Line}
	v, err := fromYAML(n)
	if err != nil {
		return p, fmt.Errorf("%s:%v", file, err)
	}
	o, ok := v.(*Object)
	if !ok {
		return p, fmt.Errorf("%s:%d: skip and requires take a mapping", file, n.Line)
	}
	for _, k := range o.Keys {
		val := o.Map[k]
		switch k {
		case "reason":
			p.reason = javaString(val)
		case "version":
			if requires {
				return p, fmt.Errorf("%s:%d: requires has no version (use cluster_features)", file, n.Line)
			}
			p.version = javaString(val)
		case "features":
			p.features = strList(val)
		case "cluster_features":
			p.clusterFeatures = strList(val)
		case "test_runner_features":
			p.testRunnerFeatures = strList(val)
		case "capabilities":
			p.capabilities = true
		case "awaits_fix":
			p.awaitsFix = javaString(val)
		case "os":
			p.os = strList(val)
		case "known_issues":
			list, _ := val.([]any)
			for _, e := range list {
				eo, ok := e.(*Object)
				if !ok {
					return p, fmt.Errorf("%s:%d: known_issues entries are mappings of cluster_feature and fixed_by", file, n.Line)
				}
				f, _ := eo.Get("cluster_feature")
				fixed, _ := eo.Get("fixed_by")
				p.knownIssues = append(p.knownIssues, [2]string{javaString(f), javaString(fixed)})
			}
		default:
			return p, fmt.Errorf("%s:%d: unknown %s field %q", file, n.Line, map[bool]string{true: "requires", false: "skip"}[requires], k)
		}
	}
	return p, nil
}

func parseStep(file, kind string, line int, n *yaml.Node) (step, error) {
	st := step{kind: kind, line: line}
	v, err := fromYAML(n)
	if err != nil {
		return st, fmt.Errorf("%s:%v", file, err)
	}
	one := func() error {
		o, ok := v.(*Object)
		if !ok || len(o.Keys) != 1 {
			return fmt.Errorf("%s:%d: %s takes a mapping of one field to a value", file, line, kind)
		}
		st.field, st.value = o.Keys[0], o.Map[o.Keys[0]]
		return nil
	}
	switch kind {
	case "do":
		d, err := parseDo(file, line, v)
		if err != nil {
			return st, err
		}
		st.do = d
	case "match", "length", "gt", "gte", "lt", "lte", "contains":
		if err := one(); err != nil {
			return st, err
		}
	case "close_to":
		if err := one(); err != nil {
			return st, err
		}
		o, ok := st.value.(*Object)
		if !ok {
			return st, fmt.Errorf("%s:%d: close_to takes {field: {value: x, error: e}}", file, line)
		}
		if _, ok := o.Get("value"); !ok {
			return st, fmt.Errorf("%s:%d: close_to needs a value", file, line)
		}
		if _, ok := o.Get("error"); !ok {
			return st, fmt.Errorf("%s:%d: close_to needs an error", file, line)
		}
	case "is_true", "is_false", "exists", "not_exists":
		if o, isObj := v.(*Object); isObj {
			// "- exists: { a.b.c }" is YAML's flow mapping of the path to null.
			if len(o.Keys) != 1 || o.Map[o.Keys[0]] != nil {
				return st, fmt.Errorf("%s:%d: %s takes a field path", file, line, kind)
			}
			st.field = o.Keys[0]
			break
		}
		if v != nil {
			st.field = javaString(v)
		}
	case "set":
		o, ok := v.(*Object)
		if !ok || len(o.Keys) == 0 {
			return st, fmt.Errorf("%s:%d: set takes a mapping of field to stash name", file, line)
		}
		for _, k := range o.Keys {
			st.sets = append(st.sets, [2]string{k, javaString(o.Map[k])})
		}
	default:
		st.unsupported = fmt.Sprintf("step %q is not supported by this runner", kind)
	}
	return st, nil
}

func parseDo(file string, line int, v any) (*doStep, error) {
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("%s:%d: do takes a mapping", file, line)
	}
	d := &doStep{}
	for _, k := range o.Keys {
		val := o.Map[k]
		switch k {
		case "catch":
			d.catch = javaString(val)
		case "headers":
			h, ok := val.(*Object)
			if !ok {
				return nil, fmt.Errorf("%s:%d: headers must be a mapping", file, line)
			}
			d.headers = h
		case "warnings":
			d.warnings = strList(val)
		case "warnings_regex":
			d.warningsRegex = strList(val)
		case "allowed_warnings":
			d.allowed = strList(val)
		case "allowed_warnings_regex":
			d.allowedRegex = strList(val)
		case "node_selector":
			d.nodeSelector = true
		default:
			if d.api != "" {
				return nil, fmt.Errorf("%s:%d: do calls both %s and %s; one API call per do", file, line, d.api, k)
			}
			d.api = k
			d.params = newObject()
			switch params := val.(type) {
			case nil:
			case *Object:
				for _, pk := range params.Keys {
					if pk == "body" {
						d.body, d.hasBody = params.Map[pk], true
						continue
					}
					d.params.Set(pk, params.Map[pk])
				}
			default:
				return nil, fmt.Errorf("%s:%d: the parameters of %s must be a mapping", file, line, k)
			}
		}
	}
	if d.api == "" {
		return nil, fmt.Errorf("%s:%d: do has no API call", file, line)
	}
	for _, w := range d.warnings {
		for _, a := range d.allowed {
			if w == a {
				return nil, fmt.Errorf("%s:%d: the warning [%s] was both allowed and expected", file, line, w)
			}
		}
	}
	return d, nil
}

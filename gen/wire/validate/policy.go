package validate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
)

// ParseRuleSwitch parses one --rule value, "ID=off|info|warning|error";
// an unknown id is an error listing the known ones.
func ParseRuleSwitch(s string) (string, Severity, error) {
	id, sev, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("--rule %q: want ID=off|warning|error (e.g. state.prompt-overlap=off)", s)
	}
	id = strings.TrimSpace(id)
	if _, known := RuleByID(id); !known {
		return "", "", fmt.Errorf("--rule %q: unknown rule id %q (known: %s)", s, id, strings.Join(RuleIDs(), ", "))
	}
	sv, ok := ParseSeverity(strings.TrimSpace(sev))
	if !ok {
		return "", "", fmt.Errorf("--rule %q: unknown severity %q (want off, info, warning or error)", s, sev)
	}
	return id, sv, nil
}

// RuleIDs returns every rule id, in check order.
func RuleIDs() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.ID
	}
	return out
}

// policy applies the rule switches (Options.Rules) and the baseline to
// the findings of one frame or stream end.
func (v *Validator) policy(fs []Finding) []Finding {
	if len(v.ruleSev) == 0 && v.opts.Baseline == nil {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if sev, ok := v.ruleSev[f.Rule]; ok {
			if sev == Off {
				continue
			}
			f.Severity = sev
		}
		if v.opts.Baseline != nil && v.opts.Baseline.match(&f) {
			f.Baselined = true
		}
		out = append(out, f)
	}
	return out
}

// BaselineEntry is one accepted finding: a rule id, the method (of the
// request a response answers, for a response), the union tag the finding
// is under (the session event's type, "" when none) and the JSON pointer
// in the frame; a pointer segment "*" matches any one segment (array
// indexes are written so). Lines, ids and messages are not part of it:
// an entry keeps matching when the traffic moves.
type BaselineEntry struct {
	Rule    string `json:"rule"`
	Method  string `json:"method,omitempty"`
	Type    string `json:"type,omitempty"`
	Pointer string `json:"pointer"`
	// Note is free text (why the finding is accepted); not matched.
	Note string `json:"note,omitempty"`

	line    int
	matched int
}

// Baseline is a set of accepted findings (a --baseline file): one JSON
// object per line (BaselineEntry), blank lines and lines starting with
// # ignored. Safe for concurrent use.
type Baseline struct {
	File    string
	mu      sync.Mutex
	entries []*BaselineEntry
	byKey   map[string][]*BaselineEntry
}

// ReadBaseline reads a baseline file; a bad line is an error naming the
// file and line, an unknown rule id one listing the known ids.
func ReadBaseline(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseBaseline(path, f)
}

func parseBaseline(name string, r io.Reader) (*Baseline, error) {
	b := &Baseline{File: name, byKey: map[string][]*BaselineEntry{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var e BaselineEntry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: not a baseline entry (one JSON object per line: rule, method, type, pointer, note): %v", name, n, err)
		}
		if _, ok := RuleByID(e.Rule); !ok {
			return nil, fmt.Errorf("%s:%d: unknown rule id %q (known: %s)", name, n, e.Rule, strings.Join(RuleIDs(), ", "))
		}
		if e.Pointer != "" && !strings.HasPrefix(e.Pointer, "/") {
			return nil, fmt.Errorf("%s:%d: pointer %q is not a JSON pointer (starts with /, or is empty for the whole frame)", name, n, e.Pointer)
		}
		e.line = n
		b.entries = append(b.entries, &e)
		k := e.Rule + "\x00" + e.Method + "\x00" + e.Type
		b.byKey[k] = append(b.byKey[k], &e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// findingType is the union tag a finding is under: the first tag of its
// branch ("type=turn/end, kind=aborted" gives "turn/end").
func findingType(f *Finding) string {
	first, _, _ := strings.Cut(f.Branch, ", ")
	if _, v, ok := strings.Cut(first, "="); ok {
		return v
	}
	return ""
}

func (b *Baseline) match(f *Finding) bool {
	k := f.Rule + "\x00" + f.Method + "\x00" + findingType(f)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.byKey[k] {
		if pointerMatch(e.Pointer, f.Pointer) {
			e.matched++
			return true
		}
	}
	return false
}

// pointerMatch: pattern's "*" segments match any one segment.
func pointerMatch(pattern, ptr string) bool {
	if pattern == ptr {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return false
	}
	ps, qs := strings.Split(pattern, "/"), strings.Split(ptr, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != qs[i] {
			return false
		}
	}
	return true
}

// Stale returns a baseline.stale finding for every entry that matched
// nothing so far (call it when every input is done).
func (b *Baseline) Stale() []Finding {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Finding
	for _, e := range b.entries {
		if e.matched > 0 {
			continue
		}
		out = append(out, Finding{Stream: b.File, Line: e.line, Rule: RuleBaselineStale, Severity: Error, Method: e.Method,
			Message: fmt.Sprintf("entry %s matched no finding (stale: remove it or rewrite the baseline with --write-baseline)", e.key())})
	}
	return out
}

func (e *BaselineEntry) key() string {
	b, _ := json.Marshal(BaselineEntry{Rule: e.Rule, Method: e.Method, Type: e.Type, Pointer: e.Pointer})
	return string(b)
}

// BaselineWriter collects the entries that accept a run's findings, for
// --write-baseline: one per distinct rule, method, type and pointer (array
// indexes as "*"), errors and warnings only (infos never fail a run).
type BaselineWriter struct {
	mu   sync.Mutex
	seen map[string]int
}

// Add records f.
func (w *BaselineWriter) Add(f Finding) {
	if f.Severity != Error && f.Severity != Warning || f.Rule == RuleBaselineStale {
		return
	}
	e := BaselineEntry{Rule: f.Rule, Method: f.Method, Type: findingType(&f), Pointer: generalize(f.Pointer)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]int{}
	}
	w.seen[e.key()]++
}

// generalize replaces array-index segments by "*".
func generalize(ptr string) string {
	if ptr == "" {
		return ""
	}
	segs := strings.Split(ptr, "/")
	for i, s := range segs {
		if s != "" && strings.Trim(s, "0123456789") == "" {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// WriteTo writes the baseline file (entries sorted, a header comment).
func (w *BaselineWriter) WriteTo(out io.Writer) (int64, error) {
	w.mu.Lock()
	keys := make([]string, 0, len(w.seen))
	for k := range w.seen {
		keys = append(keys, k)
	}
	counts := w.seen
	w.mu.Unlock()
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("# dshgen baseline: accepted findings, one JSON object per line (rule, method, type, pointer; \"*\" is any one pointer segment).\n")
	b.WriteString("# Findings an entry matches are reported as baselined and do not fail the run; an entry that matches nothing fails it as stale.\n")
	for _, k := range keys {
		var e BaselineEntry
		_ = json.Unmarshal([]byte(k), &e)
		e.Note = Count(counts[k], "finding") + " when written"
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	n, err := out.Write(b.Bytes())
	return int64(n), err
}

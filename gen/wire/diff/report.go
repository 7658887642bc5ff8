package diff

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FailOn is the --fail-on level: which findings make `dshgen diff` exit 1.
type FailOn string

// The levels, least sensitive first.
const (
	// FailNone never fails.
	FailNone FailOn = "none"
	// FailWire fails on wire-breaking-* findings (the default).
	FailWire FailOn = "wire"
	// FailCode fails on wire-breaking-* and code-breaking findings, and on
	// any finding that also breaks generated code.
	FailCode FailOn = "code"
	// FailStrict fails on every finding that is not compatible, including
	// wire-strict-receivers.
	FailStrict FailOn = "strict"
)

// failOnLevels are the --fail-on values, as the CLI lists them.
var failOnLevels = []FailOn{FailWire, FailCode, FailStrict, FailNone}

// FailOnLevels returns the --fail-on values (for the CLI's validation and
// shell completion).
func FailOnLevels() []string {
	out := make([]string, len(failOnLevels))
	for i, l := range failOnLevels {
		out[i] = string(l)
	}
	return out
}

// ParseFailOn parses a --fail-on value; the error lists the accepted ones.
func ParseFailOn(s string) (FailOn, error) {
	for _, l := range failOnLevels {
		if FailOn(s) == l {
			return l, nil
		}
	}
	return "", fmt.Errorf("--fail-on %q: want %s", s, strings.Join(FailOnLevels(), ", "))
}

// Fails reports whether finding f fails at level l.
func (l FailOn) Fails(f Finding) bool {
	switch l {
	case FailWire:
		return f.Category.Severity() >= 3
	case FailCode:
		return f.Category.Severity() >= 2 || f.Code
	case FailStrict:
		return f.Category != Compatible || f.Code
	}
	return false
}

// Fails reports whether any finding fails at level l.
func (r *Report) Fails(l FailOn) bool {
	for _, f := range r.Findings {
		if l.Fails(f) {
			return true
		}
	}
	return false
}

// categoryOrder lists categories in report order (worst first).
var categoryOrder = []Category{WireBreakingC2S, WireBreakingS2C, CodeBreaking, StrictReceivers, Compatible}

// Counts returns the number of findings per category.
func (r *Report) Counts() map[Category]int {
	c := map[Category]int{}
	for _, f := range r.Findings {
		c[f.Category]++
	}
	return c
}

// Worst returns the worst category found ("" when nothing changed).
func (r *Report) Worst() Category {
	for _, c := range categoryOrder {
		if r.Counts()[c] > 0 {
			return c
		}
	}
	return ""
}

// Text renders the report for people: a header with counts, then one block
// per finding, grouped by category worst first. Deterministic.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dshgen diff %s → %s\n", r.Old, r.New)
	counts := r.Counts()
	if len(r.Findings) == 0 {
		b.WriteString("no changes\n")
		return b.String()
	}
	var parts []string
	for _, c := range categoryOrder {
		if counts[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[c], c))
		}
	}
	noun := "changes"
	if len(r.Findings) == 1 {
		noun = "change"
	}
	fmt.Fprintf(&b, "%d %s: %s\n", len(r.Findings), noun, strings.Join(parts, ", "))
	var cur Category
	for _, f := range r.Findings {
		if f.Category != cur {
			cur = f.Category
			fmt.Fprintf(&b, "\n## %s\n", cur)
		}
		fmt.Fprintf(&b, "\n%s  %s\n", f.Rule, f.Subject)
		fmt.Fprintf(&b, "  old: %s\n", pointerLine(f.Old, f.OldAbsent))
		fmt.Fprintf(&b, "  new: %s\n", pointerLine(f.New, f.NewAbsent))
		fmt.Fprintf(&b, "  %s\n", f.Message)
		var impact []string
		if f.Direction != "" {
			impact = append(impact, f.Direction)
		}
		if f.Breaks != "" {
			impact = append(impact, "breaks "+f.Breaks)
		}
		if f.Code {
			impact = append(impact, "breaks generated code")
		}
		if len(impact) > 0 {
			fmt.Fprintf(&b, "  %s\n", strings.Join(impact, "; "))
		}
	}
	return b.String()
}

func pointerLine(p string, absent bool) string {
	if absent {
		return "— (not there; enclosing node " + p + ")"
	}
	return p
}

// jsonReport is the --format json document.
type jsonReport struct {
	Old      string           `json:"old"`
	New      string           `json:"new"`
	Worst    Category         `json:"worst"`
	Counts   map[Category]int `json:"counts"`
	Findings []Finding        `json:"findings"`
}

// JSON renders the report as one indented JSON document: old, new, worst
// category ("" when nothing changed), counts per category and the findings.
func (r *Report) JSON() []byte {
	fs := r.Findings
	if fs == nil {
		fs = []Finding{}
	}
	b, err := json.MarshalIndent(jsonReport{r.Old, r.New, r.Worst(), r.Counts(), fs}, "", "  ")
	if err != nil {
		panic(err) // only strings, bools and ints
	}
	return append(b, '\n')
}

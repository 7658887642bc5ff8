package diff

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

var update = flag.Bool("update", false, "rewrite expected.txt of every corpus case and RULES.md")

const corpusDir = "../../../testdata/diff"

func load(t *testing.T, path string) *ir.Model {
	t.Helper()
	m, err := ir.Load(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return m
}

// corpusCases lists the case directories (those with an old.json).
func corpusCases(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(corpusDir, e.Name(), "old.json")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./gen/wire/diff -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run go test ./gen/wire/diff -update after checking the change):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestCorpus runs every testdata/diff/<case> pair and compares the text
// report with expected.txt. A case named after a rule must report it.
func TestCorpus(t *testing.T) {
	cases := corpusCases(t)
	if len(cases) == 0 {
		t.Fatal("no corpus cases")
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(corpusDir, name)
			r := Compare(load(t, filepath.Join(dir, "old.json")), load(t, filepath.Join(dir, "new.json")), "old.json", "new.json")
			golden(t, filepath.Join(dir, "expected.txt"), r.Text())
			if rule := RuleByID(name); rule != nil {
				found := false
				for _, f := range r.Findings {
					found = found || f.Rule == name
				}
				if !found {
					t.Errorf("case %s does not report rule %s", name, name)
				}
			}
			for _, f := range r.Findings {
				if f.Category == WireBreaking || f.Category == "" {
					t.Errorf("finding with unresolved category: %+v", f)
				}
			}
		})
	}
}

// TestEveryRuleHasACase checks that the corpus covers the whole rule table.
func TestEveryRuleHasACase(t *testing.T) {
	have := map[string]bool{}
	for _, c := range corpusCases(t) {
		have[c] = true
	}
	for _, r := range Rules {
		if !have[r.ID] {
			t.Errorf("rule %s has no corpus case %s/%s", r.ID, corpusDir, r.ID)
		}
	}
}

// TestRulesMarkdown keeps RULES.md equal to the rule table.
func TestRulesMarkdown(t *testing.T) {
	golden(t, "RULES.md", RulesMarkdown())
}

// TestRulesAreWellFormed checks the rule table's own invariants.
func TestRulesAreWellFormed(t *testing.T) {
	for _, r := range Rules {
		switch r.Category {
		case WireBreaking, StrictReceivers:
			if r.Effect == 0 {
				t.Errorf("%s: a %s rule needs an effect", r.ID, r.Category)
			}
		case Compatible, CodeBreaking:
			if r.Effect != 0 {
				t.Errorf("%s: a %s rule has no effect", r.ID, r.Category)
			}
		default:
			t.Errorf("%s: category %q", r.ID, r.Category)
		}
		if r.Category == CodeBreaking && !r.Code {
			t.Errorf("%s: code-breaking rules break code", r.ID)
		}
		if strings.TrimSpace(r.Description) == "" || strings.Contains(r.Description, "|") {
			t.Errorf("%s: description must be non-empty and free of | (Markdown table)", r.ID)
		}
	}
}

// TestSameSchemaNoChanges compares the shipped schema with itself.
func TestSameSchemaNoChanges(t *testing.T) {
	p := "../../../schema/0.0.1/dsh-sdk-protocol.schema.json"
	r := Compare(load(t, p), load(t, p), "a", "b")
	if len(r.Findings) != 0 {
		t.Fatalf("shipped schema differs from itself:\n%s", r.Text())
	}
	if r.Fails(FailStrict) {
		t.Fatal("no findings must not fail")
	}
}

// TestJSONReport checks the machine format round-trips and carries what
// the text shows.
func TestJSONReport(t *testing.T) {
	dir := filepath.Join(corpusDir, "required-member-added")
	r := Compare(load(t, filepath.Join(dir, "old.json")), load(t, filepath.Join(dir, "new.json")), "old.json", "new.json")
	var doc struct {
		Old, New string
		Worst    Category
		Counts   map[Category]int
		Findings []Finding
	}
	if err := json.Unmarshal(r.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Worst != WireBreakingC2S || len(doc.Findings) != len(r.Findings) || doc.Counts[WireBreakingC2S] != 1 {
		t.Fatalf("json report: %s", r.JSON())
	}
	f := doc.Findings[0]
	if f.Rule != "required-member-added" || f.Direction != "client-to-server" || f.Breaks != "old clients → new server" || !f.Code ||
		f.Old != "#/$defs/PutParams" || !f.OldAbsent || f.New != "#/$defs/PutParams/properties/owner" {
		t.Fatalf("finding: %+v", f)
	}
}

// TestFailOn checks which levels fail on which findings.
func TestFailOn(t *testing.T) {
	mk := func(c Category, code bool) *Report { return &Report{Findings: []Finding{{Category: c, Code: code}}} }
	cases := []struct {
		r                        *Report
		none, wire, code, strict bool
	}{
		{&Report{}, false, false, false, false},
		{mk(Compatible, false), false, false, false, false},
		{mk(StrictReceivers, false), false, false, false, true},
		{mk(StrictReceivers, true), false, false, true, true},
		{mk(CodeBreaking, true), false, false, true, true},
		{mk(WireBreakingC2S, false), false, true, true, true},
		{mk(WireBreakingS2C, true), false, true, true, true},
	}
	for i, c := range cases {
		got := [4]bool{c.r.Fails(FailNone), c.r.Fails(FailWire), c.r.Fails(FailCode), c.r.Fails(FailStrict)}
		want := [4]bool{c.none, c.wire, c.code, c.strict}
		if got != want {
			t.Errorf("case %d: fails none/wire/code/strict = %v, want %v", i, got, want)
		}
	}
	if _, err := ParseFailOn("sometimes"); err == nil {
		t.Error("bad --fail-on accepted")
	}
}

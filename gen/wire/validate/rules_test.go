package validate

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the rule table in RULES.md")

const (
	rulesBegin = "<!-- rules:begin (generated from gen/wire/validate/rules.go by go test -run TestRulesDoc -update) -->\n"
	rulesEnd   = "<!-- rules:end -->\n"
)

// rulesTable renders the rule table of RULES.md from Rules.
func rulesTable() string {
	var b strings.Builder
	b.WriteString("| rule | severity | stage | checks | example message |\n|---|---|---|---|---|\n")
	esc := strings.NewReplacer("|", `\|`, "\n", " ")
	for _, r := range Rules {
		b.WriteString("| `" + r.ID + "` | " + string(r.Severity) + " | " + r.Stage + " | " + esc.Replace(r.Doc) + " | `" + esc.Replace(r.Example) + "` |\n")
	}
	return b.String()
}

// TestRulesDoc keeps RULES.md's table equal to the Go table, and checks
// that rule ids are unique and well-formed.
func TestRulesDoc(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] || !strings.Contains(r.ID, ".") || r.Example == "" || r.Doc == "" {
			t.Errorf("rule %q: duplicate, malformed or undocumented", r.ID)
		}
		seen[r.ID] = true
	}
	data, err := os.ReadFile("RULES.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, rulesBegin), strings.Index(s, rulesEnd)
	if i < 0 || j < i {
		t.Fatal("RULES.md has no rules:begin/rules:end markers")
	}
	want := s[:i+len(rulesBegin)] + rulesTable() + s[j:]
	if want == s {
		return
	}
	if *update {
		if err := os.WriteFile("RULES.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("RULES.md's rule table is stale: go test ./gen/wire/validate -run TestRulesDoc -update")
}

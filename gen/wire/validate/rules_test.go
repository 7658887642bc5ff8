package validate

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
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

// TestCount: the one plural helper of the validator's and the tap's texts.
func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{{0, "error", "0 errors"}, {1, "warning", "1 warning"}, {2, "warning", "2 warnings"}, {1, "info", "1 info"}, {3, "info", "3 info"}, {1, "frame", "1 frame"}} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if got := (Summary{Streams: 1, Frames: 1, Errors: 1, Warnings: 1, Infos: 1}).String(); got != "1 stream, 1 frame: 1 error, 1 warning, 1 info" {
		t.Errorf("summary %q", got)
	}
}

// TestInternalError: a panic while checking one frame (here a method whose
// params type has no schema to compile it from) costs that frame's checks, reported as
// internal.error, and the rest of the stream is still checked.
func TestInternalError(t *testing.T) {
	v := &Validator{
		methods: map[string]*ir.Method{"x": {Name: "x", Kind: ir.Notification, Params: &ir.Type{Name: "X", Pointer: "#/$defs/X"}}},
	}
	s := v.NewStream(StreamConfig{Name: "t"})
	got := rulesOf(feedLines(s, nil, `{"jsonrpc":"2.0","method":"x","params":{}}`, `{"jsonrpc":"2.0"}`))
	if got != "1:internal.error:error 2:envelope.kind:error" {
		t.Errorf("got %q", got)
	}
}

package ir

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// publishedDir is ../shared/protocols beside the repository (never edited).
func publishedDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared", "protocols")
	if _, err := os.Stat(filepath.Join(d, "README.md")); err != nil {
		t.Fatalf("the published schemas are not at %s: %v", d, err)
	}
	return d
}

// inferTable loads a schema and builds its types and method table the
// way build does, returning the table and the problems the method table
// itself raised (union problems the IR may still have are not about
// methods and are left out).
func inferTable(t *testing.T, src Source) (*Model, []Problem, *schemadoc.Set) {
	t.Helper()
	set, err := schemadoc.Open(src, Keywords())
	if err != nil {
		t.Fatal(err)
	}
	l := &loader{set: set, types: map[string]*Type{}, typeLocs: map[*Type]loc{}, fallback: map[*Type]*Type{}}
	at := loc{Doc: set.Root()}
	for _, kw := range []string{"$defs", "definitions"} {
		defs := set.Root().Root.Get(kw)
		for _, k := range defs.Keys() {
			l.typeAt(at.Child(kw, k))
		}
	}
	before := len(l.problems)
	m := &Model{}
	m.Methods = l.methods(at, m)
	return m, l.problems[before:], set
}

// expectedMethod is one row of a method table in
// testdata/protocols/UNIONS.md (written from the schemas by hand and by
// testdata/protocols/survey.py, independently of dshgen).
type expectedMethod struct {
	name, kind, sender, params, optional, result string
}

// expectedTables reads the "### <protocol>: N methods" tables of UNIONS.md.
func expectedTables(t *testing.T) map[string][]expectedMethod {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "protocols", "UNIONS.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]expectedMethod{}
	cur := ""
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "<!-- survey:methods:begin -->":
			in = true
		case line == "<!-- survey:methods:end -->":
			in = false
		case in && strings.HasPrefix(line, "### "):
			cur = strings.TrimPrefix(line, "### ")
			cur = cur[:strings.Index(cur, ":")]
		case in && strings.HasPrefix(line, "| `"):
			line = strings.ReplaceAll(line, `\|`, "¦")
			c := strings.Split(line, "|")
			cell := func(i int) string { return strings.Trim(strings.TrimSpace(c[i]), "`") }
			out[cur] = append(out[cur], expectedMethod{cell(1), cell(2), cell(3), cell(4), cell(5), strings.ReplaceAll(cell(6), " ¦ ", " | ")})
		}
	}
	return out
}

// row renders an inferred method as a UNIONS.md row.
func row(m *Method, input bool, expand func(*Type) []string) expectedMethod {
	name := func(t *Type) string {
		if t == nil {
			return "—"
		}
		if strings.HasPrefix(t.Pointer, "#/$defs/") && !strings.Contains(strings.TrimPrefix(t.Pointer, "#/$defs/"), "/") {
			return strings.TrimPrefix(t.Pointer, "#/$defs/")
		}
		return strings.TrimPrefix(t.Pointer, "#")
	}
	sender := map[Direction]string{ClientToServer: "client", ServerToClient: "server", Both: "both"}[m.Direction]
	kind := string(m.Kind)
	if input {
		kind = "input request (MRTR)"
	}
	opt := "no"
	if m.ParamsOptional {
		opt = "yes"
	}
	res := "—"
	if m.Result != nil {
		parts := expand(m.Result)
		for _, a := range m.ResultAlternatives {
			parts = append(parts, name(a))
		}
		res = strings.Join(parts, " | ")
	}
	return expectedMethod{m.Name, kind, sender, name(m.Params), opt, res}
}

// branchNames lists a result type by def name, or, for an inline anyOf
// of $refs (MCP 2026-07-28's *ResultResponse result), by its branches'.
func branchNames(set *schemadoc.Set) func(*Type) []string {
	return func(t *Type) []string {
		rest := strings.TrimPrefix(t.Pointer, "#/$defs/")
		if rest != t.Pointer && !strings.Contains(rest, "/") {
			return []string{rest}
		}
		_, n, _ := set.Lookup(t.Pointer)
		var out []string
		for _, b := range n.Get("anyOf").Items() {
			out = append(out, strings.TrimPrefix(b.StrOf("$ref"), "#/$defs/"))
		}
		if len(out) == 0 {
			out = []string{strings.TrimPrefix(t.Pointer, "#")}
		}
		return out
	}
}

// TestInferredMethodTables: with no overlay, the method tables inferred
// from MCP's and ACP's own conventions are exactly the tables of
// testdata/protocols/UNIONS.md: MCP 2025-11-25 31 methods (8 sent by both
// sides), MCP 2026-07-28 18 + 3 input requests, ACP 17.
func TestInferredMethodTables(t *testing.T) {
	dir := publishedDir(t)
	want := expectedTables(t)
	cases := []struct {
		name, path     string
		methods, both  int
		inputRequests  int
		extensionNames bool
	}{
		{"mcp-2025-11-25", "mcp/2025-11-25/schema.json", 31, 8, 0, false},
		{"mcp-2026-07-28", "mcp/2026-07-28/schema.json", 18, 1, 3, false},
		{"acp", "acp/schema.json", 17, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, problems, set := inferTable(t, Source{Path: filepath.Join(dir, c.path)})
			for _, p := range problems {
				t.Errorf("method table problem: %s", p)
			}
			both := 0
			var got []expectedMethod
			for _, x := range m.Methods {
				if x.Direction == Both {
					both++
				}
				got = append(got, row(x, false, branchNames(set)))
			}
			for _, x := range m.InputRequests {
				got = append(got, row(x, true, branchNames(set)))
			}
			if len(m.Methods) != c.methods || both != c.both || len(m.InputRequests) != c.inputRequests {
				t.Errorf("%d methods (%d both sides) + %d input requests, want %d (%d) + %d", len(m.Methods), both, len(m.InputRequests), c.methods, c.both, c.inputRequests)
			}
			if (m.ExtensionPrefix == "_") != c.extensionNames {
				t.Errorf("extension prefix %q", m.ExtensionPrefix)
			}
			exp := want[c.name]
			if len(exp) == 0 {
				t.Fatalf("UNIONS.md has no method table for %s", c.name)
			}
			key := func(e expectedMethod) string { return e.kind + " " + e.name }
			gm := map[string]expectedMethod{}
			for _, g := range got {
				gm[key(g)] = g
			}
			var keys []string
			for _, e := range exp {
				keys = append(keys, key(e))
				g, ok := gm[key(e)]
				if !ok {
					t.Errorf("%s: not inferred", key(e))
					continue
				}
				delete(gm, key(e))
				if g != e {
					t.Errorf("%s:\n got  %+v\n want %+v", key(e), g, e)
				}
			}
			sort.Strings(keys)
			for k := range gm {
				t.Errorf("%s: inferred, but not in UNIONS.md", k)
			}
		})
	}
}

// An overlay's x-methods entry replaces the inferred entry of its method
// (MCP's ping result, which the schema does not state), and adds methods.
func TestOverlayWinsOverInferredMethod(t *testing.T) {
	dir := publishedDir(t)
	ov := filepath.Join(t.TempDir(), "o.json")
	writeFile(t, ov, `{"overlay": {"#": {"x-methods": {
  "ping": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/RequestParams"}, "paramsOptional": true, "result": {"$ref": "#/$defs/Result"}}
}}}}`)
	m, problems, _ := inferTable(t, Source{Path: filepath.Join(dir, "mcp/2025-11-25/schema.json"), Overlays: []string{ov}})
	for _, p := range problems {
		t.Errorf("problem: %s", p)
	}
	p := m.Method("ping")
	if p == nil || p.Direction != ClientToServer || p.Result.Pointer != "#/$defs/Result" || !strings.HasPrefix(p.Source, "o.json") && !strings.Contains(p.Source, "x-methods") {
		t.Fatalf("ping = %+v", p)
	}
	if len(m.Methods) != 31 {
		t.Errorf("%d methods, want 31 (the others still inferred)", len(m.Methods))
	}
}

// A method in ACP's own table (meta.json + x-method) that an overlay's
// x-methods entry gives other types: a problem in the overlay, with its
// line, the entry's pointer and the fix.
func TestOverlayContradictsPublishedTable(t *testing.T) {
	dir := publishedDir(t)
	ov := filepath.Join(t.TempDir(), "acp.overlay.json")
	writeFile(t, ov, `{"overlay": {"#": {"x-methods": {
  "session/prompt": {"kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/PromptRequest"},
    "result": {"$ref": "#/$defs/NewSessionResponse"}},
  "session/new": {"kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/NewSessionRequest"}, "result": {"$ref": "#/$defs/NewSessionResponse"}}
}}}}`)
	_, problems, _ := inferTable(t, Source{Path: filepath.Join(dir, "acp/schema.json"), Overlays: []string{ov}})
	if len(problems) != 1 {
		t.Fatalf("want one problem (session/prompt's result), got %v", problems)
	}
	p := problems[0]
	if p.File != ov || p.Line != 4 || !strings.Contains(p.Pointer, "session~1prompt/result") ||
		!strings.Contains(p.Msg, "#/$defs/PromptResponse") || !strings.Contains(p.Hint, "remove this x-methods entry") {
		t.Errorf("problem = %s (file %s line %d pointer %s)", p, p.File, p.Line, p.Pointer)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

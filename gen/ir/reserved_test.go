package ir

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/templates"
)

// loadDoc loads an inline schema document.
func loadDoc(t *testing.T, doc string) (*Model, error) {
	t.Helper()
	return LoadBytes(filepath.Join(t.TempDir(), "schema.json"), []byte(doc))
}

// TestReservedFromRuntimes: the reserved names are what the runtimes
// declare, not a list kept beside them: every exported top-level name of
// the Go runtime template is reserved and nothing the runtime does not
// declare is (a schema type Frame stays Frame in Go), and so on per
// language.
func TestReservedFromRuntimes(t *testing.T) {
	// Every Go template (the runtime, the line transport) is part of the
	// generated package.
	goFiles, err := fs.Glob(templates.FS, "go/*.go.tmpl")
	if err != nil || len(goFiles) == 0 {
		t.Fatalf("no Go templates: %v", err)
	}
	var declared []string
	for _, f := range goFiles {
		rt, err := fs.ReadFile(templates.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		names, err := GoTopLevel(string(rt))
		if err != nil {
			t.Fatal(err)
		}
		declared = append(declared, names...)
	}
	goTypes, _ := ReservedNames("go types")
	var exported []string
	for _, n := range declared {
		if n[0] >= 'A' && n[0] <= 'Z' {
			exported = append(exported, n)
		}
	}
	want := append(exported, goRequestMap, goNotificationMap)
	sort.Strings(want)
	if got := goTypes.Sorted(); !reflect.DeepEqual(got, want) {
		t.Errorf("Go reserved type names %v, want the runtime's exported names and the maps %v", got, want)
	}
	for _, n := range []string{"DecodeError", "Nullable", "ResponseError", "MethodInfo", "LookupMethod", "DecodeParams", "DecodeResult"} {
		if !goTypes.Has(n) {
			t.Errorf("the Go runtime declares %s, but it is not reserved", n)
		}
	}
	m, err := loadDoc(t, `{"$defs": {
		"Packet": {"type": "object", "properties": {"a": {"type": "string"}}},
		"Kind": {"type": "string"},
		"DecodeError": {"type": "object", "properties": {"class": {"type": "string"}, "bytes": {"type": "integer"}, "from_json": {"type": "string"}, "int": {"type": "integer"}}},
		"Literal": {"type": "string"},
		"JsonValue": {},
		"Methods": {"type": "string"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		schema string
		lang   Lang
		want   string
	}{
		{"Packet", LangGo, "Packet"},               // declared by no runtime: never escaped for nothing
		{"Kind", LangGo, "Kind"},                   // ditto
		{"DecodeError", LangGo, "DecodeError_"},    // the Go runtime's error type
		{"DecodeError", LangPython, "DecodeError"}, // codec's API is imported under an alias
		{"Literal", LangPython, "Literal_"},        // types.py imports Literal
		{"JsonValue", LangPython, "JsonValue"},
		{"JsonValue", LangTS, "JsonValue"}, // any JSON: it is the package's own JsonValue
		{"Methods", LangTS, "Methods_"},    // methods.ts exports Methods
		{"Methods", LangGo, "Methods"},
	} {
		if got := m.TypeByName(c.schema).Names.Of(c.lang); got != c.want {
			t.Errorf("%s in %v: %s, want %s", c.schema, c.lang, got, c.want)
		}
	}
	fields := map[string]string{}
	for _, f := range m.TypeByName("DecodeError").Fields {
		fields[f.Wire] = f.Names.Of(LangPython)
	}
	for wire, want := range map[string]string{"class": "class_", "bytes": "bytes", "from_json": "from_json_", "int": "int_"} {
		if fields[wire] != want {
			t.Errorf("Python attribute of %q: %s, want %s", wire, fields[wire], want)
		}
	}
}

// TestRuntimeCollisions: a name derived from the schema that lands on a
// name the runtime declares is reported, naming both.
func TestRuntimeCollisions(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"x-methods": {"info": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}}}, "$defs": {"P": {"type": "object", "properties": {}}}}`,
			"name collision in Go (MethodInfo): templates/go/runtime.go.tmpl and /x-methods/info"},
		{`{"$defs": {"As": {"type": "array", "items": {"type": "string"}}}}`,
			"templates/go/runtime.go.tmpl and /$defs/As (its Go decodeAs function)"},
		{`{"x-methods": {"methods": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}}}, "$defs": {"P": {"type": "object", "properties": {}}}}`,
			"name collision in Python (METHODS): templates/python/methods.py.tmpl and /x-methods/methods"},
		{`{"x-ts-request-map": "Methods", "$defs": {}}`,
			"name collision in TypeScript (Methods): templates/ts/methods.ts.tmpl and #/x-ts-request-map"},
		{`{"x-methods": {"requests": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}}}, "$defs": {"P": {"type": "object", "properties": {}}}}`,
			"name collision in Python (REQUESTS): the Python method maps and /x-methods/requests"},
		{`{"$defs": {"R": {"type": "object", "properties": {"b": {"type": "string", "x-python-name": "not-ident"}}}}}`,
			`member "b": Python name "not-ident" is not an identifier`},
	}
	for _, c := range cases {
		_, err := loadDoc(t, c.doc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant it to contain %q", c.doc, err, c.want)
		}
	}
}

// TestMethodMaps: the map names per language, from the annotations or the
// title, and the problems with them.
func TestMethodMaps(t *testing.T) {
	for _, c := range []struct{ doc, req, note string }{
		{`{"$defs": {}}`, "RequestMap", "NotificationMap"},
		{`{"title": "Acme Widget Protocol", "$defs": {}}`, "AcmeWidgetRequestMap", "AcmeWidgetNotificationMap"},
		{`{"title": "lsp-subset", "$defs": {}}`, "LspSubsetRequestMap", "LspSubsetNotificationMap"},
		{`{"title": "X", "x-ts-request-map": "Reqs", "x-ts-notification-map": "Notes", "$defs": {}}`, "Reqs", "Notes"},
	} {
		m, err := loadDoc(t, c.doc)
		if err != nil {
			t.Fatal(err)
		}
		if m.RequestMap != (Names{"Requests", "REQUESTS", c.req}) || m.NotificationMap != (Names{"Notifications", "NOTIFICATIONS", c.note}) {
			t.Errorf("%s: %v %v", c.doc, m.RequestMap, m.NotificationMap)
		}
	}
	for doc, want := range map[string]string{
		`{"x-ts-request-map": "not an identifier", "$defs": {}}`:                    `/x-ts-request-map: "x-ts-request-map" must be a TypeScript identifier`,
		`{"x-ts-request-map": "M", "x-ts-notification-map": "M", "$defs": {}}`:      `both named "M"`,
		`{"title": "Foo Protocol", "$defs": {"FooRequestMap": {"type": "string"}}}`: `the TypeScript request map (named from the title`,
	} {
		if _, err := loadDoc(t, doc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

// TestUnknownVariants: every tagged union has one Unknown variant, a
// KindUnknown type in Decls and not in Types; a named fallback branch is
// printed as it (and not as a plain object too).
func TestUnknownVariants(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[*Type]bool{}
	for _, d := range m.Decls {
		if decls[d] {
			t.Errorf("%s is declared twice", d.Name)
		}
		decls[d] = true
	}
	tagged, named := 0, 0
	for _, ty := range m.Types {
		if ty.FallbackOf != nil && decls[ty] {
			t.Errorf("fallback type %s is in Decls (its union's Unknown stands for it)", ty.Name)
		}
		if ty.Kind == KindUnknown {
			t.Errorf("%s: an unknown variant is in Types", ty.Name)
		}
		if ty.Kind != KindUnion || ty.Union.By != ByTag {
			if ty.Kind == KindUnion && ty.Union.Unknown != nil {
				t.Errorf("%s: a union %v has an Unknown variant", ty.Name, ty.Union.By)
			}
			continue
		}
		tagged++
		u := ty.Union.Unknown
		if u == nil || u.Kind != KindUnknown || u.UnknownOf != ty || !decls[u] || len(u.Unions) != 1 || u.Unions[0] != ty {
			t.Errorf("%s: Unknown %+v", ty.Name, u)
			continue
		}
		if u.Fallback != nil {
			named++
			if u.Names != u.Fallback.Names || u.Pointer != u.Fallback.Pointer || u.Fallback.FallbackOf != ty {
				t.Errorf("%s: Unknown %s does not stand for its fallback %s", ty.Name, u.Name, u.Fallback.Name)
			}
		} else if u.Name != ty.Name+"Unknown" {
			t.Errorf("%s: Unknown named %s", ty.Name, u.Name)
		}
	}
	if tagged < 5 || named < 3 {
		t.Errorf("the shipped schema has %d tagged unions (%d with a named fallback): too few to test", tagged, named)
	}
	if len(m.Decls) != len(m.Types)-named+tagged {
		t.Errorf("%d decls for %d types, %d tagged unions and %d named fallbacks", len(m.Decls), len(m.Types), tagged, named)
	}
}

func TestScanners(t *testing.T) {
	py := PyModuleNames(`from a import (
    B,
    c as d,
)
import e.f
X: int = 1
y = 2
z == 3
def f(): pass
class G:
    h = 1
_p = 0
__all__ = ["X", "G"]
{{.Const}}: Final = 1
`)
	if want := []string{"B", "G", "X", "__all__", "_p", "d", "e", "f", "y"}; !reflect.DeepEqual(py.Names, want) {
		t.Errorf("names %v, want %v", py.Names, want)
	}
	if want := []string{"X", "G"}; !reflect.DeepEqual(py.All, want) {
		t.Errorf("__all__ %v, want %v", py.All, want)
	}
	if want := []string{"f", "y"}; !reflect.DeepEqual(py.Helpers(), want) {
		t.Errorf("helpers %v, want %v", py.Helpers(), want)
	}
	ts := TSExports("export type A = 1;\nexport interface {{.Map}} {}\nexport function b() {}\n  export const c = 1;\nexport const D = 1;\ntype e = 1;\n")
	if want := []string{"A", "D", "b"}; !reflect.DeepEqual(ts, want) {
		t.Errorf("ts exports %v, want %v", ts, want)
	}
	g, err := GoTopLevel("package {{PKG}}\n\ntype A struct{}\n\nfunc (A) M() {}\n\nfunc f() {}\n\nvar x, Y = 1, 2\n\nconst (\n\tz = 1\n)\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A", "Y", "f", "x", "z"}; !reflect.DeepEqual(g, want) {
		t.Errorf("go names %v, want %v", g, want)
	}
}

// TestPythonNamesFile: names/python.txt is what Python says its keywords
// and builtins are, for every Python 3.10-3.13 on this machine (each of
// those is required to be listed; an entry no Python found here lists is
// stale unless a version is missing).
func TestPythonNamesFile(t *testing.T) {
	have := map[string]bool{}
	for _, l := range dataLines(pythonNamesTxt) {
		have[l] = true
	}
	works := func(py string) bool { return exec.Command(py, "-c", "import keyword").Run() == nil }
	var pythons []string
	for _, v := range []string{"3.10", "3.11", "3.12", "3.13"} {
		cands, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), ".pyenv", "versions", v+".*", "bin", "python"))
		if p, err := exec.LookPath("python" + v); err == nil {
			cands = append(cands, p)
		}
		for _, p := range cands {
			if works(p) {
				pythons = append(pythons, p)
				break
			}
		}
	}
	if len(pythons) == 0 {
		if p, err := exec.LookPath("python3"); err == nil {
			pythons = []string{p}
		} else {
			t.Skip("no Python on this machine")
		}
	}
	seen := map[string]bool{}
	for _, py := range pythons {
		out, err := exec.Command(py, filepath.Join("names", "python_names.py")).Output()
		if err != nil {
			t.Fatalf("%s names/python_names.py: %v", py, err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			seen[l] = true
			if !have[l] {
				t.Errorf("%s lists %q, names/python.txt does not (regenerate it)", py, l)
			}
		}
	}
	if len(pythons) == 4 {
		for l := range have {
			if !seen[l] {
				t.Errorf("names/python.txt lists %q, which no Python 3.10-3.13 does (stale)", l)
			}
		}
	}
}

// TestTypeScriptNamesFile: names/typescript.txt is the keyword list of the
// pinned TypeScript compiler (testdata/ts).
func TestTypeScriptNamesFile(t *testing.T) {
	tsDir := filepath.Join("..", "..", "testdata", "ts", "node_modules", "typescript")
	if _, err := os.Stat(tsDir); err != nil {
		if os.Getenv("DSHGEN_REQUIRE_TSC") != "" {
			t.Fatalf("TypeScript is not installed: %v", err)
		}
		t.Skip("TypeScript is not installed (npm ci in testdata/ts)")
	}
	out, err := exec.Command("node", filepath.Join("names", "typescript_names.js"), tsDir).Output()
	if err != nil {
		t.Fatalf("node names/typescript_names.js: %v", err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if want := dataLines(typescriptNamesTxt); !reflect.DeepEqual(got, want) {
		t.Errorf("names/typescript.txt differs from the compiler's keywords (regenerate it):\n file %v\n tsc  %v", want, got)
	}
}

// TestDomainInitialisms: the initialisms added to the common Go list are
// used by the shipped schema (a stale one fails).
func TestDomainInitialisms(t *testing.T) {
	m, err := Load(filepath.Join("..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	note := func(s string) {
		for _, w := range splitWords(s) {
			used[strings.ToUpper(w)] = true
		}
	}
	for _, ty := range m.Types {
		note(ty.Name)
		for _, f := range ty.Fields {
			note(f.Wire)
		}
	}
	for _, me := range m.Methods {
		note(me.Name)
	}
	for _, w := range domainInitialisms {
		if !used[w] {
			t.Errorf("initialism %s is in domainInitialisms, but no name of the shipped schema has it (stale)", w)
		}
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("one two three four five six\n\n- item with words enough to wrap\n  indented", 12)
	want := []string{"one two", "three four", "five six", "", "- item with", "  words", "  enough to", "  wrap", "  indented"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Wrap:\n%q\nwant\n%q", got, want)
	}
	if got := Wrap("see https://example.com/a/very/long/url/that/does/not/break here", 10); got[1] != "https://example.com/a/very/long/url/that/does/not/break" {
		t.Errorf("a long word was broken: %q", got)
	}
}

func TestRestates(t *testing.T) {
	for text, want := range map[string]bool{
		"The chunk.":                         true,
		"Compaction id.":                     true,
		"AgentInfo is the object AgentInfo.": true,
		"Event payload.":                     false,
		"Number of inbox entries removed.":   false,
		"":                                   false,
	} {
		if got := Restates(text, "chunk", "compactionId", "AgentInfo", "data", "removedCount"); got != want {
			t.Errorf("Restates(%q) = %v", text, got)
		}
	}
}

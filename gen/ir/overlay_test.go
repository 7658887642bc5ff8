package ir_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/golang"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/schema"
)

// splitMethods writes the shipped schema without its x-methods table and
// an overlay holding the table, and returns their paths.
func splitMethods(t *testing.T) (string, string) {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(schema.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	methods := doc["x-methods"]
	delete(doc, "x-methods")
	dir := t.TempDir()
	stripped, _ := json.MarshalIndent(doc, "", "  ")
	sp := filepath.Join(dir, schema.FileName)
	op := filepath.Join(dir, "methods.overlay.json")
	ov := []byte(`{"description": "the method table of the shipped schema", "overlay": {"#": {"x-methods": ` + string(methods) + `}}}`)
	if err := os.WriteFile(sp, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(op, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	return sp, op
}

// The method table may live entirely in an overlay: the shipped schema
// without x-methods plus an overlay holding it gives the same model and
// the same generated Go, header aside (it names the overlay and its hash).
func TestMethodTableFromOverlay(t *testing.T) {
	want, err := ir.LoadBytes(schema.FileName, schema.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sp, op := splitMethods(t)
	if _, err := ir.Load(sp); err != nil {
		t.Fatal(err) // a schema with no methods is a valid schema
	}
	got, err := ir.LoadSource(ir.Source{Path: sp, Overlays: []string{op}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Methods) != len(want.Methods) || len(got.Methods) == 0 {
		t.Fatalf("methods: %d, want %d", len(got.Methods), len(want.Methods))
	}
	for i, m := range got.Methods {
		w := want.Methods[i]
		if m.Name != w.Name || m.Kind != w.Kind || m.Direction != w.Direction || m.Params.Pointer != w.Params.Pointer || m.Names != w.Names || (m.Result == nil) != (w.Result == nil) {
			t.Errorf("method %s: %+v, want %+v", m.Name, m, w)
		}
	}
	if len(got.Overlays) != 1 || !strings.HasSuffix(got.Overlays[0].File, "methods.overlay.json") || len(got.Overlays[0].SHA256) != 64 {
		t.Errorf("overlays: %+v", got.Overlays)
	}
	o := ir.Options{Version: "test"}
	h := got.HeaderLines(o)
	if text := strings.Join(h, "\n"); !strings.Contains(text, "from "+schema.FileName+" with overlays. DO NOT EDIT.\nSchema sha256 "+got.SHA256+".\nOverlay methods.overlay.json sha256 "+got.Overlays[0].SHA256+".") {
		t.Errorf("header: %s", text)
	}
	wf, err := golang.Emit(want, o)
	if err != nil {
		t.Fatal(err)
	}
	gf, err := golang.Emit(got, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(wf) != len(gf) {
		t.Fatalf("%d files, want %d", len(gf), len(wf))
	}
	strip := func(data []byte, header []string) []byte {
		for _, l := range header {
			data = bytes.ReplaceAll(data, []byte("// "+l+"\n"), nil)
		}
		return data
	}
	for i := range wf {
		a := strip(wf[i].Data, want.HeaderLines(o))
		b := strip(gf[i].Data, h)
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs beyond the header", gf[i].Path)
		}
	}
}

// loadWithOverlay loads the shipped schema with one overlay.
func loadWithOverlay(t *testing.T, overlay string) (*ir.Model, string, error) {
	t.Helper()
	dir := t.TempDir()
	sp := filepath.Join(dir, schema.FileName)
	op := filepath.Join(dir, "o.json")
	os.WriteFile(sp, schema.Bytes(), 0o644)
	os.WriteFile(op, []byte(overlay), 0o644)
	m, err := ir.LoadSource(ir.Source{Path: sp, Overlays: []string{op}})
	return m, op, err
}

// Overlay naming keywords reach the IR, and the overlay wins over the
// schema where both set one.
func TestOverlayNames(t *testing.T) {
	m, _, err := loadWithOverlay(t, `{"overlay": {
		"/$defs/InitializeParams": {"x-go-name": "InitParams", "x-python-name": "InitParams"},
		"/$defs/InitializeParams/properties/cwd": {"x-name": "workDir"},
		"/x-methods/initialize": {"x-name": "handshake"},
		"#": {"x-ts-request-map": "Requests"}
	}}`)
	if err != nil {
		t.Fatal(err)
	}
	ip := m.TypeByName("InitializeParams")
	if ip.Names.Of(ir.LangGo) != "InitParams" || ip.Names.Of(ir.LangPython) != "InitParams" || ip.Names.Of(ir.LangTS) != "InitializeParams" {
		t.Errorf("InitializeParams names %v", ip.Names)
	}
	for _, f := range ip.Fields {
		if f.Wire == "cwd" && (f.Names.Of(ir.LangGo) != "WorkDir" || f.Names.Of(ir.LangPython) != "work_dir") {
			t.Errorf("cwd names %v", f.Names)
		}
	}
	if me := m.Method("initialize"); me.Names.Of(ir.LangGo) != "Handshake" {
		t.Errorf("initialize names %v", me.Names)
	}
	if m.TSRequestMap != "Requests" {
		t.Errorf("x-ts-request-map: the overlay must win over the schema's value, got %q", m.TSRequestMap)
	}
}

// An entry the IR never reads is a problem located in the overlay, and
// nothing is built; so is a bad value the IR reads from an overlay.
func TestOverlayEntriesTheIRDoesNotRead(t *testing.T) {
	_, op, err := loadWithOverlay(t, `{"overlay": {
		"#": {"x-name": "Proto"},
		"/$defs/JsonRpcMessage": {"x-go-name": "Frame"},
		"/$defs/SessionEvent/oneOf/0": {"x-name": "First"}
	}}`)
	var le *ir.LoadError
	if !asLoadError(err, &le) || len(le.Problems) != 3 {
		t.Fatalf("want 3 never-used problems, got %v", err)
	}
	for i, ptr := range []string{"/overlay/#/x-name", "/overlay/~1$defs~1JsonRpcMessage/x-go-name", "/overlay/~1$defs~1SessionEvent~1oneOf~10/x-name"} {
		p := le.Problems[i]
		if p.File != op || p.Line != i+2 || p.Pointer != ptr || !strings.Contains(p.Msg, "never used") {
			t.Errorf("problem %d: %s, want never used at %s line %d", i, p, ptr, i+2)
		}
	}
	_, op, err = loadWithOverlay(t, `{"overlay": {"/$defs/InitializeParams": {"x-go-name": "not exported"}}}`)
	if !asLoadError(err, &le) || !strings.Contains(err.Error(), "not an exported Go identifier") {
		t.Errorf("bad x-go-name from an overlay: %v", err)
	}
}

func asLoadError(err error, le **ir.LoadError) bool {
	e, ok := err.(*ir.LoadError)
	*le = e
	return ok
}

// TestKeywordTableIsComplete: the IR reads x- keywords only through its
// keyword table (gen/ir/extensions.go), which is also what an overlay may
// set. A string literal "x-..." in the IR's code that is not in the table,
// or a table entry the IR never reads, fails here.
func TestKeywordTableIsComplete(t *testing.T) {
	table := map[string]bool{}
	for _, kw := range ir.Keywords() {
		table[kw.Name] = true
	}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	lit := regexp.MustCompile(`^x-[a-z-]+$`)
	used := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil && lit.MatchString(s) && f != "extensions.go" {
					t.Errorf("%s: the IR reads %q directly; read it through its entry in extensions.go", fset.Position(x.Pos()), s)
				}
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && strings.HasPrefix(id.Name, "kw") && x.Sel.Name == "Name" && f != "extensions.go" {
					used[id.Name] = true
				}
			}
			return true
		})
	}
	src, _ := os.ReadFile("extensions.go")
	for _, m := range regexp.MustCompile(`(?m)^\t(kw\w+) = schemadoc\.Keyword\{Name: "(x-[a-z-]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !used[m[1]] {
			t.Errorf("%s (%s) is in the keyword table but the IR never reads it", m[1], m[2])
		}
		delete(table, m[2])
	}
	for k := range table {
		t.Errorf("Keywords() returns %s, which has no kw entry in extensions.go", k)
	}
}

package emit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/emit"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/jsonvalue"
)

// The published JSON-RPC schemas of ../shared/protocols (unmodified; see
// its README.md), each with the overlay testdata/protocols/<name>/
// overlay.json when there is one: they load, generate in all three
// languages, and the output compiles — one go vet, one mypy --strict, one
// pyright strict (when installed) and one tsc run for all three — and every
// official MCP example (../shared/protocols/mcp/2026-07-28/examples/<Type>/)
// validates as its type and round-trips equal through the Go and Python
// bindings, and type-checks as a literal of its TypeScript type (the
// TypeScript bindings decode nothing: a received value is the JSON as it
// is, so its declared type is what they add).
var publishedProtocols = []struct {
	name, schema, pyPkg string
}{
	{"mcp-2025-11-25", "mcp/2025-11-25/schema.json", "mcp20251125"},
	{"mcp-2026-07-28", "mcp/2026-07-28/schema.json", "mcp20260728"},
	{"acp", "acp/schema.json", "acp"},
}

const examplesOf = "mcp-2026-07-28"

func sharedProtocols(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(root, "..", "shared", "protocols"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("the published schemas are not beside the repository (../shared/protocols): %v", err)
	}
	return dir
}

// loadProtocol loads one published schema with its overlay.
func loadProtocol(t testing.TB, shared, name, schema string) *ir.Model {
	t.Helper()
	src := ir.Source{Path: filepath.Join(shared, schema)}
	if ov := filepath.Join(root, "testdata", "protocols", name, "overlay.json"); fileExists(ov) {
		src.Overlays = []string{ov}
	}
	m, err := ir.LoadSource(src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// example is one official example: its type and file.
type example struct {
	typ, path string
	raw       []byte
}

func readExamples(t *testing.T, dir string) []example {
	t.Helper()
	types, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, d := range types {
		files, err := filepath.Glob(filepath.Join(dir, d.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, example{d.Name(), f, raw})
		}
	}
	return out
}

func TestPublishedProtocols(t *testing.T) {
	shared := sharedProtocols(t)
	work := t.TempDir()
	models := map[string]*ir.Model{}
	for _, p := range publishedProtocols {
		m := loadProtocol(t, shared, p.name, p.schema)
		models[p.name] = m
		var files []ir.File
		for _, e := range emit.All {
			o := ir.Options{Version: goldenVersion}
			if e.Lang == "python" {
				o.Package = p.pyPkg
			}
			fs, err := e.Emit(m, o)
			if err != nil {
				t.Fatalf("%s: %s emitter: %v", p.name, e.Lang, err)
			}
			files = append(files, fs...)
		}
		for _, lang := range []string{"go", "python", "ts"} {
			dir := filepath.Join(work, lang, p.name)
			writeUnder(t, dir, files, lang)
		}
	}
	exDir := filepath.Join(shared, "mcp", "2026-07-28", "examples")
	examples := readExamples(t, exDir)
	if len(examples) != 129 {
		t.Fatalf("%d official examples, want 129", len(examples))
	}
	m := models[examplesOf]

	// Every example validates as its $defs type.
	for _, ex := range examples {
		ty := m.TypeByPointer("#/$defs/" + ex.typ)
		if ty == nil {
			t.Errorf("%s: no type %s", ex.path, ex.typ)
			continue
		}
		sch, err := m.Source().Compile(ty.Pointer)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(ex.raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", ex.path, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: not a valid %s: %v", ex.path, ex.typ, err)
		}
	}

	t.Run("go", func(t *testing.T) { protocolsGo(t, work, m, examples, exDir) })
	t.Run("python", func(t *testing.T) { protocolsPython(t, work, m, examples) })
	t.Run("ts", func(t *testing.T) { protocolsTS(t, work, m, examples) })
}

// protocolsGo vets the three Go packages in one module and runs, inside the
// MCP 2026-07-28 package, a test that decodes every example as its type and
// encodes it back.
func protocolsGo(t *testing.T, work string, m *ir.Model, examples []example, exDir string) {
	mod := filepath.Join(work, "go")
	writeFile(t, filepath.Join(mod, "go.mod"), []byte("module example.com/protocheck\n\ngo 1.26\n"))
	jv, err := os.ReadFile(filepath.Join(root, "gen", "wire", "jsonvalue", "jsonvalue.go"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "jsonvalue", "jsonvalue.go"), jv)
	var b strings.Builder
	fmt.Fprintf(&b, "package dshproto\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"os\"\n\t\"path/filepath\"\n\t\"sort\"\n\t\"testing\"\n\n\t\"example.com/protocheck/jsonvalue\"\n)\n\n")
	fmt.Fprintf(&b, "var examplesDir = %q\n\nvar decoders = map[string]func(json.RawMessage) (any, error){\n", exDir)
	seen := map[string]bool{}
	for _, ex := range examples {
		if seen[ex.typ] {
			continue
		}
		seen[ex.typ] = true
		ty := m.TypeByPointer("#/$defs/" + ex.typ)
		if ty == nil {
			continue
		}
		g := ty.Names.Of(ir.LangGo)
		switch ty.Kind {
		case ir.KindObject:
			fmt.Fprintf(&b, "\t%q: func(raw json.RawMessage) (any, error) { var v %s; err := json.Unmarshal(raw, &v); return v, err },\n", ex.typ, g)
		case ir.KindUnion:
			fmt.Fprintf(&b, "\t%q: func(raw json.RawMessage) (any, error) { return Decode%s(raw) },\n", ex.typ, g)
		default:
			fmt.Fprintf(&b, "\t%q: func(raw json.RawMessage) (any, error) { return decode%s(raw) },\n", ex.typ, g)
		}
	}
	b.WriteString(`}

func TestOfficialExamples(t *testing.T) {
	dirs, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(examplesDir, d.Name(), "*.json"))
		sort.Strings(files)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec := decoders[d.Name()]
			if dec == nil {
				t.Errorf("%s: no decoder for %s", f, d.Name())
				continue
			}
			v, err := dec(raw)
			if err != nil {
				t.Errorf("%s: decode as %s: %v", f, d.Name(), err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Errorf("%s: encode %s: %v", f, d.Name(), err)
				continue
			}
			if p, what, err := jsonvalue.Diff(raw, out); err != nil || what != "" {
				t.Errorf("%s: round trip differs at %s: %s %v", f, p, what, err)
				continue
			}
			n++
		}
	}
	fmt.Printf("round-tripped %d examples\n", n)
}
`)
	writeFile(t, filepath.Join(mod, examplesOf, "go", "dshproto", "examples_test.go"), []byte(b.String()))
	// -trimpath: compiled packages are cached by content, not by this
	// temporary directory (as in TestGoldenGo).
	run(t, mod, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "go", "vet", "-trimpath", "./...")
	out := run(t, mod, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "go", "test", "-trimpath", "-count=1", "-v", "-run", "TestOfficialExamples", "./"+examplesOf+"/go/dshproto")
	if !strings.Contains(out, fmt.Sprintf("round-tripped %d examples", len(examples))) {
		t.Errorf("go: not every example round-tripped:\n%s", out)
	}
}

// protocolsPython runs mypy --strict (with its cache snapshot, runMypy)
// and pyright strict when installed over the three packages at once, then
// decodes and encodes every example through the MCP 2026-07-28 package.
func protocolsPython(t *testing.T, work string, m *ir.Model, examples []example) {
	py := pythonExe(t)
	dir := filepath.Join(work, "python")
	var pkgs, paths []string
	for _, p := range publishedProtocols {
		pkgs = append(pkgs, filepath.Join(p.name, "python", p.pyPkg))
		paths = append(paths, filepath.Join(dir, p.name, "python"))
	}
	if os.Getenv("DSHGEN_PYTHON") != "" {
		runMypy(t, dir, []string{"MYPYPATH=" + strings.Join(paths, string(os.PathListSeparator))}, py,
			"published-protocols", append([]string{"--strict"}, pkgs...)...)
		if pr := pyrightPath(); pr != "" {
			quoted := make([]string, len(paths))
			for i, p := range paths {
				quoted[i] = fmt.Sprintf("%q", p)
			}
			cfg := filepath.Join(dir, "pyrightconfig.json")
			writeFile(t, cfg, []byte(`{"typeCheckingMode": "strict", "pythonVersion": "3.10", "extraPaths": [`+strings.Join(quoted, ", ")+`]}`))
			run(t, dir, nil, pr, append([]string{"-p", cfg}, pkgs...)...)
		}
	}
	pkg := ""
	for _, p := range publishedProtocols {
		if p.name == examplesOf {
			pkg = p.pyPkg
		}
	}
	var tbl []string
	seen := map[string]bool{}
	for _, ex := range examples {
		ty := m.TypeByPointer("#/$defs/" + ex.typ)
		if ty == nil || seen[ex.typ] {
			continue
		}
		seen[ex.typ] = true
		n := ty.Names.Of(ir.LangPython)
		if ty.Kind == ir.KindObject {
			tbl = append(tbl, fmt.Sprintf("%q: (T.%s.from_json, lambda x: x.to_json())", ex.typ, n))
		} else {
			tbl = append(tbl, fmt.Sprintf("%q: (T.decode_%s, T.encode_%s)", ex.typ, n, n))
		}
	}
	script := "import json, sys\nfrom " + pkg + " import types as T\nTABLE = {" + strings.Join(tbl, ",\n") + "}\n" + `
for line in sys.stdin:
    typ, path = line.rstrip("\n").split("\t")
    with open(path, encoding="utf-8") as f:
        value = json.load(f)
    try:
        dec, enc = TABLE[typ]
        print(json.dumps(enc(dec(value))))
    except Exception as e:
        print("!error " + type(e).__name__ + ": " + str(e).replace("\n", " "))
`
	writeFile(t, filepath.Join(dir, "roundtrip.py"), []byte(script))
	var in strings.Builder
	for _, ex := range examples {
		in.WriteString(ex.typ + "\t" + ex.path + "\n")
	}
	cmd := exec.Command(py, filepath.Join(dir, "roundtrip.py"))
	cmd.Dir = filepath.Join(dir, examplesOf, "python")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+cmd.Dir, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python round trip: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(examples) {
		t.Fatalf("python: %d answers for %d examples", len(lines), len(examples))
	}
	ok := 0
	for i, ex := range examples {
		if p, what, err := jsonvalue.Diff(ex.raw, []byte(lines[i])); err != nil || what != "" {
			t.Errorf("python: %s: round trip differs at %s: %s %v (%.200s)", ex.path, p, what, err, lines[i])
			continue
		}
		ok++
	}
	t.Logf("python: %d/%d examples round-trip", ok, len(examples))
}

// pyrightPath is the pyright testdata/python/check.sh installs ("" when it
// is not installed).
func pyrightPath() string {
	work := os.Getenv("DSHGEN_PY_WORK")
	if work == "" {
		work = filepath.Join(os.TempDir(), "dshgen-pycheck")
	}
	p := filepath.Join(work, "node", "node_modules", ".bin", "pyright")
	if fileExists(p) {
		return p
	}
	return ""
}

// generatedCompilerOptions reads the compilerOptions of a generated
// tsconfig.json (which starts with a comment header).
func generatedCompilerOptions(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		CompilerOptions map[string]any `json:"compilerOptions"`
	}
	if i := bytes.IndexByte(raw, '{'); i < 0 || json.Unmarshal(raw[i:], &cfg) != nil || cfg.CompilerOptions == nil {
		t.Fatalf("generated %s: %s", path, raw)
	}
	return cfg.CompilerOptions
}

// protocolsTS compiles the three TypeScript packages with their generated
// strict options in one tsc run, then round-trips every example through the
// MCP 2026-07-28 bindings with the conformance TypeScript driver (a
// header's "type": the value is read member by member as the TypeScript
// type says, and what the type declares is written back).
func protocolsTS(t *testing.T, work string, m *ir.Model, examples []example) {
	tsc := tscPath(t)
	dir := filepath.Join(work, "ts")
	opts := generatedCompilerOptions(t, filepath.Join(dir, examplesOf, "ts", "tsconfig.json"))
	delete(opts, "rootDir")
	delete(opts, "outDir")
	opts["noEmit"] = true
	opts["typeRoots"] = []string{nodeTypes(t)}
	var include []string
	for _, p := range publishedProtocols {
		include = append(include, p.name+"/ts/src/*.ts")
	}
	top, err := json.Marshal(map[string]any{"compilerOptions": opts, "include": include})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "tsconfig.json"), top)
	runTSC(t, tsc, "-p", filepath.Join(dir, "tsconfig.json"))

	var in strings.Builder
	for i, ex := range examples {
		ty := m.TypeByPointer("#/$defs/" + ex.typ)
		if ty == nil {
			t.Fatalf("no type %s", ex.typ)
		}
		var line bytes.Buffer
		if err := json.Compact(&line, ex.raw); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&in, "{\"seq\":%d,\"type\":%q}\t%s\n", i+1, ty.Names.Of(ir.LangTS), line.String())
	}
	driver, err := filepath.Abs(filepath.Join(root, "gen", "wire", "conformance", "drivers", "ts", "driver.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", driver)
	cmd.Env = append(os.Environ(), "DSHGEN_TS_OUT="+filepath.Join(dir, examplesOf, "ts"),
		"DSHGEN_TYPESCRIPT="+filepath.Dir(filepath.Dir(tsc)), "DSHGEN_TS_CACHE="+filepath.Join(work, "ts-cache"))
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ts driver: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(examples)+1 {
		t.Fatalf("ts driver: %d lines for %d examples\n%s", len(lines), len(examples), stderr.String())
	}
	ok := 0
	for i, ex := range examples {
		_, got, _ := strings.Cut(lines[i+1], "\t")
		if p, what, err := jsonvalue.Diff(ex.raw, []byte(got)); err != nil || what != "" {
			t.Errorf("ts: %s: round trip differs at %s: %s %v (%.200s)", ex.path, p, what, err, got)
			continue
		}
		ok++
	}
	t.Logf("ts: %d/%d examples round-trip", ok, len(examples))
}

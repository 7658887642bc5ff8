package emit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
)

// The golden output compiled and exercised: every case's Go package is
// gofmt-clean, vets and passes the case's expectations
// (testdata/golden/<case>/check.go.txt); every Python package imports with
// warnings as errors and byte-compiles (and passes mypy --strict where the
// Python checks' tools are installed); every TypeScript package compiles
// with tsc, loose and with the generated strict options, together with the
// case's testdata/golden/<case>/check.ts.

// casesWith returns the cases whose output has files under dir (go,
// python, ts).
func casesWith(t *testing.T, dir string) []goldenCase {
	t.Helper()
	all := generateCases(t)
	var out []goldenCase
	for _, c := range goldenCases(t) {
		for _, f := range all[c.Name()].files {
			if strings.HasPrefix(f.Path, dir+"/") {
				out = append(out, c)
				break
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no case generates %s/", dir)
	}
	return out
}

// writeCase writes one case's files under prefix into dir.
func writeCase(t *testing.T, dir string, c goldenCase, prefix string) {
	t.Helper()
	writeUnder(t, dir, generateCases(t)[c.Name()].files, prefix)
}

// writeUnder writes the files under prefix (go, python, ts) into dir.
func writeUnder(t *testing.T, dir string, files []ir.File, prefix string) {
	t.Helper()
	var some []ir.File
	for _, f := range files {
		if strings.HasPrefix(f.Path, prefix+"/") {
			some = append(some, f)
		}
	}
	if _, err := output.Write([]output.Target{{Dir: dir, Files: some, NoManifest: true}}); err != nil {
		t.Fatal(err)
	}
}

// writeRevisions writes the schema revisions' files under prefix into
// dir/revision<N>.
func writeRevisions(t *testing.T, dir, prefix string) {
	t.Helper()
	i := 0
	for _, files := range revisions(t) {
		i++
		writeUnder(t, filepath.Join(dir, fmt.Sprintf("revision%d", i)), files, prefix)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir and fails the test on a non-zero exit.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// TestGoldenGo builds one module holding every case's Go package (c<NN>/go/
// dshproto) with its expectations beside it, and runs gofmt -l, go vet and
// go test over it.
func TestGoldenGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go tool is needed to compile generated code")
	}
	mod := t.TempDir()
	writeFile(t, filepath.Join(mod, "go.mod"), []byte("module example.com/casecheck\n\ngo 1.26\n"))
	jv, err := os.ReadFile(filepath.Join(root, "gen", "wire", "jsonvalue", "jsonvalue.go"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "jsonvalue", "jsonvalue.go"), jv)
	common, err := os.ReadFile(filepath.Join(root, "testdata", "golden", "common.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checks := 0
	for _, c := range casesWith(t, "go") {
		pkg := "c" + strings.NewReplacer("-", "_").Replace(c.Case)
		if stem := strings.TrimSuffix(c.Schema, ".json"); stem != "schema" {
			pkg += "_" + strings.NewReplacer("-", "_").Replace(stem) // a case's other schemas
		}
		dir := filepath.Join(mod, pkg)
		writeCase(t, dir, c, "go")
		caseDir, err := filepath.Abs(filepath.Join(root, "testdata", "cases", c.Case))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "doc.go"), []byte("// Package check runs one case's expectations.\npackage check\n"))
		writeFile(t, filepath.Join(dir, "common_test.go"), common)
		writeFile(t, filepath.Join(dir, "case_test.go"), []byte(fmt.Sprintf("package check\n\nvar caseDir = %q\n", caseDir)))
		// check-<schema stem>.go.txt is one schema's expectations, else
		// check.go.txt the case's.
		check, err := os.ReadFile(filepath.Join(root, "testdata", "golden", c.Case, "check-"+strings.TrimSuffix(c.Schema, ".json")+".go.txt"))
		if err != nil {
			check, err = os.ReadFile(filepath.Join(root, "testdata", "golden", c.Case, "check.go.txt"))
		}
		if err == nil {
			check = bytes.ReplaceAll(check, []byte(`"example.com/casecheck/go/dshproto"`), []byte(`"example.com/casecheck/`+pkg+`/go/dshproto"`))
			writeFile(t, filepath.Join(dir, "check_test.go"), check)
			checks++
		}
	}
	writeRevisions(t, mod, "go")
	if checks < 8 {
		t.Fatalf("only %d cases have Go expectations (testdata/golden/<case>/check.go.txt)", checks)
	}
	if out := run(t, mod, nil, "gofmt", "-l", "."); out != "" {
		t.Fatalf("generated Go is not gofmt-clean:\n%s", out)
	}
	// -trimpath: the build cache then keys the packages by their content,
	// not by this temporary directory, so a case whose output did not change
	// since the last run is not compiled again (the checks still run).
	run(t, mod, nil, "go", "vet", "-trimpath", "./...")
	run(t, mod, nil, "go", "test", "-trimpath", "-count=1", "./...")

	// Case 07: no description became a directive, and go doc shows them.
	for _, f := range generateCases(t)["07-description-escaping/schema"].files {
		for i, line := range strings.Split(string(f.Data), "\n") {
			if strings.HasPrefix(line, "//go:") || strings.HasPrefix(line, "//line ") {
				t.Errorf("%s:%d: a description became a directive: %q", f.Path, i+1, line)
			}
		}
	}
	out := run(t, mod, nil, "go", "doc", "-all", "./c07_description_escaping/go/dshproto", "GlobRule")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "A comment closer */ appears here") {
		t.Errorf("go doc GlobRule lacks the description text:\n%s", out)
	}
}

// pythonExe is the interpreter the Python checks use: DSHGEN_PYTHON (the
// Python checks' venv, required to work when set), else python3 on PATH.
func pythonExe(t *testing.T) string {
	t.Helper()
	py := os.Getenv("DSHGEN_PYTHON")
	if py == "" {
		py = "python3"
	}
	if _, err := exec.LookPath(py); err != nil {
		if os.Getenv("DSHGEN_PYTHON") != "" {
			t.Fatalf("DSHGEN_PYTHON=%s: %v", py, err)
		}
		t.Skipf("%s not found", py)
	}
	return py
}

// TestGoldenPython imports every case's package with warnings as errors
// (an invalid escape in a docstring is a warning) and byte-compiles it;
// with the Python checks' venv (DSHGEN_PYTHON) it also runs mypy --strict
// over all of them (with its cache snapshot, runMypy).
func TestGoldenPython(t *testing.T) {
	py := pythonExe(t)
	dir := t.TempDir()
	// Each case schema gets a directory of its own: a write replaces the
	// whole python/ tree it targets, as generate does. Schemas of one case
	// share its package name, so mypy checks them in batches of distinct
	// names (one batch unless a case has several schemas).
	type batch struct{ pkgs, paths []string }
	var batches []*batch
	for _, c := range casesWith(t, "python") {
		caseDir := filepath.Join(dir, filepath.FromSlash(c.Name()))
		writeCase(t, caseDir, c, "python")
		pkg := c.options("python").Package
		var b *batch
		for _, x := range batches {
			taken := false
			for _, p := range x.pkgs {
				taken = taken || filepath.Base(p) == pkg
			}
			if !taken {
				b = x
				break
			}
		}
		if b == nil {
			b = &batch{}
			batches = append(batches, b)
		}
		b.pkgs = append(b.pkgs, filepath.Join(filepath.FromSlash(c.Name()), "python", pkg))
		b.paths = append(b.paths, filepath.Join(caseDir, "python"))
		cmd := exec.Command(py, "-W", "error", "-c", "import "+pkg+"; import "+pkg+".types, "+pkg+".methods")
		cmd.Dir = filepath.Join(caseDir, "python")
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: import failed: %v\n%s", c.Name(), err, b)
		}
		cmd = exec.Command(py, "-W", "error", "-m", "compileall", "-q", pkg)
		cmd.Dir = filepath.Join(caseDir, "python")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: compileall failed: %v\n%s", c.Name(), err, b)
		}
	}
	if os.Getenv("DSHGEN_PYTHON") == "" {
		return
	}
	for i, b := range batches {
		runMypy(t, dir, []string{"MYPYPATH=" + strings.Join(b.paths, string(os.PathListSeparator))}, py,
			fmt.Sprintf("golden-python-%d", i+1), append([]string{"--strict"}, b.pkgs...)...)
	}
}

// tscPath returns the pinned TypeScript compiler (testdata/ts, npm ci), or
// skips the test when it is not installed (DSHGEN_REQUIRE_TSC makes it
// required).
func tscPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(root, "testdata", "ts", "node_modules", "typescript", "bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("DSHGEN_REQUIRE_TSC") != "" {
			t.Fatalf("TypeScript is not installed (%v): run npm ci in testdata/ts", err)
		}
		t.Skipf("TypeScript is not installed (run npm ci in testdata/ts, or testdata/ts/check.sh): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	return p
}

// nodeTypes is the absolute path of testdata/ts's @types (the generated
// package's @types/node devDependency).
func nodeTypes(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(root, "testdata", "ts", "node_modules", "@types"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runTSC(t *testing.T, tsc string, args ...string) {
	t.Helper()
	cmd := exec.Command("node", append([]string{tsc}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("tsc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestGoldenTS compiles every case's package and every schema revision's
// (schema/*/: the shipped 0.0.1, out/ts, and 0.2.1, out/0.2.1/ts, whose
// sources the drift check proves equal to these but for the version in the
// header comment) in one tsc process each time: once without
// exactOptionalPropertyTypes and noUncheckedIndexedAccess (consumers may not set them), then with the
// generated tsconfig.json's strict options plus each case's
// testdata/golden/<case>/check.ts (whose @ts-expect-error lines only hold
// under the strict options). The first run writes the JavaScript without
// comments, in which case 07's descriptions must have left no code.
func TestGoldenTS(t *testing.T) {
	tsc := tscPath(t)
	dir := t.TempDir()
	for _, c := range casesWith(t, "ts") {
		out := filepath.Join(dir, c.Case)
		writeCase(t, out, c, "ts")
		if check, err := os.ReadFile(filepath.Join(root, "testdata", "golden", c.Case, "check.ts")); err == nil {
			writeFile(t, filepath.Join(out, "ts", "src", "zz-check.ts"), check)
		}
	}
	// The shipped schema is revision 0.0.1, one of the revisions.
	writeRevisions(t, dir, "ts")
	// The generated compiler options, read from one generated tsconfig.json
	// (JSONC: its first lines are the header comment; every revision's has
	// the same options).
	raw, err := os.ReadFile(filepath.Join(dir, "revision1", "ts", "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		CompilerOptions map[string]any `json:"compilerOptions"`
	}
	if err := json.Unmarshal(raw[bytes.IndexByte(raw, '{'):], &cfg); err != nil {
		t.Fatalf("generated tsconfig.json: %v", err)
	}
	if cfg.CompilerOptions["strict"] != true || cfg.CompilerOptions["exactOptionalPropertyTypes"] != true || cfg.CompilerOptions["noUncheckedIndexedAccess"] != true {
		t.Errorf("generated tsconfig.json lacks a strict option: %v", cfg.CompilerOptions)
	}
	// The transport imports node:* modules: the generated package's
	// @types/node devDependency is testdata/ts's.
	cfg.CompilerOptions["typeRoots"] = []string{nodeTypes(t)}
	delete(cfg.CompilerOptions, "rootDir")
	delete(cfg.CompilerOptions, "outDir")
	cfg.CompilerOptions["noEmit"] = true
	write := func(name string, opts map[string]any, exclude []string) string {
		b, _ := json.MarshalIndent(map[string]any{"compilerOptions": opts, "include": []string{"*/ts/src"}, "exclude": exclude}, "", "  ")
		p := filepath.Join(dir, name)
		writeFile(t, p, b)
		return p
	}
	// The loose run also writes the JavaScript, without comments, for the
	// check below (type-checking options do not change what is emitted).
	loose := map[string]any{}
	for k, v := range cfg.CompilerOptions {
		loose[k] = v
	}
	loose["exactOptionalPropertyTypes"] = false
	loose["noUncheckedIndexedAccess"] = false
	delete(loose, "noEmit")
	loose["removeComments"] = true
	loose["declaration"] = false
	loose["outDir"] = filepath.Join(dir, "js")
	runTSC(t, tsc, "-p", write("tsconfig.loose.json", loose, []string{"*/ts/src/zz-check.ts"}))
	runTSC(t, tsc, "-p", write("tsconfig.strict.json", cfg.CompilerOptions, nil))
	t.Run("07 without comments", func(t *testing.T) {
		noInjectedCode(t, filepath.Join(dir, "js", "07-description-escaping", "ts", "src"))
	})
}

// noInjectedCode checks the description-escaping case compiled with
// comments removed (its JavaScript in dist): no word of the descriptions
// may be left in the code.
func noInjectedCode(t *testing.T, dist string) {
	entries, err := os.ReadDir(dist)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no JavaScript output: %v", err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dist, e.Name()))
		for _, bad := range []string{"injected", "SystemExit"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s: %q from a description is code: %s", e.Name(), bad, b)
			}
		}
	}
	for _, f := range generateCases(t)["07-description-escaping/schema"].files {
		if f.Path == "ts/src/types.ts" && !bytes.Contains(f.Data, []byte(`A comment closer *\/ appears here`)) {
			t.Errorf("types.ts does not keep the description with */ escaped:\n%s", f.Data)
		}
	}
}

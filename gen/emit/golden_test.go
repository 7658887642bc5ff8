package emit_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dshgen/dshgen/gen/emit"
	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
)

// update rewrites testdata/golden from the emitters.
var update = flag.Bool("update", false, "rewrite testdata/golden/<case>/<schema>/ from the emitters (then review the diff)")

// root is the repository root (tests run in gen/emit).
const root = "../.."

// goldenVersion is the dshgen version the golden files' headers name.
const goldenVersion = "golden"

// goldenCase is one schema of one case of testdata/cases: the input and
// where its expected output lives.
type goldenCase struct {
	Case   string // case directory name, e.g. "01-discriminated-oneof-const"
	Schema string // schema file name, e.g. "schema.json"
	Path   string // the schema's path from the repository root
	Dir    string // testdata/golden/<case>/<schema without .json>, from the repository root
}

// Name is "<case>/<schema stem>".
func (c goldenCase) Name() string { return c.Case + "/" + strings.TrimSuffix(c.Schema, ".json") }

// options are the emitter options of a case: the Python package is named
// after the case number ("case01"), so the pytest suite imports them side by
// side; Go and TypeScript keep the default package name.
func (c goldenCase) options(lang string) ir.Options {
	o := ir.Options{Version: goldenVersion}
	if lang == "python" {
		o.Package = "case" + strings.SplitN(c.Case, "-", 2)[0]
	}
	return o
}

// goldenCases lists every schema*.json of every case under testdata/cases
// (the shared cases' own files: nothing is copied into the golden tree).
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "testdata", "cases", "*", "schema*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no case schemas under testdata/cases: %v", err)
	}
	var out []goldenCase
	for _, p := range paths {
		c := goldenCase{Case: filepath.Base(filepath.Dir(p)), Schema: filepath.Base(p)}
		c.Path = filepath.ToSlash(filepath.Join("testdata", "cases", c.Case, c.Schema))
		c.Dir = filepath.ToSlash(filepath.Join("testdata", "golden", c.Case, strings.TrimSuffix(c.Schema, ".json")))
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// generated is what a case produces: every file of every emitter (paths
// relative to the case's golden directory), or the load error.
type generated struct {
	files []ir.File
	err   string
}

var (
	generatedOnce sync.Once
	generatedAll  map[string]generated
)

// generateCases loads and emits every case once per test binary.
func generateCases(t *testing.T) map[string]generated {
	t.Helper()
	cases := goldenCases(t)
	generatedOnce.Do(func() {
		generatedAll = map[string]generated{}
		for _, c := range cases {
			generatedAll[c.Name()] = generate(c)
		}
	})
	return generatedAll
}

func generate(c goldenCase) generated {
	m, err := ir.Load(filepath.Join(root, filepath.FromSlash(c.Path)))
	if err != nil {
		// The loader names the file as given; name it from the root.
		return generated{err: strings.ReplaceAll(err.Error(), filepath.Join(root, "")+string(filepath.Separator), "") + "\n"}
	}
	var files []ir.File
	for _, e := range emit.All {
		fs, err := e.Emit(m, c.options(e.Lang))
		if err != nil {
			return generated{err: fmt.Sprintf("%s emitter: %v\n", e.Lang, err)}
		}
		files = append(files, fs...)
	}
	return generated{files: files}
}

// want is the expected content of a case's golden directory: the emitted
// files, or error.txt with the load error.
func (g generated) want() []ir.File {
	if g.err != "" {
		return []ir.File{{Path: "error.txt", Data: []byte(g.err)}}
	}
	return g.files
}

// TestGolden compares what the three emitters print for every case schema
// with testdata/golden/<case>/<schema>/ (go test ./gen/emit -update
// rewrites them): the same files, the same bytes, and nothing else. A schema
// that does not load has its error in error.txt instead.
func TestGolden(t *testing.T) {
	all := generateCases(t)
	for _, c := range goldenCases(t) {
		t.Run(c.Name(), func(t *testing.T) {
			g := all[c.Name()]
			dir := filepath.Join(root, filepath.FromSlash(c.Dir))
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if _, err := output.Write([]output.Target{{Dir: dir, Files: g.want(), NoManifest: true}}); err != nil {
					t.Fatal(err)
				}
				return
			}
			fix := "go test ./gen/emit -update, then review the diff"
			want := map[string]bool{}
			for _, f := range g.want() {
				want[f.Path] = true
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil {
					t.Errorf("%s/%s: missing (fix: %s)", c.Dir, f.Path, fix)
					continue
				}
				if !bytes.Equal(got, f.Data) {
					t.Errorf("%s/%s: differs from the emitter's output at line %d (fix: %s)", c.Dir, f.Path, firstDiffLine(got, f.Data), fix)
				}
			}
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !output.IgnoredPath(p) {
					rel, _ := filepath.Rel(dir, p)
					if !want[filepath.ToSlash(rel)] {
						t.Errorf("%s/%s: not generated any more (stale; fix: %s)", c.Dir, filepath.ToSlash(rel), fix)
					}
				}
				return nil
			})
		})
	}
}

// TestGoldenTreeHasNoStrays: testdata/golden holds a directory per case
// schema and the per-case checks (check.go.txt, check.ts), nothing else.
func TestGoldenTreeHasNoStrays(t *testing.T) {
	known := map[string]bool{"testdata/golden/common.go.txt": true}
	cases := map[string]bool{}
	for _, c := range goldenCases(t) {
		known[c.Dir] = true
		cases[c.Case] = true
		known["testdata/golden/"+c.Case+"/check-"+strings.TrimSuffix(c.Schema, ".json")+".go.txt"] = true
	}
	for c := range cases {
		for _, f := range []string{"check.go.txt", "check.ts"} {
			known["testdata/golden/"+c+"/"+f] = true
		}
	}
	entries, _ := filepath.Glob(filepath.Join(root, "testdata", "golden", "*"))
	more, _ := filepath.Glob(filepath.Join(root, "testdata", "golden", "*", "*"))
	for _, p := range append(entries, more...) {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if st, err := os.Stat(p); err == nil && st.IsDir() && cases[strings.TrimPrefix(rel, "testdata/golden/")] {
			continue // a case's directory
		}
		if !known[rel] {
			t.Errorf("%s: no case schema or check belongs to it (a case left testdata/cases?)", rel)
		}
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// revisions are the schema revisions kept beside the shipped one
// (schema/<version>/*.schema.json): real inputs, generated in memory.
func revisions(t *testing.T) map[string][]ir.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(root, "schema", "*", "*.schema.json"))
	out := map[string][]ir.File{}
	for _, p := range paths {
		m, err := ir.Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		name := filepath.ToSlash(rel)
		for _, e := range emit.All {
			fs, err := e.Emit(m, ir.Options{Version: goldenVersion})
			if err != nil {
				t.Fatalf("%s: %s emitter: %v", name, e.Lang, err)
			}
			out[name] = append(out[name], fs...)
		}
	}
	return out
}

// generatedFiles returns every generated file to check for style: the
// golden cases' output, the shipped schema's (out/) and the other schema
// revisions', by a path that says which.
func generatedFiles(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, g := range generateCases(t) {
		for _, f := range g.files {
			out["testdata/golden/"+name+"/"+f.Path] = f.Data
		}
	}
	for name, files := range revisions(t) {
		for _, f := range files {
			out[name+":"+f.Path] = f.Data
		}
	}
	filepath.WalkDir(filepath.Join(root, "out"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || output.IgnoredPath(p) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out
}

// TestSpooled: with ir.Options.Spool every emitter gives, for the shipped
// schemas and the cases, the same files with the same bytes as in memory,
// and the Go and Python emitters print their type files into the spool.
func TestSpooled(t *testing.T) {
	schemas, _ := filepath.Glob(filepath.Join(root, "schema", "*", "*.schema.json"))
	cases, _ := filepath.Glob(filepath.Join(root, "testdata", "cases", "*", "schema*.json"))
	spool := ir.NewSpool()
	defer spool.Close()
	printed := map[string]bool{}
	for _, s := range append(schemas, cases...) {
		m, err := ir.Load(s)
		if err != nil {
			continue // a case of a refused schema
		}
		for _, e := range emit.All {
			mem, err := e.Emit(m, ir.Options{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			disk, err := e.Emit(m, ir.Options{Version: "test", Spool: spool})
			if err != nil {
				t.Fatal(err)
			}
			if len(mem) != len(disk) {
				t.Fatalf("%s %s: %d files in memory, %d spooled", s, e.Lang, len(mem), len(disk))
			}
			for i := range mem {
				got, err := disk[i].Bytes()
				if err != nil || disk[i].Path != mem[i].Path || !bytes.Equal(got, mem[i].Data) {
					t.Errorf("%s: %s spooled differs from %s in memory (%v)", s, disk[i].Path, mem[i].Path, err)
				}
				if disk[i].Spool != nil {
					printed[e.Lang] = true
				}
			}
		}
	}
	if !printed["go"] || !printed["python"] {
		t.Errorf("printed into the spool: %v, want go and python", printed)
	}
}

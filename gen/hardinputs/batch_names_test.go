package hardinputs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder collects what a batch's check reports, for the tests that
// check the attribution; a failure to set the batch up fails the test.
type recorder struct {
	t    *testing.T
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.t.Fatalf(format, args...) }

func (r *recorder) Logf(format string, args ...any) { r.t.Logf(format, args...) }

// wantNamed checks that the recorded errors are exactly one per case of
// want, each starting with the case's name and holding every string of
// want[case], and none against the batch.
func (r *recorder) wantNamed(t *testing.T, want map[string][]string) {
	t.Helper()
	got := map[string]string{}
	for _, e := range r.errs {
		c, _, _ := strings.Cut(e, ":")
		if _, ok := want[c]; !ok {
			t.Errorf("an error against %q, want errors only against %v:\n%s", c, sortedCases(want), e)
			continue
		}
		if got[c] != "" {
			t.Errorf("two errors against %s:\n%s\n---\n%s", c, got[c], e)
		}
		got[c] = e
	}
	for c, words := range want {
		if got[c] == "" {
			t.Errorf("no error against %s (want one naming %q); all errors:\n%s", c, words, strings.Join(r.errs, "\n---\n"))
			continue
		}
		for _, w := range words {
			if !strings.Contains(got[c], w) {
				t.Errorf("the error against %s does not name %q:\n%s", c, w, got[c])
			}
		}
	}
}

func sortedCases(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// writeFiles writes files (path relative to dir → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// addCases adds one package per case (case name → files) to a batch
// through add, each from a subtest named for the case, as the hostile
// cases do.
func addCases(t *testing.T, cases map[string]map[string]string, add func(t *testing.T, dir string)) {
	t.Helper()
	t.Run("cases", func(t *testing.T) {
		for name, files := range cases {
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				writeFiles(t, dir, files)
				add(t, dir)
			})
		}
	})
}

// TestBatchesNameTheCase checks that each batched checker of the hostile
// cases (one gofmt and go vet, one mypy --strict, one tsc over every
// case's package) fails on an error a case's package has and reports it
// against that case only: small packages, one clean and the others each
// with one error.
func TestBatchesNameTheCase(t *testing.T) {
	t.Parallel()
	t.Run("go", func(t *testing.T) {
		b := &goBatch{caseDirs: caseDirs{root: t.TempDir()}}
		addCases(t, map[string]map[string]string{
			"clean":   {"p/p.go": "package p\n\n// F is one.\nfunc F() int { return 1 }\n"},
			"vet":     {"p/p.go": "package p\n\nimport \"fmt\"\n\n// F prints.\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n"},
			"gofmt":   {"p/p.go": "package p\n\n// F is two.\nfunc F() int {   return 2 }\n"},
			"compile": {"p/p.go": "package p\n\n// F is wrong.\nfunc F() int { return \"x\" }\n"},
		}, b.add)
		rec := &recorder{t: t}
		b.check(rec)
		rec.wantNamed(t, map[string][]string{
			"vet":     {"go vet", "case_vet/go/p/p.go:6", "%d"},
			"gofmt":   {"gofmt -l", "case_gofmt/go/p/p.go"},
			"compile": {"go vet", "case_compile/go/p/p.go:4"},
		})
	})
	t.Run("python", func(t *testing.T) {
		if mypyCmd == nil {
			t.Skip("mypy is not installed")
		}
		b := &pyBatch{caseDirs: caseDirs{root: t.TempDir()}}
		clean := "from .m import f\n\n__all__ = [\"f\"]\n"
		addCases(t, map[string]map[string]string{
			"clean":   {"pkg/__init__.py": clean, "pkg/m.py": "def f(x: int) -> int:\n    return x\n"},
			"type":    {"pkg/__init__.py": clean, "pkg/m.py": "def f(x: int) -> int:\n    return str(x)\n"},
			"untyped": {"pkg/__init__.py": clean, "pkg/m.py": "def f(x):  # untyped: an error under --strict only\n    return x\n"},
		}, func(t *testing.T, dir string) { b.add(t, dir, "pkg") })
		rec := &recorder{t: t}
		b.check(rec)
		rec.wantNamed(t, map[string][]string{
			"type":    {"mypy --strict", "case_type/pkg/m.py:2", "return-value"},
			"untyped": {"mypy --strict", "case_untyped/pkg/m.py:1", "no-untyped-def"},
		})
	})
	t.Run("python-blocking", func(t *testing.T) {
		if mypyCmd == nil {
			t.Skip("mypy is not installed")
		}
		// A file mypy cannot parse stops the whole run (exit 2): the other
		// cases are then checked one by one (here the one other case).
		b := &pyBatch{caseDirs: caseDirs{root: t.TempDir()}}
		addCases(t, map[string]map[string]string{
			"syntax": {"pkg/__init__.py": "def (:\n"},
			"type":   {"pkg/__init__.py": "X: int = \"one\"\n"},
		}, func(t *testing.T, dir string) { b.add(t, dir, "pkg") })
		rec := &recorder{t: t}
		b.check(rec)
		rec.wantNamed(t, map[string][]string{
			"syntax": {"case_syntax/pkg/__init__.py:1", "exit 2"},
			"type":   {"case_type/pkg/__init__.py:1", "assignment"},
		})
	})
	t.Run("ts", func(t *testing.T) {
		if tscJS == "" {
			t.Skip("TypeScript is not registered")
		}
		b := &tsBatch{root: t.TempDir()}
		config := `{"compilerOptions": {"strict": true, "target": "ES2022", "module": "ES2022", "moduleResolution": "bundler", "lib": ["ES5"], "types": []}, "include": ["src"]}` + "\n"
		addCases(t, map[string]map[string]string{
			"clean":    {"tsconfig.json": config, "src/a.ts": "export const a: number = 1;\n"},
			"type":     {"tsconfig.json": config, "src/a.ts": "export const a: number = \"one\";\n"},
			"implicit": {"tsconfig.json": config, "src/a.ts": "export function f(x) { return x; }\n"},
		}, b.add)
		rec := &recorder{t: t}
		b.check(rec)
		rec.wantNamed(t, map[string][]string{
			"type":     {"tsc", "type/src/a.ts(1,14)", "TS2322"},
			"implicit": {"tsc", "implicit/src/a.ts(1,19)", "TS7006"},
		})
	})
}

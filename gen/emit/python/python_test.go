package python

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// root is the repository root (tests run in gen/emit/python).
const root = "../../.."

// TestDeterministic emits the shipped schema and the cases that load twice
// and expects the same bytes; every path is under python/ and every file
// starts with the provenance header.
func TestDeterministic(t *testing.T) {
	schemas := []string{filepath.Join(root, "schema/0.0.1/dsh-sdk-protocol.schema.json")}
	cases, _ := filepath.Glob(filepath.Join(root, "testdata/cases/*/schema*.json"))
	for _, s := range cases {
		if _, err := ir.Load(s); err == nil {
			schemas = append(schemas, s)
		}
	}
	if len(schemas) < 10 {
		t.Fatalf("only %d schemas", len(schemas))
	}
	for _, s := range schemas {
		m, err := ir.Load(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		a, err := Emit(m, ir.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Emit(m, ir.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d files, then %d", s, len(a), len(b))
		}
		header := "# " + strings.Join(m.HeaderLines(ir.Options{Version: "test"}), "\n# ")
		for i := range a {
			if a[i].Path != b[i].Path || !bytes.Equal(a[i].Data, b[i].Data) {
				t.Errorf("%s: %s differs between two runs", s, a[i].Path)
			}
			if !strings.HasPrefix(a[i].Path, "python/") {
				t.Errorf("%s: path %s is not under python/", s, a[i].Path)
			}
			if !strings.HasPrefix(string(a[i].Data), header+"\n") {
				t.Errorf("%s: %s does not start with the header", s, a[i].Path)
			}
			if len(a[i].Data) > 1<<20 {
				t.Errorf("%s: %s is %d bytes (over 1 MiB)", s, a[i].Path, len(a[i].Data))
			}
		}
	}
}

// TestDocEscaping checks the docstring and literal printers on the traps
// of case 07.
func TestDocEscaping(t *testing.T) {
	for in, want := range map[string]string{
		`a """ b`:       `a \"\"\" b`,
		`ends with "`:   `ends with \"`,
		`C:\temp\new \`: `C:\\temp\\new \\`,
		`""`:            `\"\"`,
		`say "hi" now`:  `say "hi" now`,
	} {
		if got := docText(in); got != want {
			t.Errorf("docText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pyStr("a\"b\\c\u2028\x01"); got != `"a\"b\\c\u2028\x01"` {
		t.Errorf("pyStr: %s", got)
	}
}

// TestPrinterImportsWhatItPrints: the import block lists exactly the
// importable names the printed code uses, in isort's order, and never a
// name that only occurs in a string, a comment, an attribute or a keyword
// argument.
func TestPrinterImportsWhatItPrints(t *testing.T) {
	p := newPrinter()
	p.P(`x: Mapping[str, Literal["a"]] = field(default_factory=dict)`)
	p.P(`fail_type("ClassVar", v)  # cast`)
	p.P(`y = obj.dataclass + f(overload=1) + _DecodeError("x") + _JsonValue`)
	got := p.imports()
	want := "from collections.abc import Mapping\n" +
		"from dataclasses import field\n" +
		"from typing import Literal\n\n" +
		"from .codec import DecodeError as _DecodeError\n" +
		"from .codec import JsonValue as _JsonValue\n" +
		"from .codec import fail_type"
	if got != want {
		t.Errorf("imports:\n%s\nwant:\n%s", got, want)
	}
}

// TestBigUnionMembers checks the encoding of optional members of a union
// over bigUnionVariants variants (testdata/hostile case 15: 200 tagged
// variants, half of them with an optional member of the union itself):
// each goes through _put_Huge, and decoding then encoding nested values,
// with the member present, absent and an unknown variant, gives the input
// back.
func TestBigUnionMembers(t *testing.T) {
	m, err := ir.Load(filepath.Join(root, "testdata/hostile/15-large-union/schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Emit(m, ir.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Path, "/types.py") {
			src := string(f.Data)
			if n := strings.Count(src, `_put_Huge(d, "sub", self.sub)`); n != 100 {
				t.Errorf("%s: %d members encoded by _put_Huge, want the 100 optional members of type Huge", f.Path, n)
			}
			if strings.Contains(src, "self.sub.to_json()") {
				t.Errorf("%s: an optional member of the big union is still encoded inline", f.Path)
			}
		}
	}
	py := os.Getenv("DSHGEN_PYTHON")
	if py == "" {
		if py, err = exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not on PATH (and DSHGEN_PYTHON is not set)")
		}
	}
	script := `
import json, sys
import dshproto.types as t
for v in json.loads(sys.argv[1]):
    got = t.decode_Huge(v).to_json()
    assert got == v, (v, got)
print("ok")
`
	values := `[{"type": "event/000", "n0": 1, "sub": {"type": "event/002", "s": "x", "sub": {"type": "event/198", "sub": {"type": "event/001"}}}},
		{"type": "event/000"}, {"type": "event/004", "sub": {"type": "not/known", "q": [1]}}, {"type": "event/199", "n199": 2}]`
	cmd := exec.Command(py, "-W", "error", "-c", script, values)
	cmd.Dir = filepath.Join(dir, "python")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("decode then encode of nested Huge values: %v\n%s", err, out)
	}
}

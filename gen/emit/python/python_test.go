package python

import (
	"bytes"
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

package ir

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/templates"
)

// TestPackageProblems: each language refuses the package names it cannot
// take, with the reason, and takes the others; the suggestion for every
// refused name is taken by every language.
func TestPackageProblems(t *testing.T) {
	all := Langs[:]
	cases := []struct {
		name string
		want map[Lang]string // reason fragments; a language not listed takes the name
	}{
		{"dshproto", nil},
		{"kv_proto2", nil},
		{"my-proto", map[Lang]string{LangGo: "is an identifier", LangPython: "ASCII identifier"}},
		{"123abc", map[Lang]string{LangGo: "not starting with a digit", LangPython: "not starting with a digit"}},
		{"a.b", map[Lang]string{LangGo: "is an identifier", LangPython: "ASCII identifier"}},
		{"type", map[Lang]string{LangGo: `"type" is a Go keyword`}},
		{"go", map[Lang]string{LangGo: `"go" is a Go keyword`}},
		{"class", map[Lang]string{LangPython: `"class" is a Python keyword`}},
		{"None", map[Lang]string{LangPython: `"None" is a Python keyword`, LangTS: "lower case"}},
		{"TodoProto", map[Lang]string{LangTS: "lower case"}},
		{"", map[Lang]string{LangGo: "empty", LangPython: "empty", LangTS: "empty"}},
		{"main", map[Lang]string{LangGo: "package main is a Go program"}},
		{"_", map[Lang]string{LangGo: "blank identifier", LangTS: "not starting with '.' or '_'"}},
		{"typing", map[Lang]string{LangPython: "standard-library module typing"}},
		{"dataclasses", map[Lang]string{LangPython: "standard-library module dataclasses"}},
		{"@acme/kv", map[Lang]string{LangGo: "is an identifier", LangPython: "ASCII identifier"}},
		{strings.Repeat("a", 215), map[Lang]string{LangTS: "at most 214"}},
	}
	for _, c := range cases {
		got := map[Lang]string{}
		for _, p := range PackageProblems(c.name, all) {
			got[p.Lang] = p.Why
		}
		for _, l := range all {
			want, bad := c.want[l]
			switch {
			case bad && !strings.Contains(got[l], want):
				t.Errorf("%q in %v: reason %q, want one with %q", c.name, l, got[l], want)
			case !bad && got[l] != "":
				t.Errorf("%q in %v: refused (%s), want it taken", c.name, l, got[l])
			}
		}
		err := CheckPackage(c.name, all)
		var pe *PackageError
		if (err == nil) != (len(c.want) == 0) || (err != nil && !errors.As(err, &pe)) {
			t.Errorf("%q: CheckPackage = %v", c.name, err)
			continue
		}
		if pe != nil && len(PackageProblems(pe.Suggest, all)) > 0 {
			t.Errorf("%q: suggestion %q is refused too: %v", c.name, pe.Suggest, PackageProblems(pe.Suggest, all))
		}
	}
	// Only the languages asked about count.
	if err := CheckPackage("my-proto", []Lang{LangTS}); err != nil {
		t.Errorf("my-proto for TypeScript alone: %v", err)
	}
	if err := CheckPackage("TodoProto", []Lang{LangGo, LangPython}); err != nil {
		t.Errorf("TodoProto for Go and Python: %v", err)
	}
}

// TestSuggestPackage: the suggestion stays close to what was asked for.
func TestSuggestPackage(t *testing.T) {
	for in, want := range map[string]string{
		"my-proto": "my_proto", "123abc": "pkg_123abc", "a.b": "a_b", "type": "typeproto",
		"class": "classproto", "TodoProto": "todoproto", "": "dshproto", "--": "dshproto",
		"@acme/kv": "kv", "main": "mainproto", "typing": "typingproto", "My Proto!": "my_proto",
	} {
		if got := SuggestPackage(in, Langs[:]); got != want {
			t.Errorf("SuggestPackage(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPackageNamesGoParses: a name the check gives Go is one Go's parser
// takes as a package clause, and one it refuses as not an identifier or a
// keyword is one the parser refuses (main and _ parse, but no other
// package can import them).
func TestPackageNamesGoParses(t *testing.T) {
	for _, name := range []string{"dshproto", "kv_proto2", "Proto", "é", "my-proto", "123abc", "a.b", "type", "go", "func", "range", "class", "x y"} {
		_, err := parser.ParseFile(token.NewFileSet(), "p.go", "package "+name+"\n", parser.PackageClauseOnly)
		refused := len(PackageProblems(name, []Lang{LangGo})) > 0
		if (err != nil) != refused {
			t.Errorf("package %q: parser error %v, check refuses: %v", name, err, refused)
		}
	}
}

// TestPythonModulesFromTemplates: the standard-library modules a package
// name must not take are those the Python templates and the emitter
// import, read from them: every module a template imports at its top level
// is there, and each entry is imported by a template or PyImports.
func TestPythonModulesFromTemplates(t *testing.T) {
	mods, err := ReservedNames("python modules")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := fs.Glob(templates.FS, "python/*.tmpl")
	var src strings.Builder
	for _, f := range files {
		b, _ := fs.ReadFile(templates.FS, f)
		src.Write(b)
	}
	for _, m := range []string{"json", "typing", "collections", "dataclasses", "asyncio", "enum", "sys"} {
		if !mods.Has(m) {
			t.Errorf("module %s is not reserved", m)
		}
	}
	for m := range mods {
		fromPyImports := false
		for _, full := range PyImports {
			fromPyImports = fromPyImports || strings.SplitN(full, ".", 2)[0] == m
		}
		if !fromPyImports && !strings.Contains(src.String(), "import "+m+"\n") && !strings.Contains(src.String(), "from "+m) {
			t.Errorf("module %s is reserved, but nothing imports it", m)
		}
	}
	if mods.Has("__future__") {
		t.Errorf("__future__ is reserved")
	}
}

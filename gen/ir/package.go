package ir

import (
	"fmt"
	"go/token"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The generated package's name (Options.Package, dshgen's --package) is
// one name in every language: the Go package clause and directory
// (go/NAME), the Python import package and distribution (python/NAME,
// pyproject's name) and the npm package name (ts/package.json). Whether a
// language takes a name is decided here, once, from the same data the
// identifier rules use (reserved.go): Go's keywords (go/token), Python's
// keywords (names/python.txt) and the standard-library modules the
// generated Python imports (read from the Python templates and PyImports).

// PackageProblem is why one language cannot take a package name.
type PackageProblem struct {
	Lang Lang
	Why  string
}

var (
	pyPackageRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	npmNameRe   = regexp.MustCompile(`^(@[a-z0-9-~][a-z0-9-._~]*/)?[a-z0-9-~][a-z0-9-._~]*$`)
)

// PackageProblems returns why each of langs rejects name as the generated
// package's name, in langs' order; none when every one takes it.
func PackageProblems(name string, langs []Lang) []PackageProblem {
	var out []PackageProblem
	for _, l := range langs {
		if why := packageWhy(name, l); why != "" {
			out = append(out, PackageProblem{l, why})
		}
	}
	return out
}

// packageWhy is why lang rejects name ("" when it takes it).
func packageWhy(name string, lang Lang) string {
	if name == "" {
		return "the name is empty"
	}
	switch lang {
	case LangGo:
		switch {
		case token.IsKeyword(name):
			return fmt.Sprintf("%q is a Go keyword", name)
		case !token.IsIdentifier(name):
			return "a Go package name is an identifier: letters, digits and _, not starting with a digit"
		case name == "_":
			return "the blank identifier cannot name a Go package"
		case name == "main":
			return `package main is a Go program, which no other package can import`
		}
	case LangPython:
		keywords, _ := pythonNames()
		switch {
		case slices.Contains(keywords, name):
			return fmt.Sprintf("%q is a Python keyword: import %s does not parse", name, name)
		case !pyPackageRe.MatchString(name):
			return "a Python import package name is an ASCII identifier: letters, digits and _, not starting with a digit"
		}
		if r := reserved(); r.err == nil && r.pyModules.Has(name) {
			return fmt.Sprintf("the generated Python imports the standard-library module %s (%s): a package of that name would shadow it or be shadowed by it", name, r.pyModules[name])
		}
	case LangTS:
		switch {
		case len(name) > 214:
			return "an npm package name is at most 214 characters"
		case !npmNameRe.MatchString(name):
			return "an npm package name is lower case letters, digits, '-', '.', '_' and '~', not starting with '.' or '_', optionally @scope/ before it"
		}
	}
	return ""
}

// PackageError is a package name some target languages reject: each with
// its reason, and a name all of them take.
type PackageError struct {
	Name     string
	Problems []PackageProblem
	Suggest  string // see SuggestPackage
}

// Reasons renders the problems: "Go rejects it: ...; Python rejects it:
// ...", languages with the same reason together ("Go, Python and
// TypeScript reject it: the name is empty").
func (e *PackageError) Reasons() string {
	var whys []string
	by := map[string][]string{}
	for _, p := range e.Problems {
		if by[p.Why] == nil {
			whys = append(whys, p.Why)
		}
		by[p.Why] = append(by[p.Why], p.Lang.String())
	}
	var parts []string
	for _, why := range whys {
		langs := by[why]
		verb := " rejects it: "
		who := langs[0]
		if n := len(langs); n > 1 {
			verb = " reject it: "
			who = strings.Join(langs[:n-1], ", ") + " and " + langs[n-1]
		}
		parts = append(parts, who+verb+why)
	}
	return strings.Join(parts, "; ")
}

func (e *PackageError) Error() string {
	return fmt.Sprintf("package name %q: %s; try %q", e.Name, e.Reasons(), e.Suggest)
}

// CheckPackage returns a *PackageError when a language of langs rejects
// name as the package name; nil when all take it.
func CheckPackage(name string, langs []Lang) error {
	problems := PackageProblems(name, langs)
	if len(problems) == 0 {
		return nil
	}
	return &PackageError{Name: name, Problems: problems, Suggest: SuggestPackage(name, langs)}
}

// SuggestPackage returns a package name close to name that every one of
// langs takes: lower case, each run of other characters than ASCII
// letters and digits turned into one '_' (an @scope/ dropped), "pkg_"
// before a leading digit, "proto" after a reserved word; "dshproto" when
// nothing is left.
func SuggestPackage(name string, langs []Lang) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		return "dshproto"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "pkg_" + s
	}
	if len(PackageProblems(s, langs)) > 0 {
		s += "proto"
	}
	if len(s) > 214 || len(PackageProblems(s, langs)) > 0 {
		return "dshproto"
	}
	return s
}

// pyTemplateImportRe matches a top-level import of a Python template:
// "import json" or "from collections.abc import ...".
var pyTemplateImportRe = regexp.MustCompile(`(?m)^(?:import|from)\s+([A-Za-z_][A-Za-z0-9_.]*)`)

// pyImportedModules returns the top-level standard-library modules a
// Python template's source imports (not __future__, not relative imports),
// sorted.
func pyImportedModules(src string) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range pyTemplateImportRe.FindAllStringSubmatch(src, -1) {
		mod, _, _ := strings.Cut(g[1], ".")
		if mod == "__future__" || seen[mod] {
			continue
		}
		seen[mod] = true
		out = append(out, mod)
	}
	sort.Strings(out)
	return out
}

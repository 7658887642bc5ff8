package ir

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/dshgen/dshgen/templates"
)

// Reserved names. Nothing here copies by hand what the generated code
// declares: each language's reserved identifiers come from
//
//   - the language itself: Go's keywords (go/token); Python's keywords and
//     builtins (names/python.txt, printed by CPython 3.10-3.13); the
//     TypeScript compiler's keywords (names/typescript.txt);
//   - the runtime the generated package carries: the top-level names of
//     templates/go/*.go.tmpl (parsed by go/parser), of the Python templates
//     (every name a module binds at its top level) and the exports of the
//     TypeScript templates;
//   - the few members and imports the emitters print into every generated
//     type, kept below as tables (goMembers, pyMembers, pyImports,
//     pyClassScope) that a test checks against the generated code both ways:
//     an entry the code does not declare, or a name the code declares that
//     no entry lists, fails it.

var (
	//go:embed names/python.txt
	pythonNamesTxt string
	//go:embed names/typescript.txt
	typescriptNamesTxt string
)

// goMembers are the methods and fields the Go emitter gives every object
// struct (besides the schema's members); a member of that name would not
// compile.
var goMembers = []string{"Extra", "MarshalJSON", "UnmarshalJSON"}

// pyMembers are the attributes and methods the Python emitter gives the
// generated classes (objects: WIRE_NAMES, extra, from_json, to_json;
// unknown-tag variants: raw, tag).
var pyMembers = []string{"WIRE_NAMES", "extra", "from_json", "raw", "tag", "to_json"}

// PyImports are the standard-library names the generated Python modules
// import, by name, with their module: the Python printer imports them as
// the code uses them, and no schema type may take one (it would shadow the
// import).
var PyImports = map[string]string{
	"Callable":  "collections.abc",
	"ClassVar":  "typing",
	"Final":     "typing",
	"Literal":   "typing",
	"Mapping":   "collections.abc",
	"TypeAlias": "typing",
	"cast":      "typing",
	"dataclass": "dataclasses",
	"field":     "dataclasses",
	"overload":  "typing",
}

// pyClassScope are the builtins a generated class body names (in member
// annotations and decorators): an attribute of that name would shadow them
// for the rest of the class body.
var pyClassScope = []string{"bool", "classmethod", "dict", "float", "int", "list", "property", "str"}

// Reserved is one language's reserved identifiers, each with who reserves
// it (for messages and tests).
type Reserved map[string]string

func (r Reserved) add(by string, names ...string) {
	for _, n := range names {
		if _, ok := r[n]; !ok {
			r[n] = by
		}
	}
}

// Has reports whether name is reserved.
func (r Reserved) Has(name string) bool { _, ok := r[name]; return ok }

// Sorted returns the reserved names, sorted.
func (r Reserved) Sorted() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// reservedNames are the reserved identifiers of every language namespace
// the IR names things in.
type reservedNames struct {
	goTypes   Reserved // exported package-level names of the Go runtime
	goPackage Reserved // every package-level name of the Go runtime (derived names)
	goFields  Reserved // struct members
	pyTypes   Reserved // module-level names of types.py
	pyAttrs   Reserved // attributes of generated classes
	pyMethods Reserved // module-level names of methods.py (method constants)
	tsTypes   Reserved // names exported by the TypeScript package
	pyModules Reserved // standard-library modules the generated Python imports (not a package name)
	err       error
}

var reserved = sync.OnceValue(func() *reservedNames {
	r, err := loadReserved(templates.FS)
	if err != nil {
		return &reservedNames{err: err}
	}
	return r
})

func loadReserved(fsys fs.FS) (*reservedNames, error) {
	r := &reservedNames{
		goTypes: Reserved{}, goPackage: Reserved{}, goFields: Reserved{},
		pyTypes: Reserved{}, pyAttrs: Reserved{}, pyMethods: Reserved{}, tsTypes: Reserved{}, pyModules: Reserved{},
	}
	goFiles, _ := fs.Glob(fsys, "go/*.go.tmpl")
	for _, f := range goFiles {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		names, err := GoTopLevel(string(src))
		if err != nil {
			return nil, fmt.Errorf("templates/%s: %w", f, err)
		}
		for _, n := range names {
			r.goPackage.add("templates/"+f, n)
			if token.IsExported(n) {
				r.goTypes.add("templates/"+f, n)
			}
		}
	}
	r.goTypes.add("the Go method maps", goRequestMap, goNotificationMap)
	r.goFields.add("the Go emitter's object structs", goMembers...)

	pyKeywords, pyBuiltins := pythonNames()
	r.pyTypes.add("the Python language (keywords)", pyKeywords...)
	r.pyTypes.add("the Python language (builtins)", pyBuiltins...)
	codec, err := fs.ReadFile(fsys, "python/codec.py.tmpl")
	if err != nil {
		return nil, err
	}
	cm := PyModuleNames(string(codec))
	r.pyTypes.add("templates/python/codec.py.tmpl", cm.Helpers()...)
	for n := range PyImports {
		r.pyTypes.add("the imports of the generated Python modules", n)
		r.pyAttrs.add("the imports of the generated Python modules", n)
	}
	r.pyAttrs.add("the Python language (keywords)", pyKeywords...)
	r.pyMethods.add("the Python language (keywords)", pyKeywords...)
	r.pyAttrs.add("the Python emitter's classes", pyMembers...)
	r.pyAttrs.add("the Python emitter's class bodies", pyClassScope...)
	methods, err := fs.ReadFile(fsys, "python/methods.py.tmpl")
	if err != nil {
		return nil, err
	}
	r.pyMethods.add("templates/python/methods.py.tmpl", PyModuleNames(string(methods)).Names...)
	r.pyMethods.add("the Python method maps", pyRequestMap, pyNotificationMap)
	pyFiles, _ := fs.Glob(fsys, "python/*.tmpl")
	for _, f := range pyFiles {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		r.pyModules.add("imported by templates/"+f, pyImportedModules(string(src))...)
	}
	for _, mod := range PyImports {
		top, _, _ := strings.Cut(mod, ".")
		r.pyModules.add("imported by the Python emitter", top)
	}

	r.tsTypes.add("the TypeScript language (keywords)", dataLines(typescriptNamesTxt)...)
	tsFiles, _ := fs.Glob(fsys, "ts/*.ts.tmpl")
	for _, f := range tsFiles {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		r.tsTypes.add("templates/"+f, TSExports(string(src))...)
	}
	return r, nil
}

// dataLines returns the non-comment, non-empty lines of a names/*.txt file.
func dataLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// pythonNames splits names/python.txt ("keyword NAME" and "builtin NAME"
// lines) into the keywords and the builtins.
func pythonNames() (keywords, builtins []string) {
	for _, l := range dataLines(pythonNamesTxt) {
		kind, name, _ := strings.Cut(l, " ")
		if kind == "keyword" {
			keywords = append(keywords, name)
		} else {
			builtins = append(builtins, name)
		}
	}
	return keywords, builtins
}

// GoTopLevel returns the package-level identifiers (types, functions,
// variables, constants; not methods) that a Go source file declares. A
// "{{PKG}}" package clause placeholder is accepted.
func GoTopLevel(src string) ([]string, error) {
	src = strings.Replace(src, "package {{PKG}}", "package p", 1)
	f, err := parser.ParseFile(token.NewFileSet(), "runtime.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// PyModule is what a Python module (or module template) binds at its top
// level.
type PyModule struct {
	// Names are every name bound at the top level: def, class, assignments
	// and imports, sorted. Lines that start with a template action are
	// skipped (their names come from the model).
	Names []string
	// All is the module's __all__ (its public API), in order.
	All []string
	// Imported are the names the module binds by importing them.
	Imported map[string]bool
}

// Helpers are the module's public non-API names: not private (no leading
// underscore), not in __all__, not imported from elsewhere. The generated
// modules import codec.py's helpers by these names.
func (m PyModule) Helpers() []string {
	api := map[string]bool{}
	for _, n := range m.All {
		api[n] = true
	}
	var out []string
	for _, n := range m.Names {
		if !api[n] && !m.Imported[n] && !strings.HasPrefix(n, "_") {
			out = append(out, n)
		}
	}
	return out
}

var (
	pyDefRe    = regexp.MustCompile(`^(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)`)
	pyAssignRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*(?::|=[^=])`)
	pyImportRe = regexp.MustCompile(`^import\s+(.+)$`)
	pyFromRe   = regexp.MustCompile(`^from\s+\S+\s+import\s+(.+)$`)
	pyAllRe    = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"`)
)

// PyModuleNames scans Python source (a module or a module template) for the
// names its top level binds.
func PyModuleNames(src string) PyModule {
	m := PyModule{Imported: map[string]bool{}}
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			m.Names = append(m.Names, n)
		}
	}
	bind := func(list string) { // "a, b as c" → a, c
		for _, part := range strings.Split(strings.Trim(list, "() \t"), ",") {
			f := strings.Fields(part)
			n := ""
			switch {
			case len(f) == 1:
				n = strings.SplitN(f[0], ".", 2)[0]
			case len(f) == 3 && f[1] == "as":
				n = f[2]
			}
			add(n)
			m.Imported[n] = true
		}
	}
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || strings.HasPrefix(l, "{{") {
			continue
		}
		if g := pyFromRe.FindStringSubmatch(l); g != nil {
			list := g[1]
			if strings.HasPrefix(list, "(") {
				for !strings.Contains(list, ")") && i+1 < len(lines) {
					i++
					list += " " + strings.TrimSpace(lines[i])
				}
			}
			bind(list)
			continue
		}
		if g := pyImportRe.FindStringSubmatch(l); g != nil {
			bind(g[1])
			continue
		}
		if g := pyDefRe.FindStringSubmatch(l); g != nil {
			add(g[1])
			continue
		}
		if g := pyAssignRe.FindStringSubmatch(l); g != nil {
			add(g[1])
			if g[1] == "__all__" {
				body := l
				for !strings.Contains(body, ")") && !strings.Contains(body, "]") && i+1 < len(lines) {
					i++
					body += lines[i]
				}
				for _, q := range pyAllRe.FindAllStringSubmatch(body, -1) {
					m.All = append(m.All, q[1])
				}
			}
		}
	}
	sort.Strings(m.Names)
	return m
}

var tsExportRe = regexp.MustCompile(`(?m)^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:type|interface|const|let|var|function\*?|class|enum)\s+([A-Za-z_$][A-Za-z0-9_$]*)`)

// TSExports returns the names a TypeScript module (or module template)
// exports by declaration, sorted; names written by a template action are
// left out (they come from the model).
func TSExports(src string) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range tsExportRe.FindAllStringSubmatch(src, -1) {
		if !seen[g[1]] {
			seen[g[1]] = true
			out = append(out, g[1])
		}
	}
	sort.Strings(out)
	return out
}

// ReservedNames returns the reserved identifiers of one language namespace
// ("go types", "go fields", "python types", "python attributes", "python
// methods", "ts types", "python modules"), for tests and tools.
func ReservedNames(space string) (Reserved, error) {
	r := reserved()
	if r.err != nil {
		return nil, r.err
	}
	switch space {
	case "go types":
		return r.goTypes, nil
	case "go package":
		return r.goPackage, nil
	case "go fields":
		return r.goFields, nil
	case "python types":
		return r.pyTypes, nil
	case "python attributes":
		return r.pyAttrs, nil
	case "python methods":
		return r.pyMethods, nil
	case "ts types":
		return r.tsTypes, nil
	case "python modules":
		return r.pyModules, nil
	}
	return nil, fmt.Errorf("no namespace %q", space)
}

// ReservedTables returns the IR's tables of emitter-printed names (for the
// tests that check them against the generated code).
func ReservedTables() (goStruct, pyClass, pyScope []string, pyImports map[string]string) {
	return goMembers, pyMembers, pyClassScope, PyImports
}

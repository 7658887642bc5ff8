package emit_test

import (
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// The IR's tables of the names the emitters print into every generated
// type (see gen/ir/reserved.go) checked against the generated code, both
// ways: an entry the code does not declare is stale, a name the code
// declares that no entry lists is missing (and a schema name could take it).

func setOf(xs []string) []string {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	out := make([]string, 0, len(m))
	for x := range m {
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}

func sameSet(t *testing.T, what string, table, found []string) {
	t.Helper()
	table, found = setOf(table), setOf(found)
	if !reflect.DeepEqual(table, found) {
		t.Errorf("%s: the table lists %v, the generated code declares %v (a stale entry, or a member no entry lists)", what, table, found)
	}
}

// TestGoMembersTable: the methods and the json:"-" fields of generated Go
// object structs (everything besides the schema's members) are exactly
// the IR's goMembers.
func TestGoMembersTable(t *testing.T) {
	goMembers, _, _, _ := ir.ReservedTables()
	var found []string
	for name, src := range generatedFiles(t) {
		// the runtime's and the SDK's members are checked by TestGoSDKTables
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "runtime.go") || strings.HasSuffix(name, "transport.go") || strings.HasSuffix(name, "frames.go") ||
			strings.HasSuffix(name, "sdk.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.IsExported() {
					found = append(found, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fl := range st.Fields.List {
						if fl.Tag != nil && strings.Contains(fl.Tag.Value, `json:"-"`) {
							for _, n := range fl.Names {
								found = append(found, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sameSet(t, "gen/ir goMembers", goMembers, found)
}

var (
	pyClassRe  = regexp.MustCompile(`^class (\w+)`)
	pyMemberRe = regexp.MustCompile(`^    (?:def (\w+)\(|(\w+):)`)
	pyWireRe   = regexp.MustCompile(`"(\w+)": "`)
)

// pyClass is one class of a generated module: its class-level lines
// (4-space indented, outside docstrings) and its whole text.
type pyClass struct {
	lines []string
	text  string
}

// pyClasses returns the classes of a generated module, by name.
func pyClasses(src string) map[string]*pyClass {
	out := map[string]*pyClass{}
	var cur *pyClass
	inDoc := false
	for _, l := range strings.Split(src, "\n") {
		if m := pyClassRe.FindStringSubmatch(l); m != nil {
			cur = &pyClass{}
			out[m[1]] = cur
			continue
		}
		if l != "" && !strings.HasPrefix(l, " ") {
			cur = nil
		}
		if cur == nil {
			continue
		}
		cur.text += l + "\n"
		q := strings.Count(l, `"""`)
		wasDoc := inDoc
		if q%2 == 1 {
			inDoc = !inDoc
		}
		if wasDoc || q > 0 || !strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "        ") {
			continue
		}
		cur.lines = append(cur.lines, l)
	}
	return out
}

// TestPyMembersTable: the members of generated Python classes that are not
// the schema's attributes (the keys of WIRE_NAMES) are exactly pyMembers;
// the builtins a class body names at class level (member annotations,
// decorators, method signatures: a member of that name would shadow them)
// are exactly pyClassScope.
func TestPyMembersTable(t *testing.T) {
	_, pyMembers, pyScope, _ := ir.ReservedTables()
	_, builtins := pythonBuiltins(t)
	var members, scope []string
	for name, src := range generatedFiles(t) {
		if !strings.HasSuffix(name, "/types.py") {
			continue
		}
		for _, c := range pyClasses(string(src)) {
			attrs := map[string]bool{}
			if i := strings.Index(c.text, "WIRE_NAMES: "); i >= 0 {
				end := strings.Index(c.text[i:], "}")
				for _, m := range pyWireRe.FindAllStringSubmatch(c.text[i:i+end], -1) {
					attrs[m[1]] = true
				}
			}
			var declared []string
			for _, l := range c.lines {
				names := pyNames(l)
				if m := pyMemberRe.FindStringSubmatch(l); m != nil {
					declared = append(declared, m[1]+m[2])
					names = names[1:] // the member's own name (after "def" for a method)
					if m[1] != "" {
						names = names[1:]
					}
				}
				for _, n := range names {
					if builtins[n] {
						scope = append(scope, n)
					}
				}
			}
			for _, d := range declared {
				if !attrs[d] {
					members = append(members, d)
				}
			}
		}
	}
	sameSet(t, "gen/ir pyMembers", pyMembers, members)
	sameSet(t, "gen/ir pyClassScope", pyScope, scope)
}

var pyFromRe = regexp.MustCompile(`(?m)^from ([\w.]+) import \(?([^)]*?)\)?$`)

// TestPyImportsTable: the standard-library names the generated modules
// import are exactly ir.PyImports (the printer imports nothing else, and
// every entry is used somewhere).
func TestPyImportsTable(t *testing.T) {
	_, _, _, table := ir.ReservedTables()
	var keys, found []string
	for k := range table {
		keys = append(keys, k)
	}
	for name, src := range generatedFiles(t) {
		// codec.py, sdk.py and transport.py are static or name no schema
		// type at their top level (sdk.py reaches them as _t.<Name>)
		if !strings.HasSuffix(name, ".py") || strings.HasSuffix(name, "/codec.py") || strings.HasSuffix(name, "/sdk.py") ||
			strings.HasSuffix(name, "/transport.py") {
			continue
		}
		text := string(src)
		for i := strings.Index(text, "from "); i >= 0 && i < len(text); {
			j := strings.Index(text[i:], "\n")
			if j < 0 {
				break
			}
			stmt := text[i : i+j]
			if strings.HasSuffix(stmt, "(") {
				k := strings.Index(text[i:], ")")
				stmt = strings.ReplaceAll(text[i:i+k+1], "\n", " ")
			}
			if m := pyFromRe.FindStringSubmatch(stmt); m != nil && !strings.HasPrefix(m[1], ".") && m[1] != "__future__" {
				for _, part := range strings.Split(m[2], ",") {
					if f := strings.Fields(part); len(f) > 0 {
						found = append(found, f[len(f)-1])
						if table[f[0]] != m[1] {
							t.Errorf("%s imports %s from %s; ir.PyImports says %q", name, f[0], m[1], table[f[0]])
						}
					}
				}
			}
			next := strings.Index(text[i+1:], "\nfrom ")
			if next < 0 {
				break
			}
			i += next + 2
		}
	}
	sameSet(t, "gen/ir PyImports", keys, found)
}

// pythonBuiltins reads gen/ir/names/python.txt.
func pythonBuiltins(t *testing.T) (keywords, builtins map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "gen", "ir", "names", "python.txt"))
	if err != nil {
		t.Fatal(err)
	}
	keywords, builtins = map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		kind, name, ok := strings.Cut(strings.TrimSpace(l), " ")
		switch {
		case !ok || strings.HasPrefix(kind, "#"):
		case kind == "keyword":
			keywords[name] = true
		default:
			builtins[name] = true
		}
	}
	return keywords, builtins
}

// pyNames returns the names a line of Python code uses (not in strings,
// not attributes after a dot).
func pyNames(line string) []string {
	var out []string
	inStr := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inStr != 0:
			if c == '\\' {
				i++
			} else if c == inStr {
				inStr = 0
			}
		case c == '"' || c == '\'':
			inStr = c
		case c == '#':
			return out
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(line) && (line[j] == '_' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= '0' && line[j] <= '9') {
				j++
			}
			if i == 0 || line[i-1] != '.' {
				out = append(out, line[i:j])
			}
			i = j - 1
		}
	}
	return out
}

// TestEmittersReadOnlyTheIR: the emitters import nothing that reads a
// schema (the loader's reader, the validation library, the traffic tools)
// and use no part of the model that reaches the schema documents behind it
// (Source, the validator's and the schema diff's). Everything they print is
// in the IR.
func TestEmittersReadOnlyTheIR(t *testing.T) {
	allowed := regexp.MustCompile(`^([a-z0-9]+(/[a-z0-9]+)*|github\.com/dave/jennifer/jen|github\.com/dshgen/dshgen/(gen/ir|templates|gen/emit/[a-z/]+))$`)
	forbidden := map[string]bool{"Source": true}
	if build.Default.GOROOT == "" {
		// A test binary built with -trimpath (as .ci/run builds) has no
		// GOROOT of its own; the source importer needs it for the standard
		// library.
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Fatalf("go env GOROOT: %v", err)
		}
		build.Default.GOROOT = strings.TrimSpace(string(out))
	}
	fset := token.NewFileSet()
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	for _, dir := range []string{"golang", "python", "typescript"} {
		pkgDir := filepath.Join(root, "gen", "emit", dir)
		names, _ := filepath.Glob(filepath.Join(pkgDir, "*.go"))
		var files []*ast.File
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, n, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !allowed.MatchString(p) {
					t.Errorf("%s imports %s: an emitter reads only the IR (gen/ir), its templates and the standard library", fset.Position(imp.Pos()), p)
				}
			}
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := conf.Check("github.com/dshgen/dshgen/gen/emit/"+dir, fset, files, info); err != nil {
			t.Fatalf("type-checking gen/emit/%s: %v", dir, err)
		}
		for sel, s := range info.Selections {
			recv := s.Recv()
			if p, ok := recv.(*types.Pointer); ok {
				recv = p.Elem()
			}
			if n, ok := recv.(*types.Named); ok && n.Obj().Name() == "Model" && n.Obj().Pkg().Path() == "github.com/dshgen/dshgen/gen/ir" && forbidden[sel.Sel.Name] {
				t.Errorf("%s: gen/emit/%s reads ir.Model.%s: an emitter prints the IR, never the schema behind it", fset.Position(sel.Pos()), dir, sel.Sel.Name)
			}
		}
	}
}

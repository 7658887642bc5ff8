package conformance

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The round-trip drivers, embedded so that an installed dshgen runs them
// outside the repository: Setup writes them into a scratch directory.
//
//go:embed drivers/go/main.go drivers/python/driver.py drivers/ts/driver.mjs drivers/ts/driver.ts
var driverFiles embed.FS

// Langs are the languages with a driver, in report order.
var Langs = []string{"go", "python", "ts"}

// Bindings are the generated bindings a driver round-trips through: a
// directory laid out as 'dshgen generate --out DIR' writes it (go/<pkg>,
// python/<pkg>, ts/src) and the package name they were generated with.
type Bindings struct {
	Dir     string
	Package string
}

// Tools says which interpreters and compilers the drivers use.
type Tools struct {
	Go     string // the go command (default "go")
	Python string // a Python 3.10+ interpreter (default "python3")
	Node   string // node 20+ (default "node")
	// TypeScript is the directory of the typescript package the TypeScript
	// driver compiles with; "" lets node resolve "typescript" from the
	// working directory, else from the bindings' ts directory (the
	// generated package's node_modules, after npm install there).
	TypeScript string
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Setup prepares lang's driver against b in the scratch directory tmp
// (which it owns from then on) and returns how to run it. For Go it builds
// a module holding a copy of the bindings and the driver (so any directory
// and package name work); for Python and TypeScript it writes the driver
// files.
func Setup(lang string, b Bindings, tmp string, tools Tools) (Driver, error) {
	dir, err := filepath.Abs(b.Dir)
	if err != nil {
		return Driver{}, err
	}
	write := func(name string, data []byte) error {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	embedded := func(name string) ([]byte, error) { return driverFiles.ReadFile("drivers/" + name) }
	look := func(cmd, what string) (string, error) {
		p, err := exec.LookPath(cmd)
		if err != nil {
			return "", fmt.Errorf("%s (%s) not found: %w", cmd, what, err)
		}
		return p, nil
	}
	switch lang {
	case "go":
		goCmd, err := look(orDefault(tools.Go, "go"), "the Go toolchain, which builds the driver")
		if err != nil {
			return Driver{}, err
		}
		gen, err := filepath.Glob(filepath.Join(dir, "go", b.Package, "*.go"))
		if err != nil || len(gen) == 0 {
			return Driver{}, fmt.Errorf("no generated Go under %s", filepath.Join(b.Dir, "go", b.Package))
		}
		src, err := embedded("go/main.go")
		if err != nil {
			return Driver{}, err
		}
		const bindingsImport = `"github.com/dshgen/dshgen/out/go/dshproto"`
		if !strings.Contains(string(src), bindingsImport) {
			return Driver{}, fmt.Errorf("the Go driver does not import %s", bindingsImport)
		}
		src = []byte(strings.Replace(string(src), bindingsImport, `"dshconformance/`+b.Package+`"`, 1))
		ver, err := exec.Command(goCmd, "env", "GOVERSION").Output()
		if err != nil {
			return Driver{}, fmt.Errorf("go env GOVERSION: %v", err)
		}
		goVersion := strings.TrimPrefix(strings.TrimSpace(string(ver)), "go")
		goVersion, _, _ = strings.Cut(goVersion, " ") // "1.26.8 X:..." on experiment builds
		table, tableMain, err := goTypeTable(gen, b.Package)
		if err != nil {
			return Driver{}, err
		}
		mod := filepath.Join(tmp, "module")
		files := map[string][]byte{"go.mod": []byte("module dshconformance\n\ngo " + goVersion + "\n"), "main.go": src, "types.go": tableMain,
			b.Package + "/zz_dshgen_conformance_types.go": table}
		for _, g := range gen {
			data, err := os.ReadFile(g)
			if err != nil {
				return Driver{}, err
			}
			files[b.Package+"/"+filepath.Base(g)] = data
		}
		for name, data := range files {
			if err := write("module/"+name, data); err != nil {
				return Driver{}, err
			}
		}
		bin := filepath.Join(tmp, "go-driver")
		// -trimpath: the build cache then serves the same bindings built from
		// another scratch directory.
		build := exec.Command(goCmd, "build", "-trimpath", "-o", bin, ".")
		build.Dir = mod
		// The scratch module stands alone: no workspace of the caller's, no
		// toolchain download.
		build.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			return Driver{}, fmt.Errorf("building the driver with the bindings in %s: %v\n%s", filepath.Join(b.Dir, "go", b.Package), err, out)
		}
		return Driver{Lang: "go", Cmd: []string{bin}}, nil
	case "python":
		py, err := look(orDefault(tools.Python, "python3"), "Python 3.10+, set DSHGEN_PYTHON to choose one")
		if err != nil {
			return Driver{}, err
		}
		if _, err := os.Stat(filepath.Join(dir, "python", b.Package, "__init__.py")); err != nil {
			return Driver{}, fmt.Errorf("no generated Python package under %s: %w", filepath.Join(b.Dir, "python"), err)
		}
		src, err := embedded("python/driver.py")
		if err != nil {
			return Driver{}, err
		}
		if err := write("driver.py", src); err != nil {
			return Driver{}, err
		}
		return Driver{Lang: "python", Cmd: []string{py, filepath.Join(tmp, "driver.py"), "--package", b.Package},
			// No __pycache__ written into the bindings under test.
			Env: []string{"PYTHONPATH=" + filepath.Join(dir, "python"), "PYTHONDONTWRITEBYTECODE=1"}}, nil
	case "ts":
		node, err := look(orDefault(tools.Node, "node"), "Node.js 20+")
		if err != nil {
			return Driver{}, err
		}
		if _, err := os.Stat(filepath.Join(dir, "ts", "src", "index.ts")); err != nil {
			return Driver{}, fmt.Errorf("no generated TypeScript under %s: %w", filepath.Join(b.Dir, "ts", "src"), err)
		}
		for _, name := range []string{"driver.mjs", "driver.ts"} {
			src, err := embedded("ts/" + name)
			if err != nil {
				return Driver{}, err
			}
			if err := write(name, src); err != nil {
				return Driver{}, err
			}
		}
		env := []string{"DSHGEN_TS_OUT=" + filepath.Join(dir, "ts")}
		if tools.TypeScript != "" {
			ts, err := filepath.Abs(tools.TypeScript)
			if err != nil {
				return Driver{}, err
			}
			env = append(env, "DSHGEN_TYPESCRIPT="+ts)
		}
		return Driver{Lang: "ts", Cmd: []string{node, filepath.Join(tmp, "driver.mjs")}, Env: env}, nil
	}
	return Driver{}, fmt.Errorf("unknown language %q (%s)", lang, strings.Join(Langs, ", "))
}

// goTypeTable writes the Go driver's table of named types (a header's
// "type", driver protocol 1), read from the bindings' API: every exported
// non-generic type, decoded with the bindings' own Decode<Name> (unions)
// or decode<Name> (aliases such as a map of a union) when they have one
// and with encoding/json otherwise; an interface type without a decoder is
// left out (nothing can decode it). The table is a file added to the
// bindings' package (so it reaches their unexported decoders); tableMain
// is the driver's file that hands it to the driver.
func goTypeTable(files []string, pkg string) (table, tableMain []byte, err error) {
	fset := token.NewFileSet()
	types := map[string]bool{} // exported type -> is an interface
	decoders := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the Go bindings: %w", err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				n := d.Name.Name
				if d.Recv != nil || d.Type.TypeParams != nil || d.Type.Params.NumFields() != 1 || d.Type.Results.NumFields() != 2 {
					continue
				}
				if t, ok := strings.CutPrefix(n, "Decode"); ok {
					decoders[t] = n
				} else if t, ok := strings.CutPrefix(n, "decode"); ok && decoders[t] == "" {
					decoders[t] = n
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || !ast.IsExported(ts.Name.Name) || ts.TypeParams != nil {
						continue
					}
					_, iface := ts.Type.(*ast.InterfaceType)
					types[ts.Name.Name] = iface
				}
			}
		}
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by dshgen conformance from the bindings. DO NOT EDIT.\n\npackage %s\n\nimport \"encoding/json\"\n\n", pkg)
	b.WriteString("// DshgenConformanceTypes decode a value as the exported type of that name.\nvar DshgenConformanceTypes = map[string]func(json.RawMessage) (any, error){\n")
	for _, n := range names {
		switch {
		case decoders[n] != "":
			fmt.Fprintf(&b, "%q: func(raw json.RawMessage) (any, error) { return %s(raw) },\n", n, decoders[n])
		case !types[n]:
			fmt.Fprintf(&b, "%q: func(raw json.RawMessage) (any, error) { var v %s; err := json.Unmarshal(raw, &v); return &v, err },\n", n, n)
		}
	}
	b.WriteString("}\n")
	if table, err = format.Source(b.Bytes()); err != nil {
		return nil, nil, err
	}
	tableMain = fmt.Appendf(nil, "// Code generated by dshgen conformance. DO NOT EDIT.\n\npackage main\n\nimport proto %q\n\nfunc init() { typeCodecs = proto.DshgenConformanceTypes }\n", "dshconformance/"+pkg)
	return table, tableMain, nil
}

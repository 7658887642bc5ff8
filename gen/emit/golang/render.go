package golang

import (
	"bytes"
	"fmt"
	"go/format"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/dshgen/dshgen/gen/ir"
)

// goFile prints one Go file a group of declarations at a time: each group
// (Next) is a jen.File of its own, rendered and gofmt-ed alone when the
// next one starts, so only one group's code tree and syntax tree are held
// at once, not the whole file's (for a schema of N types, memory in
// proportion to the largest type's code instead of to N; gen/emit/BENCH.md).
// The imports the groups used are gathered into the file's one import
// block. The bytes are those of rendering the whole file with jennifer and
// gofmt: groups are separated by a blank line (each emitting function
// ends its declarations with one), where gofmt's alignment never reaches
// across.
type goFile struct {
	name    string // file name, for errors
	pkg     string
	headers []string
	cur     *jen.File
	// The groups printed so far: in body, or, with a spool, in spooled.
	body     bytes.Buffer
	spool    *ir.Spool
	spooled  *ir.SpoolWriter
	bodySize int64
	imports  map[string]string // import path → its line as jennifer writes it in a block
	err      error
}

// newGoFile starts a file; with a spool (ir.Options.Spool) its groups are
// kept there instead of in memory.
func newGoFile(name, pkg string, headers []string, spool *ir.Spool) *goFile {
	return &goFile{name: name, pkg: pkg, headers: headers, spool: spool, imports: map[string]string{}}
}

// Next ends the current group and returns the jen.File the next group's
// declarations are added to.
func (g *goFile) Next() *jen.File {
	g.flush()
	g.cur = jen.NewFile(g.pkg)
	g.cur.ImportName(jsonPkg, "json")
	g.cur.NoFormat = true
	return g.cur
}

// flush renders the current group (if any) and appends it, gofmt-ed, to
// the body.
func (g *goFile) flush() {
	f := g.cur
	g.cur = nil
	if f == nil || g.err != nil {
		return
	}
	var raw bytes.Buffer
	if err := f.Render(&raw); err != nil {
		g.err = fmt.Errorf("go %s: %w", g.name, err)
		return
	}
	clause := "package " + g.pkg + "\n\n"
	src, ok := strings.CutPrefix(raw.String(), clause)
	if !ok {
		g.err = fmt.Errorf("go %s: jennifer rendered no package clause", g.name)
		return
	}
	src = g.takeImports(src)
	if strings.TrimSpace(src) == "" {
		return
	}
	out, err := format.Source([]byte(clause + src))
	if err != nil {
		g.err = fmt.Errorf("go %s: %w\n%s", g.name, err, src)
		return
	}
	if g.bodySize > 0 {
		g.write([]byte{'\n'})
	}
	g.write(bytes.TrimPrefix(out, []byte(clause)))
}

// write appends to the body.
func (g *goFile) write(b []byte) {
	g.bodySize += int64(len(b))
	if g.spool == nil {
		g.body.Write(b)
		return
	}
	if g.spooled == nil {
		if g.spooled, g.err = g.spool.Create(); g.err != nil {
			return
		}
	}
	g.spooled.Write(b)
}

// takeImports records the import declaration jennifer rendered at the
// head of src (`import "p"` or `import name "p"`, or a parenthesized block
// of such lines, then a blank line) and returns the rest.
func (g *goFile) takeImports(src string) string {
	if block, ok := strings.CutPrefix(src, "import (\n"); ok {
		lines, rest, _ := strings.Cut(block, ")\n\n")
		for _, l := range strings.Split(strings.TrimSuffix(lines, "\n"), "\n") {
			g.addImport(l)
		}
		return rest
	}
	if one, ok := strings.CutPrefix(src, "import "); ok {
		line, rest, _ := strings.Cut(one, "\n\n")
		g.addImport(line)
		return rest
	}
	return src
}

func (g *goFile) addImport(line string) {
	path, err := strconv.Unquote(line[strings.IndexByte(line, '"'):])
	if err != nil {
		path = line
	}
	g.imports[path] = line
}

// File ends the last group and returns the whole file at path: the header
// comments, the package clause, the import block, the groups (in the
// spool, with one).
func (g *goFile) File(path string) (ir.File, error) {
	g.flush()
	if g.err != nil {
		return ir.File{}, g.err
	}
	var head strings.Builder
	for _, h := range g.headers {
		head.WriteString("// " + h + "\n")
	}
	if len(g.headers) > 0 {
		head.WriteString("\n")
	}
	head.WriteString("package " + g.pkg + "\n\n")
	paths := make([]string, 0, len(g.imports))
	for p := range g.imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	switch len(paths) {
	case 0:
	case 1:
		head.WriteString("import " + g.imports[paths[0]] + "\n\n")
	default:
		head.WriteString("import (\n")
		for _, p := range paths {
			head.WriteString(g.imports[p] + "\n")
		}
		head.WriteString(")\n\n")
	}
	out, err := format.Source([]byte(head.String()))
	if err != nil {
		return ir.File{}, fmt.Errorf("go %s: %w", g.name, err)
	}
	if g.bodySize == 0 {
		return ir.File{Path: path, Data: out}, nil
	}
	if g.spooled == nil {
		file := make([]byte, 0, len(out)+1+g.body.Len())
		file = append(append(file, out...), '\n')
		return ir.File{Path: path, Data: append(file, g.body.Bytes()...)}, nil
	}
	body, err := g.spooled.Close(g.name + " body")
	if err != nil {
		return ir.File{}, err
	}
	defer g.spool.Discard(body)
	w, err := g.spool.Create()
	if err != nil {
		return ir.File{}, err
	}
	w.Write(append(out, '\n'))
	r, err := body.Open()
	if err == nil {
		_, err = io.Copy(w, r)
		r.Close()
	}
	f, cerr := w.Close(path)
	if err == nil {
		err = cerr
	}
	if err != nil {
		return ir.File{}, fmt.Errorf("go %s: %w", g.name, err)
	}
	return f, nil
}

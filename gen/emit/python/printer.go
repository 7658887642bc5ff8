package python

import (
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/templates"
)

// printer prints one Python module body: code lines at the current
// indentation and docstrings, recording every name it prints that the
// module must import (a standard-library name of ir.PyImports, a codec
// helper, or a codec API name under its private alias, e.g. _DecodeError).
// imports then renders exactly those imports, in the order ruff's isort
// wants.
type printer struct {
	// out receives the lines printed, separated by newlines (no newline
	// after the last): buf, or a spooled file (newSpoolPrinter). lines
	// counts them (a docstring counts as one).
	out   sink
	buf   *strings.Builder
	lines int
	depth int
	used  map[string]bool
	tmp   *int // numbers for locals (see fresh), shared with sub-printers
}

// line appends one line (or block of lines) at indentation depth.
func (p *printer) line(depth int, s string) {
	if p.lines > 0 {
		p.out.WriteByte('\n')
	}
	for i := 0; i < depth; i++ {
		p.out.WriteString("    ")
	}
	p.out.WriteString(s)
	p.lines++
}

// sink is where a printer's text goes.
type sink interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

func newPrinter() *printer {
	b := &strings.Builder{}
	return &printer{out: b, buf: b, used: map[string]bool{}, tmp: new(int)}
}

// newSpoolPrinter is a printer whose text goes to w (String is then
// empty).
func newSpoolPrinter(w sink) *printer {
	return &printer{out: w, used: map[string]bool{}, tmp: new(int)}
}

// P prints one line of code (fmt.Sprintf of format and args) at the current
// indentation and records the names it uses.
func (p *printer) P(format string, args ...any) {
	s := format
	if len(args) > 0 {
		s = fmt.Sprintf(format, args...)
	}
	p.note(s)
	p.line(p.depth, s)
}

// Block prints header (a line ending in ":") and body one level deeper.
func (p *printer) Block(header string, body func()) {
	p.P("%s", header)
	p.depth++
	body()
	p.depth--
}

// Seq prints head + open + items + close + tail on one line when it fits
// in docWidth columns, else with one item per line (a trailing comma
// after each) between head + open and close + tail.
func (p *printer) Seq(head, open string, items []string, close, tail string) {
	one := head + open + strings.Join(items, ", ") + close + tail
	if 4*p.depth+len(one) <= docWidth || len(items) == 0 {
		p.P("%s", one)
		return
	}
	p.P("%s", head+open)
	p.depth++
	for _, it := range items {
		if !strings.HasSuffix(it, ",") {
			it += ","
		}
		p.P("%s", it)
	}
	p.depth--
	p.P("%s", close+tail)
}

// Call prints a call, its arguments on one line or one per line.
func (p *printer) Call(fn string, args ...string) { p.Seq(fn, "(", args, ")", "") }

// Union prints head followed by members joined with " | ", wrapped in
// parentheses with one member per line when it does not fit.
func (p *printer) Union(head string, members []string) {
	one := head + strings.Join(members, " | ")
	if 4*p.depth+len(one) <= docWidth || len(members) < 2 {
		p.P("%s", one)
		return
	}
	p.P("%s(", head)
	p.depth++
	for i, m := range members {
		if i > 0 {
			m = "| " + m
		}
		p.P("%s", m)
	}
	p.depth--
	p.P(")")
}

// sub returns a printer for statements one level deeper than p that shares
// its imports and local numbering; splice adds its lines to p.
func (p *printer) sub() *printer {
	b := &strings.Builder{}
	return &printer{out: b, buf: b, depth: p.depth + 1, used: p.used, tmp: p.tmp}
}

// splice appends the lines of a sub-printer.
func (p *printer) splice(s *printer) {
	if s.lines > 0 {
		p.line(0, s.String())
		p.lines += s.lines - 1
	}
}

// Blank prints n empty lines.
func (p *printer) Blank(n int) {
	for i := 0; i < n; i++ {
		p.line(0, "")
	}
}

// Doc prints a docstring of paragraphs, filled, at the current
// indentation (text is not scanned for names: it is not code).
func (p *printer) Doc(paras ...string) {
	indent := strings.Repeat("    ", p.depth)
	if d := docstring(docParas(indent, paras...), indent); d != "" {
		p.line(0, d)
	}
}

// Text prints already rendered Python (a template's output) as it is and
// records the names it uses.
func (p *printer) Text(s string) {
	p.note(s)
	p.line(0, strings.TrimRight(s, "\n"))
}

// fresh returns a new number for local variable names (the numbers only
// keep nested loops apart inside one generated function).
func (p *printer) fresh() string {
	*p.tmp++
	return fmt.Sprint(*p.tmp)
}

// String returns what was printed ("" for a spool printer).
func (p *printer) String() string {
	if p.buf == nil {
		return ""
	}
	return p.buf.String()
}

// note records the importable names in a piece of code.
func (p *printer) note(code string) {
	v := vocabulary()
	for _, n := range codeNames(code) {
		if _, ok := v.module[n]; ok {
			p.used[n] = true
		}
	}
}

// imports renders the import block of the names used: standard-library
// imports, a blank line, then the .codec imports (API names under their
// private aliases one per line, helpers in one statement), as isort orders
// them. extra lines (e.g. "from . import types as _t") go first in the
// local block.
func (p *printer) imports(extra ...string) string {
	v := vocabulary()
	byModule := map[string][]string{}
	var aliased [][2]string
	for n := range p.used {
		mod := v.module[n]
		if api, ok := v.alias[n]; ok {
			aliased = append(aliased, [2]string{api, n})
			continue
		}
		byModule[mod] = append(byModule[mod], n)
	}
	var mods []string
	for m := range byModule {
		if m != ".codec" {
			mods = append(mods, m)
		}
	}
	sort.Strings(mods)
	var std []string
	for _, m := range mods {
		std = append(std, importLine(m, importSorted(byModule[m])))
	}
	local := append([]string(nil), extra...)
	sort.Slice(aliased, func(i, j int) bool {
		s := importSorted([]string{aliased[i][0], aliased[j][0]})
		return s[0] == aliased[i][0] && aliased[i][0] != aliased[j][0]
	})
	for _, a := range aliased {
		local = append(local, "from .codec import "+a[0]+" as "+a[1])
	}
	if h := byModule[".codec"]; len(h) > 0 {
		local = append(local, importLine(".codec", importSorted(h)))
	}
	var blocks []string
	if len(std) > 0 {
		blocks = append(blocks, strings.Join(std, "\n"))
	}
	if len(local) > 0 {
		blocks = append(blocks, strings.Join(local, "\n"))
	}
	return strings.Join(blocks, "\n\n")
}

// importLine renders "from mod import a, b" as ruff's isort would: on one
// line when it fits in 88 columns, else one name per line in parentheses.
func importLine(mod string, names []string) string {
	one := "from " + mod + " import " + strings.Join(names, ", ")
	if len(one) <= 88 {
		return one
	}
	var s strings.Builder
	s.WriteString("from " + mod + " import (\n")
	for _, n := range names {
		s.WriteString("    " + n + ",\n")
	}
	s.WriteString(")")
	return s.String()
}

// vocab is what a generated module may import: name → module, and the
// private aliases of codec's API names (alias → API name).
type vocab struct {
	module map[string]string
	alias  map[string]string
	// codecAPI is codec.py's __all__ (re-exported by the package).
	codecAPI []string
	// sdkAPI and transportAPI are sdk.py's and transport.py's __all__
	// (re-exported by the package, sdk.py's when it is printed).
	sdkAPI, transportAPI []string
}

// vocabulary reads codec.py.tmpl once: its __all__ are imported under
// private aliases ("_" + name), its other public names (the decoding
// helpers) by name; the standard-library names are the IR's PyImports.
var vocabulary = sync.OnceValue(func() *vocab {
	v := &vocab{module: map[string]string{}, alias: map[string]string{}}
	for n, m := range ir.PyImports {
		v.module[n] = m
	}
	src, err := fs.ReadFile(templates.FS, "python/codec.py.tmpl")
	if err != nil {
		panic("dshgen: templates/python/codec.py.tmpl: " + err.Error())
	}
	mod := ir.PyModuleNames(string(src))
	v.codecAPI = mod.All
	for _, x := range []struct {
		path string
		all  *[]string
	}{{"python/sdk.py.tmpl", &v.sdkAPI}, {"python/transport.py.tmpl", &v.transportAPI}} {
		b, err := fs.ReadFile(templates.FS, x.path)
		if err != nil {
			panic("dshgen: templates/" + x.path + ": " + err.Error())
		}
		*x.all = ir.PyModuleNames(string(b)).All
	}
	for _, n := range mod.All {
		v.module["_"+n] = ".codec"
		v.alias["_"+n] = n
	}
	for _, n := range mod.Helpers() {
		v.module[n] = ".codec"
	}
	return v
})

// codeNames returns the identifiers a piece of Python code uses as names:
// not inside string literals or comments, not attribute names (after a
// dot), not keyword-argument names.
func codeNames(code string) []string {
	var out []string
	isStart := func(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
	isPart := func(c byte) bool { return isStart(c) || (c >= '0' && c <= '9') }
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == '#':
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = skipString(code, i)
		case isStart(c):
			j := i
			for j < len(code) && isPart(code[j]) {
				j++
			}
			word := code[i:j]
			if j < len(code) && (code[j] == '"' || code[j] == '\'') && len(word) <= 2 && strings.ContainsAny(strings.ToLower(word), "rbfu") {
				i = skipString(code, j) // a prefixed literal: f"...", rb'...'
				continue
			}
			prev := i - 1
			for prev >= 0 && code[prev] == ' ' {
				prev--
			}
			next := j
			for next < len(code) && code[next] == ' ' {
				next++
			}
			kwarg := next < len(code) && code[next] == '=' && (next+1 >= len(code) || code[next+1] != '=') && prev >= 0 && (code[prev] == '(' || code[prev] == ',')
			if (prev < 0 || code[prev] != '.') && !kwarg {
				out = append(out, word)
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// skipString returns the index after the string literal starting at i
// (single, double or triple quoted).
func skipString(s string, i int) int {
	q := s[i]
	if strings.HasPrefix(s[i:], strings.Repeat(string(q), 3)) {
		end := strings.Index(s[i+3:], strings.Repeat(string(q), 3))
		if end < 0 {
			return len(s)
		}
		return i + 3 + end + 3
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q, '\n':
			return j + 1
		}
	}
	return len(s)
}

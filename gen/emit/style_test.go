package emit_test

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen/ir"
)

// Generated code reads like hand-written code: no line of Go over 120
// columns outside its string literals, doc comments filled (Go and
// TypeScript to 100 columns, Python docstrings to 88), and no doc line that
// only says the name again ("X is the object X."). Checked over out/ and
// every golden case.

const (
	maxGoLine     = 120
	maxGoDocLine  = 100
	maxTSDocLine  = 100
	maxPyDocLine  = 88
	reportedLines = 10
)

// goLineLengths returns, per 1-based line, the length of the line without
// its string and character literals (a literal longer than the line budget
// is data, not layout).
func goLineLengths(src []byte) map[int]int {
	lines := strings.Split(string(src), "\n")
	out := map[int]int{}
	for i, l := range lines {
		out[i+1] = utf8.RuneCountInString(strings.ReplaceAll(l, "\t", "    "))
	}
	fset := token.NewFileSet()
	f := fset.AddFile("x.go", -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.STRING || tok == token.CHAR {
			p := fset.Position(pos)
			if !strings.Contains(lit, "\n") {
				out[p.Line] -= utf8.RuneCountInString(lit)
			}
		}
	}
	return out
}

// oneWord reports whether a comment line is a single word after its marker
// (a URL or a path too long to fill, which is never broken).
func oneWord(line string) bool {
	t := strings.TrimSpace(line)
	for _, m := range []string{"//", "*", "#"} {
		t = strings.TrimSpace(strings.TrimPrefix(t, m))
	}
	return !strings.ContainsAny(t, " \t")
}

func TestGoLineLength(t *testing.T) {
	files := generatedFiles(t)
	var bad []string
	total := 0
	for _, name := range sortedKeys(files) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		src := files[name]
		lines := strings.Split(string(src), "\n")
		lengths := goLineLengths(src)
		for n := 1; n <= len(lines); n++ {
			l := lines[n-1]
			isComment := strings.HasPrefix(strings.TrimSpace(l), "//")
			limit := maxGoLine
			if isComment {
				limit = maxGoDocLine
			}
			if lengths[n] > limit && !(isComment && oneWord(l)) {
				total++
				if len(bad) < reportedLines {
					bad = append(bad, name+":"+itoa(n)+": "+itoa(lengths[n])+" columns: "+clip(l))
				}
			}
		}
	}
	if total > 0 {
		t.Errorf("%d generated Go lines are too long (code over %d columns outside string literals, comments over %d):\n%s",
			total, maxGoLine, maxGoDocLine, strings.Join(bad, "\n"))
	}
}

// restates reports whether a doc comment says nothing but the names it
// documents (the IR's test, which emitters use to leave out a schema
// description that only restates a name).
func restates(text string, names ...string) bool { return ir.Restates(text, names...) }

func TestGoDocsSaySomething(t *testing.T) {
	files := generatedFiles(t)
	var bad []string
	for _, name := range sortedKeys(files) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, files[name], parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check := func(doc *ast.CommentGroup, names ...string) {
			if doc != nil && restates(doc.Text(), names...) {
				bad = append(bad, fset.Position(doc.Pos()).String()+": "+clip(strings.Join(strings.Fields(doc.Text()), " ")))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch d := n.(type) {
			case *ast.FuncDecl:
				check(d.Doc, d.Name.Name)
			case *ast.GenDecl:
				var names []string
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names = append(names, s.Name.Name)
						check(s.Doc, s.Name.Name)
					case *ast.ValueSpec:
						for _, id := range s.Names {
							names = append(names, id.Name)
						}
						check(s.Doc, identNames(s.Names)...)
					}
				}
				check(d.Doc, names...)
			case *ast.Field:
				check(d.Doc, identNames(d.Names)...)
			}
			return true
		})
	}
	if len(bad) > 0 {
		t.Errorf("%d generated Go doc comments only restate the name:\n%s", len(bad), strings.Join(first(bad, reportedLines), "\n"))
	}
}

func identNames(ids []*ast.Ident) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.Name)
	}
	return out
}

var (
	pyDeclRe = regexp.MustCompile(`^\s*(?:class (\w+)|(\w+): TypeAlias =|def (\w+)\(|(\w+): )`)
	tsDeclRe = regexp.MustCompile(`^\s*(?:export )?(?:interface|type|const|function) (\w+)|^\s*"?([\w$/.-]+)"?\??: `)
)

// TestDocsFilled checks the Python docstrings and the TypeScript doc
// comments: filled to their width, and never only the name again.
func TestDocsFilled(t *testing.T) {
	files := generatedFiles(t)
	var long, restating []string
	for _, name := range sortedKeys(files) {
		lines := strings.Split(string(files[name]), "\n")
		switch {
		case strings.HasSuffix(name, ".py"):
			inDoc, start := false, 0
			var text []string
			for i, l := range lines {
				q := strings.Count(l, `"""`)
				if !inDoc && q == 0 {
					continue
				}
				if utf8.RuneCountInString(l) > maxPyDocLine && !oneWord(strings.Trim(strings.TrimSpace(l), `"`)) {
					long = append(long, name+":"+itoa(i+1)+": "+clip(l))
				}
				if !inDoc {
					start, text = i, nil
				}
				text = append(text, strings.ReplaceAll(l, `"""`, ""))
				if q%2 == 1 {
					inDoc = !inDoc
				}
				if !inDoc && start > 0 {
					// the docstring as a whole against the declaration above it
					if m := pyDeclRe.FindStringSubmatch(lines[start-1]); m != nil && restates(strings.Join(text, " "), m[1]+m[2]+m[3]+m[4]) {
						restating = append(restating, name+":"+itoa(start+1)+": "+clip(strings.Join(strings.Fields(strings.Join(text, " ")), " ")))
					}
				}
			}
		case strings.HasSuffix(name, ".ts"):
			for i, l := range lines {
				tl := strings.TrimSpace(l)
				if !strings.HasPrefix(tl, "*") && !strings.HasPrefix(tl, "/**") {
					continue
				}
				if utf8.RuneCountInString(l) > maxTSDocLine && !oneWord(tl) {
					long = append(long, name+":"+itoa(i+1)+": "+clip(l))
				}
				if tl == "*/" || strings.HasSuffix(tl, "*/") {
					// the doc as a whole against the declaration after it
					j := i
					for j > 0 && !strings.HasPrefix(strings.TrimSpace(lines[j]), "/**") {
						j--
					}
					var text []string
					for _, dl := range lines[j : i+1] {
						text = append(text, strings.Trim(strings.TrimSpace(dl), "/*"))
					}
					if i+1 < len(lines) {
						if m := tsDeclRe.FindStringSubmatch(lines[i+1]); m != nil && restates(strings.Join(text, " "), m[1]+m[2]) {
							restating = append(restating, name+":"+itoa(j+1)+": "+clip(strings.Join(text, " ")))
						}
					}
				}
			}
		}
	}
	if len(long) > 0 {
		t.Errorf("%d doc lines are not filled (Python docstrings over %d columns, TypeScript over %d):\n%s",
			len(long), maxPyDocLine, maxTSDocLine, strings.Join(first(long, reportedLines), "\n"))
	}
	if len(restating) > 0 {
		t.Errorf("%d doc lines only restate the name:\n%s", len(restating), strings.Join(first(restating, reportedLines), "\n"))
	}
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func first(xs []string, n int) []string {
	if len(xs) > n {
		return append(xs[:n:n], "...")
	}
	return xs
}

func clip(s string) string {
	if len(s) > 140 {
		return s[:137] + "..."
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

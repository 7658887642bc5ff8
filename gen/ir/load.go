package ir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Problem is one thing wrong with a schema: where (file, line, JSON pointer)
// and what, with a hint on how to fix it where there is one.
type Problem struct {
	File    string // path of the schema file as given
	Line    int    // 1-based line of the offending node (0 when unknown)
	Pointer string // JSON pointer inside File, e.g. "/$defs/Shape/oneOf/0"
	Msg     string
	Hint    string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Pointer != "" {
		fmt.Fprintf(&b, ": %s", p.Pointer)
	}
	fmt.Fprintf(&b, ": %s", p.Msg)
	if p.Hint != "" {
		fmt.Fprintf(&b, " (fix: %s)", p.Hint)
	}
	return b.String()
}

// pointerText renders a pointer for messages ("(root)" for the document).
func pointerText(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// LoadError lists every problem found in one load, sorted by file, line and
// pointer. Generation stops before writing anything when Load returns one.
type LoadError struct{ Problems []Problem }

func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d schema problem(s):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// doc is one loaded schema file.
type doc struct {
	path string // absolute path
	show string // path as shown in errors and pointers
	raw  []byte
	root *node
	url  string // file:// URL the validation library knows it by
}

// loc is a node's place: a document and a JSON pointer fragment in it.
type loc struct {
	d   *doc
	ptr string // "" or "/$defs/X/..."
}

func (l loc) child(toks ...any) loc {
	p := l.ptr
	for _, t := range toks {
		switch v := t.(type) {
		case string:
			p += "/" + escapePointerToken(v)
		case int:
			p += "/" + strconv.Itoa(v)
		}
	}
	return loc{l.d, p}
}

func (l loc) key() string { return l.d.path + "#" + l.ptr }

func (l loc) node() *node {
	n, _ := resolvePointer(l.d.root, l.ptr)
	return n
}

// loader builds one Model.
type loader struct {
	rootDoc  *doc
	docs     map[string]*doc
	problems []Problem
	types    map[string]*Type // by loc.key()
	typeLocs map[*Type]loc
	fallback map[*Type]*Type // fallback def → its union
	depth    int
}

// Load reads the schema at path (and the files it $refs by relative path),
// meta-validates it against draft 2020-12, and builds the Model. A remote
// (http, https or any non-file) $ref is refused, never fetched. Every problem
// found is returned at once as a *LoadError.
func Load(path string) (*Model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{[]Problem{{File: path, Msg: err.Error()}}}
	}
	return LoadBytes(path, raw)
}

// LoadBytes is Load for a root document already in memory; path names it
// in errors and is the base for relative $refs.
func LoadBytes(path string, raw []byte) (*Model, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &LoadError{[]Problem{{File: path, Msg: err.Error()}}}
	}
	l := &loader{docs: map[string]*doc{}, types: map[string]*Type{}, typeLocs: map[*Type]loc{}, fallback: map[*Type]*Type{}}
	root := l.addDoc(abs, path, raw)
	if root == nil {
		return nil, l.err()
	}
	l.rootDoc = root
	if root.root.kind != nObject {
		l.problem(loc{root, ""}, "the schema document must be a JSON object", "")
		return nil, l.err()
	}
	// 1. Every $ref, in every file reached: local, relative file, or refused.
	l.scanRefs(root)
	if len(l.problems) > 0 {
		return nil, l.err()
	}
	// 2. Meta-validation and compilation by the validation library.
	if _, err := l.compile(""); err != nil {
		l.problems = append(l.problems, libraryProblem(root, err))
		return nil, l.err()
	}
	// 3. The IR.
	m := &Model{
		Title:       root.root.strOf("title"),
		Description: root.root.strOf("description"),
		ID:          root.root.strOf("$id"),
		File:        path,
		Raw:         raw,
		byPointer:   map[string]*Type{},
	}
	sum := sha256.Sum256(raw)
	m.SHA256 = hex.EncodeToString(sum[:])
	if defs := root.root.get("$defs"); defs != nil && defs.kind == nObject {
		for _, k := range defs.keys {
			at := loc{root, "/$defs/" + escapePointerToken(k)}
			if v := defs.vals[k].get("x-validation-only"); v != nil && v.kind == nBool && v.b {
				m.ValidationOnly = append(m.ValidationOnly, l.pointerOf(at))
				continue
			}
			l.typeAt(at)
		}
	}
	m.Methods = l.methods(loc{root, ""})
	l.finish(m)
	if len(l.problems) > 0 {
		return nil, l.err()
	}
	m.docs = l.docs
	m.rootDoc = root
	return m, nil
}

func (l *loader) err() error {
	sort.SliceStable(l.problems, func(i, j int) bool {
		a, b := l.problems[i], l.problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Pointer < b.Pointer
	})
	// The same problem can be reached twice (a node used from two places).
	out := l.problems[:0]
	for i, p := range l.problems {
		if i > 0 && p == l.problems[i-1] {
			continue
		}
		out = append(out, p)
	}
	return &LoadError{Problems: out}
}

func (l *loader) problem(at loc, msg, hint string) {
	line := 0
	if n := at.node(); n != nil {
		line, _ = lineCol(at.d.raw, n.offset)
	}
	l.problems = append(l.problems, Problem{File: at.d.show, Line: line, Pointer: at.ptr, Msg: msg, Hint: hint})
}

// addDoc parses a schema file and registers it (nil on a parse error, which
// is recorded).
func (l *loader) addDoc(abs, show string, raw []byte) *doc {
	if d, ok := l.docs[abs]; ok {
		return d
	}
	n, err := parseNode(raw)
	if err != nil {
		var se *syntaxErr
		line, col := 0, 0
		if errors.As(err, &se) {
			line, col = lineCol(raw, se.offset)
		}
		l.problems = append(l.problems, Problem{File: show, Line: line, Msg: fmt.Sprintf("invalid JSON at column %d: %v", col, err)})
		return nil
	}
	d := &doc{path: abs, show: show, raw: raw, root: n, url: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()}
	l.docs[abs] = d
	return d
}

// scanRefs checks every $ref of d and loads the sibling files it names.
func (l *loader) scanRefs(d *doc) {
	var walk func(n *node, at loc)
	walk = func(n *node, at loc) {
		switch n.kind {
		case nObject:
			for _, k := range n.keys {
				v := n.vals[k]
				if k == "$ref" && v.kind == nString && !isKeywordValueContainer(at) {
					l.checkRef(at.child(k), v.str)
				}
				walk(v, at.child(k))
			}
		case nArray:
			for i, it := range n.items {
				walk(it, at.child(i))
			}
		}
	}
	walk(d.root, loc{d, ""})
}

// isKeywordValueContainer reports whether at is the value of a keyword whose
// members are data, not schemas (enum, const, examples, default).
func isKeywordValueContainer(at loc) bool {
	for _, k := range []string{"/enum", "/const", "/examples", "/default"} {
		if strings.Contains(at.ptr, k+"/") || strings.HasSuffix(at.ptr, k) {
			return true
		}
	}
	return false
}

// checkRef validates one $ref value found at at.
func (l *loader) checkRef(at loc, ref string) {
	target, err := l.refTarget(at.d, ref)
	if err != nil {
		l.problem(at, err.Error(), "")
		return
	}
	if _, ok := resolvePointer(target.d.root, target.ptr); !ok {
		l.problem(at, fmt.Sprintf("$ref %q does not resolve: no node at %s in %s", ref, pointerText(target.ptr), target.d.show), "")
	}
}

// refTarget resolves a $ref string relative to the file it appears in.
// Only "#/pointer" and relative file paths ("other.json#/pointer") are
// accepted; anything with a scheme is refused.
func (l *loader) refTarget(from *doc, ref string) (loc, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return loc{}, fmt.Errorf("$ref %q is not a valid URI reference: %v", ref, err)
	}
	if u.Scheme != "" || u.Host != "" {
		return loc{}, fmt.Errorf("remote $ref %q refused: dshgen never fetches schemas over the network; copy the file beside the schema and $ref it by relative path", ref)
	}
	frag := u.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return loc{}, fmt.Errorf("$ref %q uses an anchor; only JSON pointer fragments (#/...) are supported", ref)
	}
	if u.Path == "" {
		return loc{from, frag}, nil
	}
	abs := filepath.Join(filepath.Dir(from.path), filepath.FromSlash(u.Path))
	d := l.docs[abs]
	if d == nil {
		raw, err := readSibling(abs)
		if err != nil {
			return loc{}, fmt.Errorf("$ref %q: cannot read %s: %v", ref, abs, err)
		}
		rel, rerr := filepath.Rel(filepath.Dir(l.rootDoc.path), abs)
		if rerr != nil {
			rel = abs
		}
		show := filepath.Join(filepath.Dir(l.rootDoc.show), rel)
		d = l.addDoc(abs, show, raw)
		if d == nil {
			return loc{}, fmt.Errorf("$ref %q: %s is not valid JSON", ref, abs)
		}
		l.scanRefs(d)
	}
	return loc{d, frag}, nil
}

// maxSiblingBytes bounds a schema file reached by a relative $ref.
const maxSiblingBytes = 64 << 20

// readSibling reads a schema file named by a relative $ref: a regular file
// of at most maxSiblingBytes. A $ref to /dev/zero, a FIFO or a directory is
// refused instead of read forever (or blocking).
func readSibling(abs string) ([]byte, error) {
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("it is a directory, not a schema file")
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("it is not a regular file (a device, FIFO or socket is never read)")
	}
	if st.Size() > maxSiblingBytes {
		return nil, fmt.Errorf("file of %d bytes is larger than the %d-byte limit for a schema file", st.Size(), maxSiblingBytes)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxSiblingBytes+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxSiblingBytes {
		return nil, fmt.Errorf("file grew past the %d-byte limit for a schema file while being read", maxSiblingBytes)
	}
	return raw, nil
}

// compile compiles the schema node at ptr of the root document with the
// validation library, with every loaded file registered and nothing else
// reachable. Compiling meta-validates against draft 2020-12.
func (l *loader) compile(ptr string) (*jsonschema.Schema, error) {
	c := newCompiler(l.docs)
	return c.Compile(l.rootDoc.url + "#" + ptr)
}

func newCompiler(docs map[string]*doc) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	known := map[string]bool{}
	for _, d := range docs {
		known[d.url] = true
		_ = c.AddResource(d.url, bytes.NewReader(d.raw))
		// A document with an absolute $id is also known by it, so relative
		// $refs resolved against that $id find the sibling files.
		if id := d.root.strOf("$id"); id != "" {
			if base, err := url.Parse(id); err == nil && base.IsAbs() {
				for _, o := range docs {
					rel, err := filepath.Rel(filepath.Dir(d.path), o.path)
					if err != nil {
						continue
					}
					u := base.ResolveReference(&url.URL{Path: filepath.ToSlash(rel)}).String()
					if !known[u] {
						known[u] = true
						_ = c.AddResource(u, bytes.NewReader(o.raw))
					}
				}
			}
		}
	}
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		if strings.HasPrefix(s, "https://json-schema.org/") || strings.HasPrefix(s, "http://json-schema.org/") {
			// The library ships the meta-schemas; they never reach here.
			return nil, fmt.Errorf("meta-schema %s is not bundled", s)
		}
		return nil, fmt.Errorf("refusing to load %s: dshgen never fetches schemas", s)
	}
	return c
}

// libraryProblem turns a validation-library compile error into a Problem.
func libraryProblem(d *doc, err error) Problem {
	msg := err.Error()
	var se *jsonschema.SchemaError
	if errors.As(err, &se) {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			leaf := deepestCause(ve)
			ptr := leaf.InstanceLocation
			line := 0
			if n, ok := resolvePointer(d.root, ptr); ok {
				line, _ = lineCol(d.raw, n.offset)
			}
			return Problem{File: d.show, Line: line, Pointer: ptr, Msg: "not a valid draft 2020-12 schema: " + leaf.Message}
		}
		msg = se.Err.Error()
	}
	return Problem{File: d.show, Msg: "schema does not compile: " + msg}
}

func deepestCause(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve
}

// pointerOf renders a loc as the model's pointer: "#/..." for the root
// document, "file.json#/..." for others (relative to the root's directory).
func (l *loader) pointerOf(at loc) string {
	if at.d == l.rootDoc {
		return "#" + at.ptr
	}
	rel, err := filepath.Rel(filepath.Dir(l.rootDoc.path), at.d.path)
	if err != nil {
		rel = at.d.path
	}
	return filepath.ToSlash(rel) + "#" + at.ptr
}

// deref follows a $ref chain from n at at to the node it names (at most 64
// hops; an unresolvable $ref ends the chain where it stands).
func (l *loader) deref(at loc, n *node) (loc, *node) {
	for i := 0; i < 64 && n != nil && n.kind == nObject; i++ {
		ref := n.strOf("$ref")
		if ref == "" {
			break
		}
		t, err := l.refTarget(at.d, ref)
		if err != nil {
			break
		}
		tn := t.node()
		if tn == nil {
			break
		}
		at, n = t, tn
	}
	return at, n
}

// isDefLoc reports whether at is a $defs (or definitions) entry.
func isDefLoc(at loc) bool {
	i := strings.LastIndex(at.ptr, "/")
	if i < 0 {
		return false
	}
	parent := at.ptr[:i]
	return strings.HasSuffix(parent, "/$defs") || strings.HasSuffix(parent, "/definitions")
}

func defName(at loc) string {
	i := strings.LastIndex(at.ptr, "/")
	return unescapePointerToken(at.ptr[i+1:])
}

// isNamed reports whether the node at at becomes a named type.
func isNamed(at loc, n *node) bool {
	return isDefLoc(at) || (n != nil && n.kind == nObject && n.strOf("title") != "")
}

// Compile compiles the schema node at ptr (a pointer such as
// "#/$defs/SessionEvent", or "" for the root) with the validation library
// (draft 2020-12), with every file the model was loaded from registered and
// nothing else reachable: no remote document is ever fetched.
func (m *Model) Compile(ptr string) (*jsonschema.Schema, error) {
	frag := strings.TrimPrefix(ptr, "#")
	return newCompiler(m.docs).Compile(m.rootDoc.url + "#" + frag)
}

// Compiler returns a validation-library compiler with every file of the
// model registered (for callers compiling many pointers with one compiler:
// compile each with URL() + "#" + fragment).
func (m *Model) Compiler() *jsonschema.Compiler { return newCompiler(m.docs) }

// URL is the root document's URL as the validation library knows it.
func (m *Model) URL() string { return m.rootDoc.url }

// SchemaNode returns the schema keywords at ptr ("#/$defs/X/properties/y",
// or "file.json#/..." for a sibling file) as plain Go values (numbers as
// json.Number), following a $ref chain to the schema it names, merged with
// the keywords beside the $ref (the nearer wins). Tools that need the
// assertions the IR leaves out (minimum, pattern, examples, ...) read them
// here.
func (m *Model) SchemaNode(ptr string) (map[string]any, bool) {
	d := m.rootDoc
	frag := ptr
	if i := strings.Index(ptr, "#"); i >= 0 {
		frag = ptr[i+1:]
		if i > 0 {
			abs := filepath.Join(filepath.Dir(m.rootDoc.path), filepath.FromSlash(ptr[:i]))
			if d = m.docs[abs]; d == nil {
				return nil, false
			}
		}
	}
	n, ok := resolvePointer(d.root, frag)
	if !ok || n.kind != nObject {
		return nil, false
	}
	out := map[string]any{}
	l := &loader{docs: m.docs, rootDoc: m.rootDoc}
	at := loc{d, frag}
	for i := 0; i < 64 && n != nil && n.kind == nObject; i++ {
		for _, k := range n.keys {
			if _, seen := out[k]; !seen {
				out[k] = n.vals[k].toAny()
			}
		}
		ref := n.strOf("$ref")
		if ref == "" {
			break
		}
		t, err := l.refTarget(at.d, ref)
		if err != nil {
			break
		}
		at, n = t, t.node()
	}
	delete(out, "$ref")
	return out, true
}

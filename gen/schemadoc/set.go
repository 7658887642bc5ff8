// Package schemadoc reads schema documents: it is the only code in dshgen
// that opens, parses and resolves schema files. It parses JSON keeping
// member order and byte offsets (for line numbers), resolves JSON pointers
// and $refs within a file and across sibling files, applies overlay files,
// and guards every read: regular files only, under a size cap, confined to
// the schema's directory tree, no remote reference ever fetched. The IR
// builder (gen/ir), the validator (gen/wire/validate), the schema diff and
// the conformance vectors read schemas through it. See README.md.
package schemadoc

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Source names what one load reads.
type Source struct {
	// Path is the root schema file, as the user gave it (it names the file
	// in messages and is the base of relative $refs).
	Path string
	// Bytes is the root document when it is already in memory (the schema
	// embedded in the binary); nil means Path is read with the file guards.
	Bytes []byte
	// Overlays are overlay files (see README.md), applied in order.
	Overlays []string
	// AllowRefDirs are directories besides the root schema's own
	// directory tree that relative $refs may reach.
	AllowRefDirs []string
	// Verified lists the lowercase hex sha256 of documents known to pass
	// meta-validation (the shipped schemas, proven by their package's
	// test). A load whose every document is listed skips MetaValidate,
	// and its library compilation can wait until a schema is first used.
	Verified map[string]bool
	// BindingsOnly says the caller builds bindings from the load and never
	// compiles a schema with the validation library after it: the loader
	// (gen/ir) then drops the files' text once they are meta-validated
	// (Set.DropText), which for a schema file of B bytes is B bytes less
	// memory while the IR is built.
	BindingsOnly bool
}

// Set is one load: the root schema document, every sibling file its $refs
// reach, and the overlays applied to them.
type Set struct {
	root     *Doc
	docs     map[string]*Doc  // by absolute path
	failed   map[string]error // files that could not be loaded
	order    []*Doc           // schema documents, root first
	overlays []*Doc
	origins  []*origin
	dirs     []string // real directories $refs may reach
	problems []Problem
	total    int64
	budget   int
	keywords map[string]Keyword
	verified map[string]bool

	comp    compiled
	dropped bool // DropText was called
}

// DropText lets go of the schema documents' bytes (Doc.Raw) once nothing
// is to read them: the tree, the SHA256 and line numbers (the line index
// is built first, 4 bytes per line) stay, so messages still name the
// line; MetaValidate and Compile fail afterwards. Overlay files keep
// theirs (they are small).
func (s *Set) DropText() {
	for _, d := range s.order {
		d.indexLines()
		d.Raw = nil
	}
	s.dropped = true
}

// errDropped is what the library steps return after DropText.
var errDropped = errors.New("the schema documents' text was dropped after loading (Source.BindingsOnly): nothing can be compiled")

// Open reads the root schema, every file its $refs reach, and the
// overlays; it checks every reference keyword (see README.md) and applies
// the overlays, checking their entries against keywords, the extension
// keywords the caller reads. Every problem found is returned at once as
// an *Error. Open does not meta-validate: see MetaValidate.
func Open(src Source, keywords []Keyword) (*Set, error) {
	s := &Set{docs: map[string]*Doc{}, failed: map[string]error{}, budget: maxNodes(), keywords: map[string]Keyword{}, verified: src.Verified}
	for _, kw := range keywords {
		s.keywords[kw.Name] = kw
	}
	abs, err := filepath.Abs(src.Path)
	if err != nil {
		return nil, NewError([]Problem{{File: src.Path, Msg: err.Error()}})
	}
	raw := src.Bytes
	if raw == nil {
		if raw, err = readFile(abs, maxFileBytes()); err != nil {
			return nil, NewError([]Problem{{File: src.Path, Msg: "cannot read the schema: " + err.Error()}})
		}
	}
	s.total = int64(len(raw))
	root := s.parseDoc(abs, src.Path, raw)
	if root == nil {
		return nil, NewError(s.problems)
	}
	s.root = root
	if !root.Root.IsObject() {
		s.add(Loc{root, ""}, "the schema document must be a JSON object", "")
		return nil, NewError(s.problems)
	}
	s.dirs = []string{realDir(filepath.Dir(abs))}
	for _, d := range src.AllowRefDirs {
		s.allowDir(d)
	}
	s.register(root)
	s.scanDoc(root)
	if len(s.problems) == 0 {
		for _, o := range src.Overlays {
			s.applyOverlay(o)
		}
	}
	if len(s.problems) > 0 {
		return nil, NewError(s.problems)
	}
	return s, nil
}

func (s *Set) allowDir(d string) {
	abs, err := filepath.Abs(d)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(abs); err == nil && !st.IsDir() {
			err = errors.New("not a directory")
		}
	}
	if err != nil {
		s.problems = append(s.problems, Problem{File: d, Msg: "--allow-ref-dir: " + plainErr(err).Error()})
		return
	}
	s.dirs = append(s.dirs, realDir(abs))
}

// parseDoc parses a file (nil on a syntax error, which is recorded).
func (s *Set) parseDoc(abs, show string, raw []byte) *Doc {
	n, err := parse(raw, &s.budget)
	if err != nil {
		d := newDoc(abs, show, raw, nil)
		var se *SyntaxError
		line, col := 0, 0
		if errors.As(err, &se) {
			line, col = d.LineCol(se.Offset)
		}
		s.problems = append(s.problems, Problem{File: show, Line: line, Msg: fmt.Sprintf("invalid JSON at column %d: %v", col, err)})
		return nil
	}
	return newDoc(abs, show, raw, n)
}

// register records a schema document and its declared draft.
func (s *Set) register(d *Doc) {
	if v := d.Root.Member("$schema"); v != nil && v.Kind() == String {
		if dr := DraftOf(v.Str()); dr != 0 {
			d.Draft = dr
		}
	}
	s.docs[d.Path] = d
	s.order = append(s.order, d)
}

// add records a problem at l.
func (s *Set) add(l Loc, msg, hint string) { s.problems = append(s.problems, s.Problem(l, msg, hint)) }

// Problem builds the problem for a location: the schema file, line and
// pointer, or, for a value an overlay provided, the overlay file, line and
// pointer (the message then names the schema node it was set on).
func (s *Set) Problem(l Loc, msg, hint string) Problem {
	n := l.Node()
	if n != nil && n.from != nil {
		o := n.from
		suffix := strings.TrimPrefix(l.Ptr, o.target.Child(o.key).Ptr)
		return Problem{File: o.doc.Show, Line: o.doc.Line(n.offset), Pointer: o.ptr + suffix,
			Msg: fmt.Sprintf("%s (set by this overlay on %s of %s)", msg, PointerText(l.Ptr), l.Doc.Show), Hint: hint}
	}
	line := 0
	if n != nil {
		line = l.Doc.Line(n.offset)
	} else if p := l.nearest(); p != nil {
		line = l.Doc.Line(p.offset)
	}
	return Problem{File: l.Doc.Show, Line: line, Pointer: l.Ptr, Msg: msg, Hint: hint}
}

// nearest returns the deepest existing node on the way to l.
func (l Loc) nearest() *Node {
	for p := l; ; p = p.Parent() {
		if n := p.Node(); n != nil {
			return n
		}
		if p.Ptr == "" {
			return nil
		}
	}
}

// Root returns the root schema document.
func (s *Set) Root() *Doc { return s.root }

// Docs returns the schema documents of the load, the root first, then the
// sibling files in the order they were reached.
func (s *Set) Docs() []*Doc { return s.order }

// Overlays returns the overlay files applied, in order.
func (s *Set) Overlays() []*Doc { return s.overlays }

// Resolve resolves a $ref value written in document from. Only a JSON
// pointer fragment ("#/$defs/X") and a relative file path with an optional
// pointer fragment ("common.json#/$defs/X") are references dshgen follows;
// a remote reference (any scheme or host) is refused, never fetched, and so
// is a file outside the allowed directories. A file named for the first
// time is read with the file guards, parsed and its references checked.
func (s *Set) Resolve(from *Doc, ref string) (Loc, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return Loc{}, fmt.Errorf("$ref %q is not a valid URI reference: %v", ref, err)
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(ref, "//") {
		return Loc{}, fmt.Errorf("remote $ref %q refused: dshgen never fetches schemas over the network; copy the file beside the schema and $ref it by relative path", ref)
	}
	frag := u.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return Loc{}, fmt.Errorf("$ref %q uses an anchor; only JSON pointer fragments (#/...) are supported", ref)
	}
	if u.Path == "" {
		return Loc{from, frag}, nil
	}
	var abs string
	if path.IsAbs(u.Path) {
		abs = filepath.Clean(filepath.FromSlash(u.Path))
	} else {
		abs = filepath.Join(filepath.Dir(from.Path), filepath.FromSlash(u.Path))
	}
	d, err := s.load(abs)
	if err != nil {
		var he *hintError
		if errors.As(err, &he) {
			return Loc{}, &hintError{fmt.Sprintf("$ref %q: %s", ref, he.msg), he.hint}
		}
		return Loc{}, fmt.Errorf("$ref %q: %v", ref, err)
	}
	return Loc{d, frag}, nil
}

// load returns the schema document at abs, reading it on first use.
func (s *Set) load(abs string) (*Doc, error) {
	if d := s.docs[abs]; d != nil {
		return d, nil
	}
	if err, ok := s.failed[abs]; ok {
		return nil, err
	}
	d, err := s.read(abs)
	if err != nil {
		s.failed[abs] = err
		return nil, err
	}
	s.register(d)
	s.scanDoc(d)
	return d, nil
}

func (s *Set) read(abs string) (*Doc, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if !s.allowed(filepath.Clean(abs)) {
			return nil, s.outside(abs)
		}
		return nil, fmt.Errorf("cannot read %s: %v", s.show(abs), plainErr(err))
	}
	if !s.allowed(real) {
		return nil, s.outside(real)
	}
	if len(s.docs)+len(s.failed) >= MaxFiles {
		return nil, fmt.Errorf("more than %d schema files in one load", MaxFiles)
	}
	left := maxTotalBytes() - s.total
	if left > maxFileBytes() {
		left = maxFileBytes()
	}
	raw, err := readFile(real, left)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", s.show(abs), err)
	}
	s.total += int64(len(raw))
	n := len(s.problems)
	d := s.parseDoc(abs, s.show(abs), raw)
	if d == nil {
		return nil, fmt.Errorf("%s is not valid JSON (%s)", s.show(abs), strings.TrimPrefix(s.problems[n].String(), s.show(abs)+":"))
	}
	s.problems = s.problems[:n]
	if !d.Root.IsObject() && d.Root.Kind() != Bool {
		return nil, fmt.Errorf("%s is not a schema document (a JSON %s)", s.show(abs), d.Root.Kind())
	}
	return d, nil
}

func (s *Set) allowed(p string) bool {
	for _, d := range s.dirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

func (s *Set) outside(p string) error {
	return &hintError{fmt.Sprintf("%s is outside the schema's directory tree %s, so it is not read", p, s.dirs[0]),
		fmt.Sprintf("move the file under %s, or allow its directory with --allow-ref-dir %s", s.dirs[0], filepath.Dir(p))}
}

// hintError is an error that carries the fix for a Problem.
type hintError struct{ msg, hint string }

func (e *hintError) Error() string { return e.msg }

// show renders a sibling file's path as messages show it: relative to the
// directory the root schema was named in.
func (s *Set) show(abs string) string {
	rel, err := filepath.Rel(filepath.Dir(s.root.Path), abs)
	if err != nil {
		return abs
	}
	return filepath.Join(filepath.Dir(s.root.Show), rel)
}

// Lookup returns the location and node of a pointer in the model's form:
// "#/..." (or "/...", or "" for the root) in the root document,
// "file.json#/..." in a sibling file (relative to the root's directory).
func (s *Set) Lookup(ptr string) (Loc, *Node, bool) {
	d, frag, ok := s.split(ptr)
	if !ok {
		return Loc{}, nil, false
	}
	n, ok := Resolve(d.Root, frag)
	return Loc{d, frag}, n, ok
}

func (s *Set) split(ptr string) (*Doc, string, bool) {
	file, frag, hasHash := strings.Cut(ptr, "#")
	if !hasHash {
		return s.root, ptr, true
	}
	if file == "" {
		return s.root, frag, true
	}
	d := s.docs[filepath.Join(filepath.Dir(s.root.Path), filepath.FromSlash(file))]
	return d, frag, d != nil
}

// PointerOf renders a location in the model's pointer form: "#/..." in the
// root document, "file.json#/..." in a sibling file.
func (s *Set) PointerOf(l Loc) string {
	if l.Doc == s.root {
		return "#" + l.Ptr
	}
	rel, err := filepath.Rel(filepath.Dir(s.root.Path), l.Doc.Path)
	if err != nil {
		rel = l.Doc.Path
	}
	return filepath.ToSlash(rel) + "#" + l.Ptr
}

// Keywords returns the schema keywords at a model pointer as plain Go
// values (numbers as json.Number), following a $ref chain to the schema it
// names and merging the keywords beside each $ref (the nearer wins), for
// tools that need the assertions the IR leaves out (minimum, pattern,
// examples, ...).
func (s *Set) Keywords(ptr string) (map[string]any, bool) {
	at, n, ok := s.Lookup(ptr)
	if !ok || !n.IsObject() {
		return nil, false
	}
	out := map[string]any{}
	for i := 0; i < 64 && n.IsObject(); i++ {
		for i, k := range n.names() {
			if _, seen := out[k]; !seen {
				out[k] = n.elems()[i].Value()
			}
		}
		var ok bool
		if at, n, ok = s.refStep(at, n); !ok {
			break
		}
	}
	delete(out, "$ref")
	return out, true
}

// Deref follows a $ref chain from the node at at to the node it names (at
// most 64 hops; an unresolvable $ref ends the chain where it stands).
func (s *Set) Deref(at Loc, n *Node) (Loc, *Node) {
	for i := 0; i < 64; i++ {
		tat, tn, ok := s.refStep(at, n)
		if !ok {
			break
		}
		at, n = tat, tn
	}
	return at, n
}

// refStep follows the $ref of n, if it has one that resolves to a node.
func (s *Set) refStep(at Loc, n *Node) (Loc, *Node, bool) {
	ref := n.Member("$ref").Str()
	if ref == "" {
		return at, n, false
	}
	t, err := s.Resolve(at.Doc, ref)
	if err != nil {
		return at, n, false
	}
	tn := t.Node()
	return t, tn, tn != nil
}

// compiled holds the validation library's compiler of a Set.
type compiled struct {
	mu sync.Mutex
	st *compilerState
}

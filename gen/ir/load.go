package ir

import (
	"strings"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// Problem is one thing wrong with a schema or overlay: file, line, JSON
// pointer, message and fix (see schemadoc.Problem).
type Problem = schemadoc.Problem

// LoadError lists every problem found in one load, sorted by file, line and
// pointer. Generation stops before writing anything when a load returns one.
type LoadError = schemadoc.Error

// loc is a node's place: a document and a JSON pointer fragment in it.
type loc = schemadoc.Loc

// node is one JSON value of a schema document.
type node = schemadoc.Node

// loader builds one Model.
type loader struct {
	set      *schemadoc.Set
	problems []Problem
	types    map[string]*Type // by loc.Key()
	typeLocs map[*Type]loc
	fallback map[*Type]*Type // fallback def → its union
	titled   map[string]titledBranch
	depth    int
	results  []*Type // the methods' ResultUnion and undeclared-params types (not in types: no schema location)
}

// Source names what a load reads: the root schema (a file, or bytes already
// in memory), overlay files and the directories $refs may reach besides the
// schema's own (see gen/schemadoc).
type Source = schemadoc.Source

// Load reads the schema at path (and the files it $refs by relative path)
// and builds the Model; see LoadSource.
func Load(path string) (*Model, error) { return LoadSource(Source{Path: path}) }

// LoadBytes is Load for a root document already in memory; path names it
// in errors and is the base for relative $refs.
func LoadBytes(path string, raw []byte) (*Model, error) {
	if raw == nil {
		raw = []byte{}
	}
	return LoadSource(Source{Path: path, Bytes: raw})
}

// LoadSource reads the schema documents and overlays src names with the
// guards of gen/schemadoc (regular files under a size cap, $refs confined
// to the schema's directory tree and the allowed directories, no remote
// reference fetched), meta-validates the schema against the draft it
// declares, and builds the Model. An overlay entry the IR never reads is a
// problem like any other. Every problem found is returned at once as a
// *LoadError.
func LoadSource(src Source) (*Model, error) {
	set, err := openSet(src)
	if err != nil {
		return nil, err
	}
	m, _, err := build(set, src.Path, false)
	return m, err
}

// openSet opens and meta-validates the documents src names.
func openSet(src Source) (*schemadoc.Set, error) {
	set, err := schemadoc.Open(src, Keywords())
	if err != nil {
		return nil, err
	}
	// Meta-validation and compilation by the validation library.
	if err := set.MetaValidate(); err != nil {
		return nil, err
	}
	if src.BindingsOnly {
		set.DropText()
	}
	return set, nil
}

// build makes the IR of a loaded set of documents.
// With lenient, the problems that only keep bindings from typing a schema
// (the types and names of build and finish) are returned apart instead of
// failing the load (see LoadForValidation).
func build(set *schemadoc.Set, path string, lenient bool) (*Model, []Problem, error) {
	l := &loader{set: set, types: map[string]*Type{}, typeLocs: map[*Type]loc{}, fallback: map[*Type]*Type{}}
	root := set.Root()
	m := &Model{
		Title:       root.Root.StrOf("title"),
		Description: root.Root.StrOf("description"),
		ID:          root.Root.StrOf("$id"),
		File:        path,
		SHA256:      root.SHA256,
		byPointer:   map[string]*Type{},
		source:      set,
	}
	for _, o := range set.Overlays() {
		m.Overlays = append(m.Overlays, Overlay{File: o.Show, SHA256: o.SHA256})
	}
	at := loc{Doc: root}
	m.TSRequestMap = root.Root.StrOf(kwTSRequestMap.Name)
	m.TSNotificationMap = root.Root.StrOf(kwTSNotificationMap.Name)
	for _, kw := range []string{"$defs", "definitions"} {
		defs := root.Root.Get(kw)
		if !defs.IsObject() {
			continue
		}
		for _, k := range defs.Keys() {
			dat := at.Child(kw, k)
			if defs.Get(k).Get(kwValidationOnly.Name).Bool() {
				m.ValidationOnly = append(m.ValidationOnly, l.pointerOf(dat))
				continue
			}
			l.typeAt(dat)
		}
	}
	typing := len(l.problems)
	m.Methods = l.methods(at, m)
	l.resultUnions(m.Methods)
	m.SDK = l.sdk(m, at)
	m.ErrorCodes = l.errorCodes(at)
	for _, r := range root.Root.Get(kwRuleSets.Name).Items() {
		m.RuleSets = append(m.RuleSets, r.Str())
	}
	methods := len(l.problems)
	m.Warnings = l.schemaWarnings(at, m)
	m.SDK = l.sdk(m, at) // after the count: a bad x-request-id concerns the bindings only
	if lenient {
		l.degradeRefused()
	}
	l.finish(m)
	var binding []Problem
	if lenient {
		binding = append(append(binding, l.problems[:typing]...), l.problems[methods:]...)
		l.problems = l.problems[typing:methods]
	}
	l.problems = append(l.problems, set.Unused()...)
	if len(l.problems) > 0 {
		return nil, nil, schemadoc.NewError(l.problems)
	}
	return m, binding, nil
}

func (l *loader) problem(at loc, msg, hint string) {
	l.problems = append(l.problems, l.set.Problem(at, msg, hint))
}

// refTarget resolves a $ref string relative to the file it appears in (see
// schemadoc.Set.Resolve).
func (l *loader) refTarget(from *schemadoc.Doc, ref string) (loc, error) {
	return l.set.Resolve(from, ref)
}

// pointerOf renders a loc as the model's pointer: "#/..." for the root
// document, "file.json#/..." for others (relative to the root's directory).
func (l *loader) pointerOf(at loc) string { return l.set.PointerOf(at) }

// deref follows a $ref chain from n at at to the node it names.
func (l *loader) deref(at loc, n *node) (loc, *node) { return l.set.Deref(at, n) }

// isDefLoc reports whether at is a $defs (or definitions) entry.
func isDefLoc(at loc) bool {
	parent := at.Parent().Ptr
	return at.Ptr != "" && (strings.HasSuffix(parent, "/$defs") || strings.HasSuffix(parent, "/definitions"))
}

func defName(at loc) string { return at.Last() }

// isNamed reports whether the node at at becomes a named type.
func isNamed(at loc, n *node) bool {
	return isDefLoc(at) || (n.IsObject() && n.StrOf("title") != "")
}

// Source returns the schema documents the model was loaded from: pointer
// lookups, the schema keywords the IR leaves out (Keywords), and the
// validation library's compiled schemas (Compile), all of the same files.
func (m *Model) Source() *schemadoc.Set { return m.source }

// DropSource lets go of the schema documents the model was built from (the
// parsed trees, their bytes, the validation library's compiled schemas),
// for a caller that goes on to print bindings only: the emitters read the
// IR alone. Source returns nil afterwards. For a schema of B bytes this
// frees about 4 B (gen/emit/BENCH.md).
func (m *Model) DropSource() {
	m.source = nil
	for _, me := range m.Methods {
		me.at = loc{}
	}
}

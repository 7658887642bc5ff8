package schemadoc

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
)

// Shape is the JSON shape an extension keyword's value must have.
type Shape int

// The shapes.
const (
	ShapeString  Shape = iota + 1 // a non-empty string
	ShapeStrings                  // an array of strings
	ShapeBool                     // true or false
	ShapeObject                   // an object (checked further by its reader)
)

func (s Shape) String() string {
	return [...]string{"", "a non-empty string", "an array of strings", "true or false", "an object"}[s]
}

func (s Shape) fits(n *Node) bool {
	switch s {
	case ShapeString:
		return n.Kind() == String && n.str != ""
	case ShapeStrings:
		for _, it := range n.Items() {
			if it.Kind() != String {
				return false
			}
		}
		return n.Kind() == Array
	case ShapeBool:
		return n.Kind() == Bool
	case ShapeObject:
		return n.IsObject()
	}
	return false
}

// Keyword is one extension keyword a reader of the schema (the IR) reads,
// and so one an overlay may set.
type Keyword struct {
	Name  string
	Shape Shape
	// RootOnly: the keyword is read only at the root of the root schema.
	RootOnly bool
	// Where says where the reader reads it (the hint of a "never used" entry).
	Where string
}

// origin is one overlay entry member: a keyword an overlay set on a schema
// node. Every node of its value points here; Get marks it used.
type origin struct {
	doc    *Doc   // the overlay file
	ptr    string // pointer of the value in the overlay file
	target Loc    // the schema node the keyword was set on
	key    string
	kw     Keyword
	used   atomic.Bool
}

// applyOverlay reads one overlay file and sets its entries on the schema
// nodes they name. The format (README.md):
//
//	{"description": "...", "overlay": {"<pointer>": {"<x-keyword>": <value>, ...}, ...}}
func (s *Set) applyOverlay(file string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		s.problems = append(s.problems, Problem{File: file, Msg: "overlay: " + err.Error()})
		return
	}
	left := maxTotalBytes() - s.total
	if left > maxFileBytes() {
		left = maxFileBytes()
	}
	raw, err := readFile(abs, left)
	if err != nil {
		s.problems = append(s.problems, Problem{File: file, Msg: "cannot read the overlay: " + err.Error()})
		return
	}
	s.total += int64(len(raw))
	od := s.parseDoc(abs, file, raw)
	if od == nil {
		return
	}
	s.overlays = append(s.overlays, od)
	at := Loc{od, ""}
	prob := func(l Loc, msg, hint string) {
		s.problems = append(s.problems, Problem{File: od.Show, Line: od.Line(l.nearest().offset), Pointer: l.Ptr, Msg: msg, Hint: hint})
	}
	if !od.Root.IsObject() {
		prob(at, "an overlay must be a JSON object {\"overlay\": {pointer: {keyword: value}}}", "")
		return
	}
	for i, k := range od.Root.names() {
		v := od.Root.elems()[i]
		switch k {
		case "overlay":
			if !v.IsObject() {
				prob(at.Child(k), "\"overlay\" must be an object: JSON pointer into the schema → {keyword: value}", "")
			}
		case "description", "$comment":
			if v.Kind() != String {
				prob(at.Child(k), fmt.Sprintf("%q must be a string", k), "")
			}
		default:
			prob(at.Child(k), fmt.Sprintf("unknown overlay member %q", k), "an overlay has \"overlay\" and optionally \"description\" or \"$comment\"")
		}
	}
	entries := od.Root.Member("overlay")
	if entries == nil {
		prob(at, "the overlay has no \"overlay\" member", "add \"overlay\": {pointer: {keyword: value}}")
		return
	}
	var names []string
	for name := range s.keywords {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, ptr := range entries.Keys() {
		eat := at.Child("overlay", ptr)
		e := entries.Member(ptr)
		tat, tn, ok := s.Lookup(ptr)
		if tat.Doc == nil {
			prob(eat, fmt.Sprintf("%q names no loaded schema file (the root schema, or a file its $refs reach)", ptr), "write \"#/...\" for the root schema, \"file.json#/...\" for a sibling file")
			continue
		}
		if !ok {
			near := Loc{tat.Doc, tat.Ptr}
			for near.Ptr != "" && near.Node() == nil {
				near = near.Parent()
			}
			prob(eat, fmt.Sprintf("the schema has no node at %s (in %s); the deepest existing node on the way is %s", PointerText(tat.Ptr), tat.Doc.Show, PointerText(near.Ptr)), "fix the pointer (RFC 6901: ~1 for / and ~0 for ~ in a name)")
			continue
		}
		if !tn.IsObject() {
			prob(eat, fmt.Sprintf("the node at %s is a JSON %s, not a schema object, so it has no keywords to add", PointerText(tat.Ptr), tn.Kind()), "point at the object schema")
			continue
		}
		if !e.IsObject() {
			prob(eat, "an overlay entry must be an object of keywords, e.g. {\"x-name\": \"Name\"}", "")
			continue
		}
		for _, key := range e.names() {
			v := e.Member(key)
			vat := eat.Child(key)
			kw, known := s.keywords[key]
			switch {
			case !known:
				prob(vat, fmt.Sprintf("unknown overlay keyword %q", key), "an overlay sets only dshgen's extension keywords: "+strings.Join(names, ", "))
				continue
			case kw.RootOnly && (tat.Doc != s.root || tat.Ptr != ""):
				prob(vat, fmt.Sprintf("%s is read only at the root of the schema, not at %s", key, PointerText(tat.Ptr)), "put it in the entry for \"#\"")
				continue
			case !kw.Shape.fits(v):
				prob(vat, fmt.Sprintf("%s must be %s, not %s", key, kw.Shape, describe(v)), "")
				continue
			}
			if prev := tn.Member(key); prev != nil && prev.from != nil {
				prob(vat, fmt.Sprintf("%s of %s is set by two overlays (%s line %d too)", key, PointerText(tat.Ptr), prev.from.doc.Show, prev.from.doc.Line(prev.offset)), "keep one of them")
				continue
			}
			o := &origin{doc: od, ptr: vat.Ptr, target: tat, key: key, kw: kw}
			mark(v, o)
			tn.set(key, v)
			s.origins = append(s.origins, o)
			if key == "x-methods" {
				s.scanMethods(tat.Child(key), v)
			}
		}
	}
}

// describe names a value's JSON type for messages.
func describe(n *Node) string {
	if n.Kind() == String && n.str == "" {
		return "an empty string"
	}
	k := n.Kind().String()
	if k == "array" || k == "object" {
		return "an " + k
	}
	return "a " + k
}

func mark(n *Node, o *origin) {
	n.from = o
	for _, it := range n.elems() { // an array's elements, an object's values
		mark(it, o)
	}
}

// Unused returns a problem for every overlay entry nothing read (through
// Node.Get) since Open: an entry on a node the reader never looks at, or a
// keyword it does not read there.
func (s *Set) Unused() []Problem {
	var out []Problem
	for _, o := range s.origins {
		if o.used.Load() {
			continue
		}
		n := o.target.Node().Member(o.key)
		hint := "remove the entry"
		if o.kw.Where != "" {
			hint += ", or set it where dshgen reads " + o.kw.Name + ": " + o.kw.Where
		}
		out = append(out, Problem{File: o.doc.Show, Line: o.doc.Line(n.offset), Pointer: o.ptr,
			Msg: fmt.Sprintf("never used: dshgen does not read %s on %s of %s", o.key, PointerText(o.target.Ptr), o.target.Doc.Show), Hint: hint})
	}
	return out
}

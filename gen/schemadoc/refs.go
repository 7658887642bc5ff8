package schemadoc

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Where JSON Schema keywords hold subschemas (every draft dshgen reads);
// everything else is data (enum, const, default, examples) or a keyword
// dshgen and the validation library do not descend into.
var (
	oneSchema = map[string]bool{
		"additionalProperties": true, "additionalItems": true, "unevaluatedItems": true,
		"unevaluatedProperties": true, "not": true, "if": true, "then": true, "else": true,
		"contains": true, "propertyNames": true, "contentSchema": true,
	}
	schemaList = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMap  = map[string]bool{
		"$defs": true, "definitions": true, "properties": true, "patternProperties": true,
		"dependentSchemas": true, "dependencies": true,
	}
)

// scanDoc checks every reference keyword of a schema document, loading the
// sibling files its $refs name.
func (s *Set) scanDoc(d *Doc) {
	s.scanSchema(Loc{d, ""}, d.Root, 0)
	if tbl := d.Root.Member("x-methods"); tbl.IsObject() {
		s.scanMethods(Loc{d, "/x-methods"}, tbl)
	}
}

// scanMethods checks the params/result $refs of an x-methods table.
func (s *Set) scanMethods(at Loc, tbl *Node) {
	for i, name := range tbl.names() {
		e := tbl.elems()[i]
		for _, k := range []string{"params", "result"} {
			if v := e.Member(k); v.IsObject() {
				s.scanSchema(at.Child(name, k), v, 1)
			}
		}
	}
}

// scanSchema checks the schema n at at and every subschema below it.
func (s *Set) scanSchema(at Loc, n *Node, depth int) {
	if !n.IsObject() || depth > MaxDepth {
		return
	}
	d := at.Doc
	for i, k := range n.names() {
		v := n.elems()[i]
		if kw, ok := s.keywords[k]; ok && !kw.Shape.fits(v) && (!kw.RootOnly || at.Ptr == "") {
			s.add(at.Child(k), fmt.Sprintf("%s must be %s, not %s", k, kw.Shape, describe(v)), "")
		}
		switch {
		case k == "$ref" && v.Kind() == String:
			s.checkRef(at.Child(k), v.str)
		case (k == "$dynamicRef" || k == "$recursiveRef") && v.Kind() == String:
			s.checkDynamicRef(at.Child(k), k, v.str)
		case k == "$schema" && v.Kind() == String:
			if DraftOf(v.str) == 0 {
				what := "unknown"
				if isRemote(v.str) {
					what = "remote"
				}
				s.add(at.Child(k), fmt.Sprintf("%s $schema %q refused: it is not a JSON Schema dialect dshgen reads, and dshgen never fetches a meta-schema", what, v.str),
					"declare one of "+KnownDialects+" (or drop $schema for draft 2020-12)")
			}
		case k == "$vocabulary" && v.IsObject():
			for _, u := range v.names() {
				if !standardVocabulary(u) {
					s.add(at.Child(k, u), fmt.Sprintf("$vocabulary %q refused: only the standard 2019-09 and 2020-12 vocabularies are known, and dshgen never fetches one", u), "remove it")
				}
			}
		case (k == "$id" || (k == "id" && d.Draft == Draft4)) && v.Kind() == String:
			s.checkID(at, k, v.str, n)
		case k == "items":
			if v.Kind() == Array {
				for i, it := range v.elems() {
					s.scanSchema(at.Child(k, i), it, depth+1)
				}
			} else {
				s.scanSchema(at.Child(k), v, depth+1)
			}
		case oneSchema[k]:
			s.scanSchema(at.Child(k), v, depth+1)
		case schemaList[k] && v.Kind() == Array:
			for i, it := range v.elems() {
				s.scanSchema(at.Child(k, i), it, depth+1)
			}
		case schemaMap[k] && v.IsObject():
			for j, name := range v.names() {
				s.scanSchema(at.Child(k, name), v.elems()[j], depth+1)
			}
		}
	}
}

func isRemote(ref string) bool {
	u, err := url.Parse(ref)
	return err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(ref, "//")
}

// checkRef checks one $ref: it must resolve (see Resolve) to an existing node.
func (s *Set) checkRef(at Loc, ref string) {
	t, err := s.Resolve(at.Doc, ref)
	if err != nil {
		s.add(at, err.Error(), Hint(err))
		return
	}
	if t.Node() == nil {
		s.add(at, fmt.Sprintf("$ref %q does not resolve: no node at %s in %s", ref, PointerText(t.Ptr), t.Doc.Show), "")
	}
}

// checkDynamicRef: a $dynamicRef or $recursiveRef may only name a place in
// its own document (the validation library resolves it; nothing is fetched
// or read for it).
func (s *Set) checkDynamicRef(at Loc, kw, ref string) {
	u, err := url.Parse(ref)
	switch {
	case err != nil:
		s.add(at, fmt.Sprintf("%s %q is not a valid URI reference: %v", kw, ref, err), "")
	case isRemote(ref):
		s.add(at, fmt.Sprintf("remote %s %q refused: dshgen never fetches schemas over the network", kw, ref), "copy the schema into this document's $defs and $ref it")
	case u.Path != "":
		s.add(at, fmt.Sprintf("%s %q names another file; dshgen reads only $ref across files", kw, ref), "use $ref with a relative path")
	}
}

// checkID: the root's $id names the document (any absolute URI is a name,
// never fetched: the validation library is given every loaded file under
// it); an $id inside a schema would start a new base for the $refs below
// it, which dshgen does not follow (it resolves $refs by file path), so it
// is refused. Draft-06/07 anchors ("$id": "#name") and an $id beside a
// $ref in draft-07 and earlier (ignored by those drafts) are accepted.
func (s *Set) checkID(at Loc, kw, id string, n *Node) {
	d := at.Doc
	if at.Ptr == "" {
		u, err := url.Parse(id)
		if err != nil || (!u.IsAbs() && (strings.Contains(u.Path, "/") || u.Host != "")) {
			s.add(at.Child(kw), fmt.Sprintf("the document's %s %q is neither an absolute URI nor a file name, so it would move the base of every relative $ref", kw, id), "make it an absolute URI (a name, never fetched) or remove it")
		}
		return
	}
	if d.Draft <= Draft7 && (strings.HasPrefix(id, "#") || n.Member("$ref") != nil) {
		return
	}
	what := "an"
	if isRemote(id) {
		what = "a remote"
	}
	s.add(at.Child(kw), fmt.Sprintf("%s %s %q inside the schema starts a new base URI for the $refs below it; dshgen resolves $refs by file path and does not follow it", what, kw, id),
		"move this schema into a file of its own and $ref it by relative path, or remove the "+kw)
}

// Hint returns the fix an error from Resolve carries ("" when none).
func Hint(err error) string {
	var he *hintError
	if errors.As(err, &he) {
		return he.hint
	}
	return ""
}

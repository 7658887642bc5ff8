package schemadoc

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Meta-validating a large document in pieces. The validation library
// decodes a document whole into Go values, meta-validates all of it and
// indexes every subschema before it compiles anything: for a document of
// B bytes that is about 20 B of memory at once (gen/emit/BENCH.md). A
// single-file load larger than metaPieceBytes is instead handed to the
// library as several smaller documents at the same URL, each the original
// with members left out:
//
//   - the root piece: every member of the root except the $defs and
//     definitions entries and the extension members (x-...), plus the
//     entries and extension members its $refs reach, transitively (so the
//     library compiles exactly what a whole-document compile of the root
//     compiles, with the same URLs and JSON pointers in its messages);
//   - the other $defs and definitions entries, in document order, grouped
//     up to metaPieceBytes, beside the root's $schema, $id, id and
//     $vocabulary (the library meta-validates them and compiles only the
//     trivial root).
//
// Every member the meta-schema constrains is thereby meta-validated by the
// library exactly once, at its own pointer: the library stays the
// authority for every error. The pieces are compiled one at a time and
// dropped; peak memory follows the largest piece, not the document. A
// document the pointer-following above cannot cut safely (several files,
// $dynamicRef, $recursiveRef, anchors, an embedded $id) is compiled whole.

// metaPieceBytes is the size above which a document is meta-validated in
// pieces, and about the size of each piece (bytes of schema text).
var metaPieceBytes = 1 << 20

// identityKeys are the root members every piece carries: they decide the
// draft, the base URL and the vocabularies the rest is read with.
var identityKeys = []string{"$schema", "$id", "id", "$vocabulary"}

// defsKeys are the root members whose entries are split between pieces.
var defsKeys = []string{"$defs", "definitions"}

// splitKeys are keywords that resolve by something other than a JSON
// pointer from the document root, or change the base of the ones inside:
// a document using any of them is compiled whole.
var splitKeys = map[string]bool{"$dynamicRef": true, "$recursiveRef": true, "$anchor": true, "$dynamicAnchor": true, "$recursiveAnchor": true, "$id": true, "id": true}

// metaPieces returns the documents to hand the library in place of the
// load's one document, or nil when it is to be compiled whole (see above).
func (s *Set) metaPieces() [][]byte {
	d := s.root
	if len(s.order) != 1 || len(d.Raw) <= metaPieceBytes || !d.Root.IsObject() {
		return nil
	}
	root := d.Root
	type entry struct {
		kw, name string
		raw      json.RawMessage
	}
	var entries []*entry
	byName := map[string]*entry{} // kw + "/" + name
	split := false
	for _, kw := range defsKeys {
		defs := root.Member(kw)
		if !defs.IsObject() || defs.FromOverlay() {
			continue
		}
		split = true
		for _, name := range defs.Keys() {
			e := &entry{kw: kw, name: name}
			entries = append(entries, e)
			byName[kw+"/"+name] = e
		}
	}
	if !split {
		return nil
	}
	// The root piece: its members, then what their $refs reach; no
	// embedded $id, anchor or dynamic reference anywhere.
	inRoot := map[string]bool{} // root member names, and kw+"/"+name of entries
	cut := true
	var queue []*Node
	ref := func(r string) {
		at, err := s.Resolve(d, r)
		if err != nil || at.Doc != d {
			return // reported by Open; or a file, which keeps the document whole
		}
		toks := strings.SplitN(strings.TrimPrefix(at.Ptr, "/"), "/", 3)
		first := UnescapeToken(toks[0])
		switch {
		case at.Ptr == "":
		case isDefsKey(first) && len(toks) > 1:
			key := first + "/" + UnescapeToken(toks[1])
			if byName[key] != nil && !inRoot[key] {
				inRoot[key] = true
				queue = append(queue, root.Member(first).Member(UnescapeToken(toks[1])))
			}
		case isDefsKey(first):
			cut = false // the whole $defs object as a schema
		case !inRoot[first] && root.Member(first) != nil:
			if root.Member(first).FromOverlay() {
				cut = false
				return
			}
			inRoot[first] = true
			queue = append(queue, root.Member(first))
		}
	}
	for _, k := range root.Keys() {
		if isDefsKey(k) || strings.HasPrefix(k, "x-") {
			continue
		}
		inRoot[k] = true
		n := root.Member(k)
		if splitKeys[k] && k != "$id" && k != "id" {
			return nil
		}
		if k == "$ref" && n.kind == String && n.from == nil {
			ref(n.str)
		} else {
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 && cut {
		n := queue[0]
		queue = queue[1:]
		cut = scanRefs(n, ref) && cut
	}
	for _, e := range entries {
		if !cut {
			return nil
		}
		if !inRoot[e.kw+"/"+e.name] {
			cut = scanRefs(root.Member(e.kw).Member(e.name), nil)
		}
	}
	if !cut {
		return nil
	}
	for _, e := range entries {
		raw, ok := rawAt(d.Raw, root.Member(e.kw).Member(e.name))
		if !ok {
			return nil
		}
		e.raw = raw
	}
	member := func(k string) (json.RawMessage, bool) { return rawAt(d.Raw, root.Member(k)) }
	var identity []string
	for _, k := range identityKeys {
		if root.Member(k) != nil {
			identity = append(identity, k)
		}
	}
	// piece writes one document: the given root members, then the entries
	// under their keyword.
	piece := func(members []string, es []*entry) ([]byte, bool) {
		var b bytes.Buffer
		b.WriteByte('{')
		sep := func() {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
		}
		for _, k := range members {
			raw, ok := member(k)
			if !ok {
				return nil, false
			}
			sep()
			writeKey(&b, k)
			b.Write(raw)
		}
		for _, kw := range defsKeys {
			open := false
			for _, e := range es {
				if e.kw != kw {
					continue
				}
				if !open {
					sep()
					writeKey(&b, kw)
					b.WriteByte('{')
					open = true
				} else {
					b.WriteByte(',')
				}
				writeKey(&b, e.name)
				b.Write(e.raw)
			}
			if open {
				b.WriteByte('}')
			}
		}
		b.WriteByte('}')
		return b.Bytes(), true
	}
	var rootMembers []string
	var rootEntries, rest []*entry
	for _, k := range root.Keys() {
		if inRoot[k] {
			rootMembers = append(rootMembers, k)
		}
	}
	for _, e := range entries {
		if inRoot[e.kw+"/"+e.name] {
			rootEntries = append(rootEntries, e)
		} else {
			rest = append(rest, e)
		}
	}
	first, ok := piece(rootMembers, rootEntries)
	if !ok {
		return nil
	}
	pieces := [][]byte{first}
	for len(rest) > 0 {
		n, size := 0, 0
		for n < len(rest) && (n == 0 || size+len(rest[n].raw) <= metaPieceBytes) {
			size += len(rest[n].raw)
			n++
		}
		p, ok := piece(identity, rest[:n])
		if !ok {
			return nil
		}
		pieces = append(pieces, p)
		rest = rest[n:]
	}
	return pieces
}

func isDefsKey(k string) bool { return k == "$defs" || k == "definitions" }

// scanRefs calls ref (when not nil) with every $ref below n, and reports
// false when a keyword below n keeps the document whole (splitKeys).
// Values an overlay provided are not the library's and are skipped.
func scanRefs(n *Node, ref func(string)) bool {
	ok := true
	n.Walk(func(key string, v *Node) bool {
		if v.from != nil || !ok {
			return false
		}
		if v.kind == String && splitKeys[key] {
			ok = false
		} else if v.kind == String && key == "$ref" && ref != nil {
			ref(v.str)
		}
		return true
	})
	return ok
}

// rawAt returns the text of the value n in raw, the file it was parsed
// from (false for a value an overlay provided, or a nil node).
func rawAt(raw []byte, n *Node) (json.RawMessage, bool) {
	if n == nil || n.from != nil || n.offset < 0 || n.offset >= int64(len(raw)) {
		return nil, false
	}
	var v json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(raw[n.offset:])).Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// writeKey writes an object member's name and colon.
func writeKey(b *bytes.Buffer, k string) {
	q, _ := json.Marshal(k)
	b.Write(q)
	b.WriteByte(':')
}

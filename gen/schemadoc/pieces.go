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

// metaPlan is how a document is cut into pieces: groups of root members
// and $defs/definitions entries, each written out as a document of its own
// only when the library is to read it.
type metaPlan struct {
	d        *Doc
	identity []string // the root members every piece carries
	groups   []metaGroup
}

type metaGroup struct {
	members []string    // root members (the root's piece only)
	entries []metaEntry // in document order
}

// metaEntry is one $defs (kw) entry.
type metaEntry struct {
	kw, name string
	size     int // bytes of its text, up to the next entry's
}

// metaPieces returns how the load's one document is handed to the library
// in pieces, or nil when it is to be compiled whole (see above).
func (s *Set) metaPieces() *metaPlan {
	d := s.root
	if len(s.order) != 1 || len(d.Raw) <= metaPieceBytes || !d.Root.IsObject() {
		return nil
	}
	root := d.Root
	var entries []metaEntry
	byName := map[string]bool{} // kw + "/" + name
	for _, kw := range defsKeys {
		defs := root.Member(kw)
		if !defs.IsObject() || defs.FromOverlay() {
			continue
		}
		var prev *Node
		for _, name := range defs.Keys() {
			n := defs.Member(name)
			if n.FromOverlay() {
				continue // not the library's
			}
			if prev != nil {
				entries[len(entries)-1].size = int(n.offset - prev.offset)
			}
			entries = append(entries, metaEntry{kw: kw, name: name})
			byName[kw+"/"+name] = true
			prev = n
		}
		if prev != nil {
			raw, ok := rawAt(d.Raw, prev)
			if !ok {
				return nil
			}
			entries[len(entries)-1].size = len(raw)
		}
	}
	if len(entries) == 0 {
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
			return // reported by Open; another file would have made this a load of several
		}
		toks := strings.SplitN(strings.TrimPrefix(at.Ptr, "/"), "/", 3)
		first := UnescapeToken(toks[0])
		switch {
		case at.Ptr == "":
		case isDefsKey(first) && len(toks) > 1:
			name := UnescapeToken(toks[1])
			if key := first + "/" + name; byName[key] && !inRoot[key] {
				inRoot[key] = true
				queue = append(queue, root.Member(first).Member(name))
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
		n := root.Member(k)
		if isDefsKey(k) || strings.HasPrefix(k, "x-") || n.FromOverlay() {
			continue
		}
		if splitKeys[k] && k != "$id" && k != "id" {
			return nil
		}
		inRoot[k] = true
		if k == "$ref" && n.kind == String {
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
	p := &metaPlan{d: d}
	for _, k := range identityKeys {
		if n := root.Member(k); n != nil && !n.FromOverlay() {
			p.identity = append(p.identity, k)
		}
	}
	first := metaGroup{}
	for _, k := range root.Keys() {
		if inRoot[k] {
			first.members = append(first.members, k)
		}
	}
	var rest []metaEntry
	for _, e := range entries {
		if inRoot[e.kw+"/"+e.name] {
			first.entries = append(first.entries, e)
		} else {
			rest = append(rest, e)
		}
	}
	p.groups = append(p.groups, first)
	for len(rest) > 0 {
		n, size := 0, 0
		for n < len(rest) && (n == 0 || size+rest[n].size <= metaPieceBytes) {
			size += rest[n].size
			n++
		}
		p.groups = append(p.groups, metaGroup{members: p.identity, entries: rest[:n]})
		rest = rest[n:]
	}
	return p
}

// piece writes group i as a document: its root members, then its entries
// under their keyword, each member's text as the file has it.
func (p *metaPlan) piece(i int) []byte {
	g := p.groups[i]
	root := p.d.Root
	var b bytes.Buffer
	b.WriteByte('{')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	for _, k := range g.members {
		raw, _ := rawAt(p.d.Raw, root.Member(k))
		sep()
		writeKey(&b, k)
		b.Write(raw)
	}
	for _, kw := range defsKeys {
		open := false
		for _, e := range g.entries {
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
			raw, _ := rawAt(p.d.Raw, root.Member(kw).Member(e.name))
			writeKey(&b, e.name)
			b.Write(raw)
		}
		if open {
			b.WriteByte('}')
		}
	}
	b.WriteByte('}')
	return b.Bytes()
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
// from (false for a value an overlay provided, or a nil node; never for a
// node of raw's own tree).
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

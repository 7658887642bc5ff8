package schemadoc

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Node.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String returns the JSON Schema name of the type ("null", "boolean",
// "number", "string", "array", "object").
func (k Kind) String() string { return kindNames[k] }

// Node is one JSON value of a schema (or overlay) document: object members
// in document order, the byte offset where the value starts in its file, and,
// for a value an overlay added, the overlay entry it came from.
//
// A Node is read-only once its document is loaded, except for the "used"
// mark Get sets on overlay-provided members (see Overlay).
type Node struct {
	kind   Kind
	b      bool
	offset int64
	str    string // a string's value, a number's literal text
	from   *origin
	// c holds an array's or object's members (nil for a scalar, and for
	// an empty object): most values are scalars, which so take 48 bytes.
	c *container
}

// container is the members of an array or object node.
type container struct {
	// items are an array's elements, or an object's member values in the
	// order of keys.
	items []*Node
	keys  []string
	// index is where each member of an object of more than indexFrom
	// members is in keys (a smaller object is searched in order: most are
	// small, and a map each would double the tree's size).
	index map[string]int
}

// indexFrom is the number of members above which an object is indexed.
const indexFrom = 12

// elems returns an array's elements or an object's member values (nil for
// a scalar).
func (n *Node) elems() []*Node {
	if n.c == nil {
		return nil
	}
	return n.c.items
}

// names returns an object's member names (nil for any other node).
func (n *Node) names() []string {
	if n.c == nil {
		return nil
	}
	return n.c.keys
}

// at returns the position of member key of an object node (-1 when absent).
func (n *Node) at(key string) int {
	if n.c == nil {
		return -1
	}
	if n.c.index != nil {
		if i, ok := n.c.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range n.c.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// add appends member key to an object node (overlay application, which
// has checked key is new).
func (n *Node) add(key string, v *Node) {
	if n.c == nil {
		n.c = &container{}
	}
	c := n.c
	c.keys = append(c.keys, key)
	c.items = append(c.items, v)
	switch {
	case c.index != nil:
		c.index[key] = len(c.keys) - 1
	case len(c.keys) > indexFrom:
		c.indexKeys()
	}
}

// indexKeys builds the index of an object's member names.
func (c *container) indexKeys() {
	c.index = make(map[string]int, 2*len(c.keys))
	for i, k := range c.keys {
		c.index[k] = i
	}
}

// Kind returns the node's JSON type (Null for a nil node).
func (n *Node) Kind() Kind {
	if n == nil {
		return Null
	}
	return n.kind
}

// IsObject reports whether n is a JSON object (false for nil).
func (n *Node) IsObject() bool { return n != nil && n.kind == Object }

// Bool returns a boolean node's value (false for any other node).
func (n *Node) Bool() bool { return n != nil && n.kind == Bool && n.b }

// Number returns a number node's literal text ("" for any other node).
func (n *Node) Number() json.Number {
	if n == nil || n.kind != Number {
		return ""
	}
	return json.Number(n.str)
}

// Str returns a string node's value ("" for any other node).
func (n *Node) Str() string {
	if n == nil || n.kind != String {
		return ""
	}
	return n.str
}

// Items returns an array node's elements (nil for any other node).
func (n *Node) Items() []*Node {
	if n == nil || n.kind != Array {
		return nil
	}
	return n.elems()
}

// Keys returns an object node's member names in document order (nil for
// any other node). The slice must not be modified.
func (n *Node) Keys() []string {
	if n == nil || n.kind != Object {
		return nil
	}
	return n.names()
}

// Len returns the number of members of an object or elements of an array.
func (n *Node) Len() int {
	switch n.Kind() {
	case Object:
		return len(n.names())
	case Array:
		return len(n.elems())
	}
	return 0
}

// Member returns member key of an object node without counting it as read
// (for walkers that visit every member; nil when absent or not an object).
func (n *Node) Member(key string) *Node {
	if n == nil || n.kind != Object {
		return nil
	}
	if i := n.at(key); i >= 0 {
		return n.elems()[i]
	}
	return nil
}

// Get returns member key of an object node (nil when absent or not an
// object). A member an overlay added is marked as used: the loader reports
// overlay entries that nothing ever read.
func (n *Node) Get(key string) *Node {
	v := n.Member(key)
	if v != nil && v.from != nil {
		v.from.used.Store(true)
	}
	return v
}

// Has reports whether an object node has member key (a read, as Get).
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// StrOf returns the string member key ("" when absent or not a string).
func (n *Node) StrOf(key string) string { return n.Get(key).Str() }

// Offset returns the byte offset of the value in the file it was parsed
// from (the schema file, or the overlay file for an overlay-provided value).
func (n *Node) Offset() int64 { return n.offset }

// FromOverlay reports whether an overlay provided this value.
func (n *Node) FromOverlay() bool { return n != nil && n.from != nil }

// Value converts the node to plain Go values as encoding/json decodes them
// with UseNumber: nil, bool, json.Number, string, []any, map[string]any.
// It does not count as reading overlay members.
func (n *Node) Value() any {
	switch n.Kind() {
	case Null:
		return nil
	case Bool:
		return n.b
	case Number:
		return json.Number(n.str)
	case String:
		return n.str
	case Array:
		out := make([]any, len(n.elems()))
		for i, it := range n.elems() {
			out[i] = it.Value()
		}
		return out
	}
	out := make(map[string]any, len(n.names()))
	for i, k := range n.names() {
		out[k] = n.elems()[i].Value()
	}
	return out
}

// Walk calls visit for every value below n, depth first in document order:
// key is the member name for an object member, "" for an array element.
// visit returns whether to descend into the value. It does not count as
// reading overlay members.
func (n *Node) Walk(visit func(key string, v *Node) bool) {
	for _, it := range n.Items() {
		if visit("", it) {
			it.Walk(visit)
		}
	}
	for i, k := range n.Keys() {
		if v := n.elems()[i]; visit(k, v) {
			v.Walk(visit)
		}
	}
}

// Compact returns the node's compact JSON text, members in document order.
func (n *Node) Compact() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *Node) write(b *strings.Builder) {
	switch n.Kind() {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.b))
	case Number:
		b.WriteString(n.str)
	case String:
		s, _ := json.Marshal(n.str)
		b.Write(s)
	case Array:
		b.WriteByte('[')
		for i, it := range n.elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, k := range n.names() {
			if i > 0 {
				b.WriteByte(',')
			}
			s, _ := json.Marshal(k)
			b.Write(s)
			b.WriteByte(':')
			n.elems()[i].write(b)
		}
		b.WriteByte('}')
	}
}

// set adds or replaces member key of an object node (overlay application).
func (n *Node) set(key string, v *Node) {
	if i := n.at(key); i >= 0 {
		n.c.items[i] = v
		return
	}
	n.add(key, v)
}

// EscapeToken escapes one JSON pointer reference token (RFC 6901).
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// UnescapeToken reverses EscapeToken.
func UnescapeToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// Resolve finds the node at a JSON pointer fragment such as
// "/$defs/Foo/properties/bar" (the part after '#'; "" is root itself).
func Resolve(root *Node, frag string) (*Node, bool) {
	if frag == "" {
		return root, root != nil
	}
	if !strings.HasPrefix(frag, "/") || root == nil {
		return nil, false
	}
	cur := root
	rest := frag[1:]
	for {
		raw, next, more := strings.Cut(rest, "/")
		tok := UnescapeToken(raw)
		switch cur.kind {
		case Object:
			v := cur.Member(tok)
			if v == nil {
				return nil, false
			}
			cur = v
		case Array:
			i, ok := arrayIndex(tok)
			if !ok || i >= len(cur.elems()) {
				return nil, false
			}
			cur = cur.elems()[i]
		default:
			return nil, false
		}
		if !more {
			return cur, true
		}
		rest = next
	}
}

// arrayIndex parses an RFC 6901 array index: "0" or digits without a
// leading zero.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i := 0
	for j := 0; j < len(tok); j++ {
		c := tok[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, true
}

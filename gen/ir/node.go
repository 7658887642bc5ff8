package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// nodeKind is the JSON type of a parsed schema node.
type nodeKind int

const (
	nNull nodeKind = iota
	nBool
	nNumber
	nString
	nArray
	nObject
)

// node is one JSON value of a schema document, with object members in
// document order and the byte offset it starts at (for line numbers in
// errors).
type node struct {
	kind   nodeKind
	b      bool
	num    json.Number
	str    string
	items  []*node
	keys   []string
	vals   map[string]*node
	offset int64
}

// get returns the member key of an object node (nil when absent or not an object).
func (n *node) get(key string) *node {
	if n == nil || n.kind != nObject {
		return nil
	}
	return n.vals[key]
}

// has reports whether an object node has member key.
func (n *node) has(key string) bool { return n.get(key) != nil }

// strOf returns the string member key ("" when absent or not a string).
func (n *node) strOf(key string) string {
	if v := n.get(key); v != nil && v.kind == nString {
		return v.str
	}
	return ""
}

// toAny converts the node back to a plain Go value (numbers as json.Number).
func (n *node) toAny() any {
	switch n.kind {
	case nNull:
		return nil
	case nBool:
		return n.b
	case nNumber:
		return n.num
	case nString:
		return n.str
	case nArray:
		out := make([]any, len(n.items))
		for i, it := range n.items {
			out[i] = it.toAny()
		}
		return out
	}
	out := make(map[string]any, len(n.keys))
	for _, k := range n.keys {
		out[k] = n.vals[k].toAny()
	}
	return out
}

// compact returns the node's compact JSON text with members in document order.
func (n *node) compact() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case nNull:
		b.WriteString("null")
	case nBool:
		b.WriteString(strconv.FormatBool(n.b))
	case nNumber:
		b.WriteString(n.num.String())
	case nString:
		s, _ := json.Marshal(n.str)
		b.Write(s)
	case nArray:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	case nObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			s, _ := json.Marshal(k)
			b.Write(s)
			b.WriteByte(':')
			n.vals[k].write(b)
		}
		b.WriteByte('}')
	}
}

// maxSchemaDepth bounds the nesting of a schema document.
const maxSchemaDepth = 512

// parseNode parses one JSON document into a node tree. Syntax errors carry
// the byte offset; duplicate object keys are an error (JSON Schema documents
// with duplicate keys are ambiguous).
func parseNode(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &syntaxErr{offset: dec.InputOffset(), msg: "data after the top-level JSON value"}
	}
	return n, nil
}

type syntaxErr struct {
	offset int64
	msg    string
}

func (e *syntaxErr) Error() string { return e.msg }

func parseValue(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxSchemaDepth {
		return nil, &syntaxErr{offset: dec.InputOffset(), msg: fmt.Sprintf("nesting deeper than %d levels", maxSchemaDepth)}
	}
	// InputOffset is the end of the previous token; skip separators so the
	// recorded offset points at the value itself.
	tok, err := dec.Token()
	if err != nil {
		return nil, wrapSyntax(dec, err)
	}
	off := dec.InputOffset()
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			n := &node{kind: nArray, offset: off - 1}
			for dec.More() {
				it, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, it)
			}
			if _, err := dec.Token(); err != nil {
				return nil, wrapSyntax(dec, err)
			}
			return n, nil
		}
		n := &node{kind: nObject, offset: off - 1, vals: map[string]*node{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, wrapSyntax(dec, err)
			}
			key := kt.(string)
			if _, dup := n.vals[key]; dup {
				return nil, &syntaxErr{offset: dec.InputOffset(), msg: fmt.Sprintf("duplicate object key %q", key)}
			}
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.vals[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, wrapSyntax(dec, err)
		}
		return n, nil
	case string:
		return &node{kind: nString, str: t, offset: off}, nil
	case json.Number:
		return &node{kind: nNumber, num: t, offset: off}, nil
	case bool:
		return &node{kind: nBool, b: t, offset: off}, nil
	}
	return &node{kind: nNull, offset: off}, nil
}

func wrapSyntax(dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &syntaxErr{offset: se.Offset, msg: se.Error()}
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return &syntaxErr{offset: dec.InputOffset(), msg: "unexpected end of JSON input"}
	}
	return &syntaxErr{offset: dec.InputOffset(), msg: err.Error()}
}

// lineCol converts a byte offset in data to a 1-based line and column.
func lineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// escapePointerToken escapes one JSON pointer reference token (RFC 6901).
func escapePointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// unescapePointerToken reverses escapePointerToken.
func unescapePointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// resolvePointer finds the node at a JSON pointer fragment such as
// "/$defs/Foo/properties/bar" (the part after '#').
func resolvePointer(root *node, frag string) (*node, bool) {
	if frag == "" {
		return root, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	cur := root
	for _, raw := range strings.Split(frag[1:], "/") {
		tok := unescapePointerToken(raw)
		switch cur.kind {
		case nObject:
			next, ok := cur.vals[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case nArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.items) {
				return nil, false
			}
			cur = cur.items[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

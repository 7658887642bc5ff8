package schemadoc

import (
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of arrays and objects in a document.
const MaxDepth = 512

// MaxNodes bounds the number of JSON values in all the files of one load
// together (the shipped schema has about 30,000). It keeps the memory of a
// load bounded whatever the input: a node takes about 100 bytes.
const MaxNodes = 2_000_000

// SyntaxError is a document that is not one JSON value (RFC 8259), or one
// dshgen refuses: duplicate object keys (ambiguous in JSON Schema), nesting
// deeper than MaxDepth, more than MaxNodes values.
type SyntaxError struct {
	Offset int64 // byte offset of the offending character
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parse parses one JSON document into a node tree. Strings decode as
// encoding/json decodes them (invalid UTF-8 and lone surrogates become
// U+FFFD); numbers keep their literal text.
func Parse(data []byte) (*Node, error) {
	budget := maxNodes()
	return parse(data, &budget)
}

func parse(data []byte, budget *int) (*Node, error) {
	p := &parser{data: data, budget: budget}
	p.space()
	if p.pos == len(data) {
		return nil, p.fail("empty document: no JSON value")
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.fail("the file starts with a UTF-8 byte order mark, which JSON does not allow (save it without BOM)")
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(data) {
		return nil, p.fail("data after the top-level JSON value")
	}
	return n, nil
}

type parser struct {
	data   []byte
	pos    int
	budget *int
	buf    []byte
	// keys and items hold the members of the objects and arrays being
	// parsed (those of one value from its base up), so that each node gets
	// slices of exactly its length.
	keys  []string
	items []*Node
	// names holds one copy of each object key and short string value seen
	// (most repeat: "type", "description", "string"), shared by the nodes.
	names map[string]string
}

// Interning bounds: strings up to internLen bytes, at most internMax of
// them per document (beyond, strings are copied as they come).
const (
	internLen = 32
	internMax = 1 << 20
)

// intern returns b as a string: the copy already held, or a new one.
func (p *parser) intern(b []byte) string {
	if len(b) > internLen {
		return string(b)
	}
	if v, ok := p.names[string(b)]; ok {
		return v
	}
	if p.names == nil {
		p.names = map[string]string{}
	}
	s := string(b)
	if len(p.names) < internMax {
		p.names[s] = s
	}
	return s
}

// emptyArray is the members of every empty array (Items is then an empty,
// non-nil slice).
var emptyArray = &container{items: []*Node{}}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: int64(p.pos), Msg: msg} }

func (p *parser) unexpected(what string) error {
	if p.pos >= len(p.data) {
		return p.fail("unexpected end of JSON input")
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return p.fail(fmt.Sprintf("invalid character %q %s", c, what))
	}
	return p.fail(fmt.Sprintf("invalid byte 0x%02x %s", c, what))
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) node(k Kind) (*Node, error) {
	if *p.budget <= 0 {
		return nil, p.fail(fmt.Sprintf("more than %d JSON values in the schema files", maxNodes()))
	}
	*p.budget--
	return &Node{kind: k, offset: int64(p.pos)}, nil
}

func (p *parser) value(depth int) (*Node, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of JSON input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		n, err := p.node(String)
		if err != nil {
			return nil, err
		}
		n.str, err = p.string()
		return n, err
	case c == '-' || (c >= '0' && c <= '9'):
		n, err := p.node(Number)
		if err != nil {
			return nil, err
		}
		var num json.Number
		num, err = p.number()
		n.str = string(num)
		return n, err
	case c == 't':
		return p.literal("true", Bool, true)
	case c == 'f':
		return p.literal("false", Bool, false)
	case c == 'n':
		return p.literal("null", Null, false)
	}
	return nil, p.unexpected("looking for the beginning of a value")
}

func (p *parser) literal(word string, k Kind, b bool) (*Node, error) {
	n, err := p.node(k)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[i] {
			return nil, p.unexpected("in literal " + word)
		}
		p.pos++
	}
	n.b = b
	return n, nil
}

func (p *parser) object(depth int) (*Node, error) {
	if depth >= MaxDepth {
		return nil, p.fail(fmt.Sprintf("nesting deeper than %d levels", MaxDepth))
	}
	n, err := p.node(Object)
	if err != nil {
		return nil, err
	}
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	base := len(p.keys)
	defer func() { p.keys, p.items = p.keys[:base], p.items[:base] }()
	var index map[string]int // past indexFrom members
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected("looking for the beginning of an object key string")
		}
		keyAt := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if p.dup(base, index, key) {
			p.pos = keyAt
			return nil, p.fail(fmt.Sprintf("duplicate object key %q", key))
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected("after object key")
		}
		p.pos++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.keys, p.items = append(p.keys, key), append(p.items, v)
		switch {
		case index != nil:
			index[key] = len(p.keys) - 1 - base
		case len(p.keys)-base > indexFrom:
			index = make(map[string]int, 2*(len(p.keys)-base))
			for i, k := range p.keys[base:] {
				index[k] = i
			}
		}
		done, err := p.next('}', "after object key:value pair")
		if err != nil {
			return nil, err
		}
		if done {
			n.c = &container{keys: append([]string(nil), p.keys[base:]...), items: append([]*Node(nil), p.items[base:]...), index: index}
			return n, nil
		}
	}
}

// dup reports whether key is already a member of the object whose members
// start at base in p.keys (index: its index, once it has one).
func (p *parser) dup(base int, index map[string]int, key string) bool {
	if index != nil {
		_, ok := index[key]
		return ok
	}
	for _, k := range p.keys[base:] {
		if k == key {
			return true
		}
	}
	return false
}

func (p *parser) array(depth int) (*Node, error) {
	if depth >= MaxDepth {
		return nil, p.fail(fmt.Sprintf("nesting deeper than %d levels", MaxDepth))
	}
	n, err := p.node(Array)
	if err != nil {
		return nil, err
	}
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		n.c = emptyArray
		return n, nil
	}
	base := len(p.items)
	defer func() { p.keys, p.items = p.keys[:base], p.items[:base] }()
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		// keys stays as long as items: the empty name stands for an element.
		p.keys, p.items = append(p.keys, ""), append(p.items, v)
		done, err := p.next(']', "after array element")
		if err != nil {
			return nil, err
		}
		if done {
			n.c = &container{items: append([]*Node(nil), p.items[base:]...)}
			return n, nil
		}
	}
}

// next consumes what follows a member or element: a comma (more follow)
// or the closing bracket (done).
func (p *parser) next(closing byte, after string) (bool, error) {
	p.space()
	if p.pos >= len(p.data) {
		return false, p.fail("unexpected end of JSON input")
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.unexpected(after)
}

// number scans an RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() (json.Number, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	if p.pos < len(d) && d[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return "", p.unexpected("in numeric literal")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return "", p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return "", p.unexpected("in exponent of numeric literal")
		}
	}
	return json.Number(d[start:p.pos]), nil
}

// string scans a string starting at the opening quote and returns its value
// (interned: see intern).
func (p *parser) string() (string, error) {
	d := p.data
	p.pos++ // "
	start := p.pos
	// Fast path: no escapes, ASCII or valid UTF-8.
	for p.pos < len(d) {
		c := d[p.pos]
		if c == '"' {
			s := d[start:p.pos]
			p.pos++
			if utf8.Valid(s) {
				return p.intern(s), nil
			}
			p.pos = start
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	p.pos = start
	b := p.buf[:0]
	for {
		if p.pos >= len(d) {
			return "", p.fail("unexpected end of JSON input in string literal")
		}
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			p.buf = b
			return p.intern(b), nil
		case c < 0x20:
			return "", p.unexpected("in string literal")
		case c == '\\':
			p.pos++
			if p.pos >= len(d) {
				return "", p.fail("unexpected end of JSON input in string escape")
			}
			e := d[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.unexpected("in \\u hexadecimal character escape")
				}
				if utf16.IsSurrogate(r) {
					// A pair combines; a lone half is U+FFFD (as encoding/json).
					save := p.pos
					if p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
						p.pos += 2
						if r2, ok := p.hex4(); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								b = utf8.AppendRune(b, dec)
								continue
							}
						}
					}
					p.pos = save
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				p.pos--
				return "", p.unexpected("in string escape code")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(d[p.pos:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d[p.pos:p.pos+size]...)
			}
			p.pos += size
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.pos += 4
	return r, true
}

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
}

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
		if n.at(key) >= 0 {
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
		n.add(key, v)
		if done, err := p.next('}', "after object key:value pair"); done || err != nil {
			return n, err
		}
	}
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
		n.items = []*Node{}
		return n, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
		if done, err := p.next(']', "after array element"); done || err != nil {
			return n, err
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

// string scans a string starting at the opening quote and returns its value.
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
				return string(s), nil
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
			return string(b), nil
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

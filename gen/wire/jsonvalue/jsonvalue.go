// Package jsonvalue compares JSON documents as values: member order and
// insignificant white space aside, numbers compared exactly by value (1.0
// equals 1, 1e3 equals 1000, -0 equals 0; no float rounding) and strings
// compared exactly, code point for code point after unescaping: a lone
// surrogate escape such as "\ud800" is its own value, different from
// U+FFFD (the character encoding/json substitutes for it), and "\u00e9"
// equals "é".
//
// Parsing and comparing are iterative, so a value nested arbitrarily deep
// (up to the input's size) costs memory in proportion to its size and
// never overflows a stack. The package uses only the standard library (the
// Go case tests copy this one file into a scratch module).
package jsonvalue

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Diff returns an empty what when a and b are the same JSON value, else the
// RFC 6901 JSON pointer of the first difference (members visited in
// member-name order; "" is the root) and a short description of it. A side
// that is not one JSON text is returned as err ("first value: ..." or
// "second value: ...", with the byte offset).
func Diff(a, b []byte) (pointer, what string, err error) {
	va, err := Parse(a)
	if err != nil {
		return "", "", fmt.Errorf("first value: %w", err)
	}
	vb, err := Parse(b)
	if err != nil {
		return "", "", fmt.Errorf("second value: %w", err)
	}
	p, w := diff(va, vb)
	return p, w, nil
}

// Equal reports whether a and b are the same JSON value.
func Equal(a, b []byte) (bool, error) {
	_, w, err := Diff(a, b)
	return err == nil && w == "", err
}

// Number is a JSON number as written (its literal text).
type Number string

// Parse parses one JSON text (RFC 8259; surrounding white space allowed)
// into nil, bool, Number, string, []any and map[string]any values. Strings
// are unescaped exactly: a surrogate pair becomes its code point, a lone
// surrogate escape becomes the three-byte generalized UTF-8 (WTF-8) form of
// that surrogate, which no valid UTF-8 string and no other escape produces.
// A duplicated member name keeps its last value (as encoding/json,
// JSON.parse and Python's json do).
func Parse(data []byte) (any, error) {
	p := parser{data: data}
	v, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.data) {
		return nil, p.errorf("data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *parser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// open is a container being parsed.
type open struct {
	arr   []any
	obj   map[string]any
	key   string // member whose value is being parsed (objects)
	isObj bool
}

// parse parses one value with an explicit stack of open containers.
func (p *parser) parse() (any, error) {
	var stack []*open
	for {
		p.ws()
		if p.i >= len(p.data) {
			return nil, p.errorf("unexpected end of input")
		}
		var v any
		switch c := p.data[p.i]; {
		case c == '{' || c == '[':
			p.i++
			o := &open{isObj: c == '{'}
			p.ws()
			if o.isObj {
				o.obj = map[string]any{}
				if p.i < len(p.data) && p.data[p.i] == '}' {
					p.i++
					v = o.obj
					break
				}
				k, err := p.key()
				if err != nil {
					return nil, err
				}
				o.key = k
			} else {
				o.arr = []any{}
				if p.i < len(p.data) && p.data[p.i] == ']' {
					p.i++
					v = o.arr
					break
				}
			}
			stack = append(stack, o)
			continue
		case c == '"':
			s, err := p.str()
			if err != nil {
				return nil, err
			}
			v = s
		case c == '-' || (c >= '0' && c <= '9'):
			n, err := p.number()
			if err != nil {
				return nil, err
			}
			v = n
		default:
			lit, val, ok := p.literal()
			if !ok {
				return nil, p.errorf("invalid character %q looking for a value", c)
			}
			p.i += len(lit)
			v = val
		}
		// v is complete: hand it to the innermost open container, closing
		// every container it completes.
		for {
			if len(stack) == 0 {
				return v, nil
			}
			o := stack[len(stack)-1]
			if o.isObj {
				o.obj[o.key] = v
			} else {
				o.arr = append(o.arr, v)
			}
			p.ws()
			if p.i >= len(p.data) {
				return nil, p.errorf("unexpected end of input")
			}
			c := p.data[p.i]
			p.i++
			if c == ',' {
				if o.isObj {
					k, err := p.key()
					if err != nil {
						return nil, err
					}
					o.key = k
				}
				break
			}
			if o.isObj && c == '}' {
				v = o.obj
			} else if !o.isObj && c == ']' {
				v = o.arr
			} else {
				p.i--
				if o.isObj {
					return nil, p.errorf("invalid character %q after a member value", c)
				}
				return nil, p.errorf("invalid character %q after an array item", c)
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// literal recognizes true, false or null at p.i.
func (p *parser) literal() (string, any, bool) {
	rest := p.data[p.i:]
	for _, lit := range []struct {
		text string
		val  any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(rest) >= len(lit.text) && string(rest[:len(lit.text)]) == lit.text {
			return lit.text, lit.val, true
		}
	}
	return "", nil, false
}

// key parses a member name and its colon.
func (p *parser) key() (string, error) {
	p.ws()
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return "", p.errorf("expected a member name")
	}
	k, err := p.str()
	if err != nil {
		return "", err
	}
	p.ws()
	if p.i >= len(p.data) || p.data[p.i] != ':' {
		return "", p.errorf("expected ':' after a member name")
	}
	p.i++
	return k, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// appendSurrogate appends the three-byte WTF-8 form of a lone surrogate.
func appendSurrogate(b []byte, r rune) []byte {
	return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// str parses a string at p.i (the opening quote).
func (p *parser) str() (string, error) {
	start := p.i
	p.i++
	var out []byte
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return "", p.errorf("control character %#02x in a string", c)
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.data) {
			break
		}
		e := p.data[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(p.data[p.i:])
			if !ok {
				return "", p.errorf(`bad \u escape`)
			}
			p.i += 4
			if r >= 0xD800 && r < 0xDC00 && p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
				if lo, ok := hex4(p.data[p.i+2:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					p.i += 6
					out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
					continue
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				out = appendSurrogate(out, r)
			} else {
				out = utf8.AppendRune(out, r)
			}
		default:
			p.i -= 2
			return "", p.errorf("bad escape \\%c in a string", e)
		}
	}
	p.i = start
	return "", p.errorf("unterminated string")
}

// number parses a number (RFC 8259 grammar) and returns its literal.
func (p *parser) number() (Number, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.data) && p.data[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return "", p.errorf("bad number")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return "", p.errorf("bad number: no digits after '.'")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return "", p.errorf("bad number: no digits in the exponent")
		}
	}
	return Number(p.data[start:p.i]), nil
}

// decimal is a number as sign, significant digits (no leading or trailing
// zeros; "" for zero) and the exponent of 0.digits × 10^exp. Comparing
// these is exact and costs nothing for huge exponents (1e999999999),
// unlike big.Rat.
type decimal struct {
	neg    bool
	digits string
	exp    *big.Int
}

func toDecimal(n Number) decimal {
	s := string(n)
	d := decimal{exp: new(big.Int)}
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	mant, expPart, _ := strings.Cut(strings.ToLower(s), "e")
	if expPart != "" {
		d.exp.SetString(strings.TrimPrefix(expPart, "+"), 10)
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	d.exp.Add(d.exp, big.NewInt(int64(len(intPart))))
	trimmed := strings.TrimLeft(all, "0")
	d.exp.Sub(d.exp, big.NewInt(int64(len(all)-len(trimmed))))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		d.neg = false
		d.exp.SetInt64(0)
	}
	return d
}

func sameNumber(a, b Number) bool {
	if a == b {
		return true
	}
	x, y := toDecimal(a), toDecimal(b)
	return x.neg == y.neg && x.digits == y.digits && x.exp.Cmp(y.exp) == 0
}

func esc(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// Quote renders s as a JSON-like string literal in which every difference
// Diff sees is visible: a lone surrogate as \udXXX, U+FFFD as \ufffd,
// other invalid UTF-8 bytes as \xHH, control characters escaped.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
				fmt.Fprintf(&b, `\u%04x`, rune(s[i]&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F))
				i += 3
				continue
			}
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == utf8.RuneError, r < 0x20, r == 0x7F, r == 0x2028, r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// short renders a value for a message (60 characters at most).
func short(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "null"
	case bool:
		s = strconv.FormatBool(x)
	case Number:
		s = string(x)
	case string:
		s = Quote(x)
	case []any:
		s = fmt.Sprintf("[%d items]", len(x))
	case map[string]any:
		s = fmt.Sprintf("{%d members}", len(x))
	}
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// step is one pair of values still to compare, or (missing != "") a
// report still to make once everything before it compared equal. Pointers
// are rebuilt from the parent chain only for the difference found.
type step struct {
	a, b    any
	parent  int    // index in containers of the enclosing pair; -1 for the root
	tok     string // escaped pointer token within the parent
	missing string // "first"/"second": the member tok is missing there; "len": the arrays' lengths differ
}

func diff(a, b any) (string, string) {
	var containers []step
	pointer := func(s step) string {
		var toks []string
		for ; s.parent >= 0; s = containers[s.parent] {
			toks = append(toks, s.tok)
		}
		var b strings.Builder
		for i := len(toks) - 1; i >= 0; i-- {
			b.WriteString("/" + toks[i])
		}
		return b.String()
	}
	todo := []step{{a: a, b: b, parent: -1}}
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		switch s.missing {
		case "first", "second":
			return pointer(s), "member missing in the " + s.missing + " value"
		case "len":
			return pointer(s), fmt.Sprintf("array of %d items vs %d items", len(s.a.([]any)), len(s.b.([]any)))
		}
		if kind(s.a) != kind(s.b) {
			return pointer(s), fmt.Sprintf("%s %s vs %s %s", kind(s.a), short(s.a), kind(s.b), short(s.b))
		}
		switch x := s.a.(type) {
		case bool:
			if x != s.b.(bool) {
				return pointer(s), fmt.Sprintf("%v vs %v", x, s.b)
			}
		case string:
			if x != s.b.(string) {
				return pointer(s), fmt.Sprintf("%s vs %s", short(x), short(s.b))
			}
		case Number:
			if !sameNumber(x, s.b.(Number)) {
				return pointer(s), fmt.Sprintf("%s vs %s", x, s.b)
			}
		case []any:
			y := s.b.([]any)
			if len(x) != len(y) {
				todo = append(todo, step{a: x, b: y, parent: s.parent, tok: s.tok, missing: "len"})
			}
			me := len(containers)
			containers = append(containers, s)
			for i := min(len(x), len(y)) - 1; i >= 0; i-- {
				todo = append(todo, step{a: x[i], b: y[i], parent: me, tok: strconv.Itoa(i)})
			}
		case map[string]any:
			y := s.b.(map[string]any)
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			me := len(containers)
			containers = append(containers, s)
			for i := len(keys) - 1; i >= 0; i-- {
				k := keys[i]
				xv, inX := x[k]
				yv, inY := y[k]
				next := step{a: xv, b: yv, parent: me, tok: esc(k)}
				if !inX {
					next.missing = "first"
				} else if !inY {
					next.missing = "second"
				}
				todo = append(todo, next)
			}
		}
	}
	return "", ""
}

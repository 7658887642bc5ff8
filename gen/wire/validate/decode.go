package validate

import (
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen/wire/validate/internal/jsontext"
)

// fastDecode decodes one JSON value (surrounded by optional whitespace) in
// a single pass into the same values encoding/json gives with UseNumber:
// map[string]any, []any, string, json.Number, bool, nil. Duplicate keys:
// the last wins; invalid UTF-8 and lone surrogates become U+FFFD, as in
// encoding/json. ok is false for anything that is not exactly one valid
// JSON value (the caller then asks encoding/json for its error message).
// FuzzFastDecode checks it against encoding/json.
func fastDecode(data []byte) (v any, ok bool) { return fastDecodeIntern(data, nil) }

// fastDecodeIntern is fastDecode with a table of strings to reuse instead
// of allocating (member names and literal values of the schema; read only,
// so it may be shared by goroutines).
func fastDecodeIntern(data []byte, intern map[string]string) (v any, ok bool) {
	d := decoder{data: data, intern: intern}
	d.ws()
	v, ok = d.value(0)
	if !ok {
		return nil, false
	}
	d.ws()
	return v, d.i == len(d.data)
}

type decoder struct {
	data   []byte
	i      int
	intern map[string]string
	// utf8ok: data is known to be valid UTF-8 (no per-string check).
	utf8ok bool
	// rawTop: the top-level object's params and result are kept as
	// rawJSON (project.go).
	rawTop bool
	buf    []byte // scratch for strings with escapes
}

// maxIntern is the longest string looked up in the intern table.
const maxIntern = 64

// maxDecodeDepth matches encoding/json's nesting limit.
const maxDecodeDepth = 10000

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, bool) {
	if d.i >= len(d.data) || depth > maxDecodeDepth {
		return nil, false
	}
	switch c := d.data[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.lit("true")
	case c == 'f':
		return false, d.lit("false")
	case c == 'n':
		return nil, d.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, false
}

func (d *decoder) lit(s string) bool {
	if len(d.data)-d.i < len(s) || string(d.data[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

func (d *decoder) object(depth int) (any, bool) {
	d.i++ // {
	m := map[string]any{}
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.ws()
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.ws()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.ws()
		var v any
		if ks := k.(string); depth == 0 && d.rawTop && (ks == "params" || ks == "result") {
			// Found, not checked: the byte plan or the decoder checks
			// the syntax (see Stream.prep); only the last of duplicates
			// would be, so a frame with two is decoded in full.
			if _, dup := m[ks]; dup {
				return nil, false
			}
			start := d.i
			if d.i = jsontext.SkipTrust(d.data, d.i); d.i < 0 {
				return nil, false
			}
			v = rawJSON(d.data[start:d.i:d.i])
		} else if v, ok = d.value(depth + 1); !ok {
			return nil, false
		}
		m[k.(string)] = v
		d.ws()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *decoder) array(depth int) (any, bool) {
	d.i++ // [
	a := []any{}
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		d.ws()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.ws()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

func (d *decoder) number() (any, bool) {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i >= len(d.data) {
		return nil, false
	}
	if d.data[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, false
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.data[start:d.i]), true
}

// str decodes a string starting at its opening quote.
func (d *decoder) str() (any, bool) {
	d.i++ // "
	start := d.i
	// Fast path: no escapes, ASCII or valid UTF-8.
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := d.data[start:d.i]
			d.i++
			if len(s) <= maxIntern && d.intern != nil {
				if is, ok := d.intern[string(s)]; ok {
					return is, true
				}
			}
			if d.utf8ok || utf8.Valid(s) {
				return string(s), true
			}
			return string([]rune(string(s))), true // invalid bytes → U+FFFD
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, false
		}
		d.i++
	}
	buf := append(d.buf[:0], d.data[start:d.i]...)
	defer func() {
		if cap(buf) <= 64<<10 {
			d.buf = buf
		}
	}()
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			if d.utf8ok || utf8.Valid(buf) {
				return string(buf), true
			}
			return string([]rune(string(buf))), true
		case c < 0x20:
			return nil, false
		case c == '\\':
			d.i++
			if d.i >= len(d.data) {
				return nil, false
			}
			e := d.data[d.i]
			d.i++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return nil, false
				}
				if utf16.IsSurrogate(r) {
					// A pair, or U+FFFD for a lone surrogate.
					if d.i+1 < len(d.data) && d.data[d.i] == '\\' && d.data[d.i+1] == 'u' {
						save := d.i
						d.i += 2
						r2, ok := d.hex4()
						if !ok {
							return nil, false
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							buf = utf8.AppendRune(buf, dec)
							continue
						}
						d.i = save
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return nil, false
			}
		default:
			buf = append(buf, c)
			d.i++
		}
	}
	return nil, false
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}

package ruleset

import (
	"encoding/json"
	"strconv"
	"strings"
	"unsafe"

	"github.com/dshgen/dshgen/gen/wire/validate/internal/jsontext"
)

// Kind is the JSON type of a Value.
type Kind int8

// The kinds of a Value; Absent is a member that is not there (or not read:
// Reader).
const (
	Absent Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// Value is a read-only view of a JSON value of a frame (Frame.Params and
// what is below it). It is either a view of the frame's JSON text (the
// common case: nothing was decoded, reading it allocates nothing but the
// strings Str returns) or a decoded value (map[string]any, []any, string,
// json.Number, bool, nil, as encoding/json with UseNumber gives). Duplicate
// members: the last wins. A Value must not be kept beyond the call that
// received it (it may view a buffer the validator reuses); the strings Str
// returns may be kept. The zero Value is Absent.
type Value struct {
	raw []byte // the value's JSON text (valid JSON), when dec is false
	val any    // the decoded value, when dec is true
	dec bool
	// sel is what may be read at and below this value (nil: everything).
	sel *Selection
	// intern maps strings likely to occur (the schema's member names and
	// literals) to themselves: Str returns them without allocating.
	intern map[string]string
}

// RawValue is a view of raw, one JSON value known to be valid (whitespace
// around it allowed), as far as sel selects (nil: all of it); intern may
// be nil. The validator builds the rule sets' params so.
func RawValue(raw []byte, sel *Selection, intern map[string]string) Value {
	i := jsontext.WS(raw, 0)
	if i >= len(raw) {
		return Value{}
	}
	if e := jsontext.SkipTrust(raw, i); e > i {
		raw = raw[i:e]
	}
	return Value{raw: raw, sel: sel, intern: intern}
}

// DecodedValue is a view of a decoded value (as encoding/json with
// UseNumber decodes it), as far as sel selects (nil: all of it).
func DecodedValue(val any, sel *Selection) Value {
	return Value{val: val, dec: true, sel: sel}
}

// Kind is v's JSON type. A value on the way to what the Reader selected
// that is not what the selection descends into (a string where an object
// member is selected) reads as Null (Reader: "a non-object on the way is
// nil").
func (v Value) Kind() Kind {
	var k Kind
	switch {
	case v.dec:
		switch v.val.(type) {
		case nil:
			k = Null
		case bool:
			k = Bool
		case json.Number:
			k = Number
		case string:
			k = String
		case []any:
			k = Array
		case map[string]any:
			k = Object
		default:
			return Absent
		}
	case len(v.raw) == 0:
		return Absent
	default:
		switch v.raw[0] {
		case '{':
			k = Object
		case '[':
			k = Array
		case '"':
			k = String
		case 't', 'f':
			k = Bool
		case 'n':
			k = Null
		default:
			k = Number
		}
	}
	if s := v.sel; s != nil && !s.all && !(k == Object && s.kids != nil || k == Array && s.elem != nil) {
		return Null
	}
	return k
}

// Exists reports whether v is there (not Absent).
func (v Value) Exists() bool { return v.Kind() != Absent }

// IsObject reports whether v is an object.
func (v Value) IsObject() bool { return v.Kind() == Object }

// Get returns the member name of an object (Absent when v is not an
// object, has no such member, or the Reader did not select it).
func (v Value) Get(name string) Value {
	var out [1]Value
	v.Members([]string{name}, out[:])
	return out[0]
}

// Members sets out[i] to Get(names[i]) for every name, reading the object
// once (Get reads it once per call); len(out) must be len(names).
func (v Value) Members(names []string, out []Value) {
	clear(out)
	if v.Kind() != Object {
		return
	}
	// sels[i]: what may be read below names[i]; nil with want[i] false:
	// not selected.
	var sels [8]*Selection
	var want [8]bool
	if len(names) > len(sels) {
		for i := range names {
			out[i] = v.Get(names[i])
		}
		return
	}
	some := false
	for i, name := range names {
		want[i] = true
		if v.sel != nil && !v.sel.all {
			k := v.sel.kids[name]
			if want[i] = k != nil; want[i] && !k.all {
				sels[i] = k
			}
		}
		some = some || want[i]
	}
	if !some {
		return
	}
	if v.dec {
		m := v.val.(map[string]any)
		for i, name := range names {
			if x, ok := m[name]; ok && want[i] {
				out[i] = Value{val: x, dec: true, sel: sels[i]}
			}
		}
		return
	}
	d := v.raw
	i := jsontext.WS(d, 1)
	for i < len(d) && d[i] == '"' {
		ke := jsontext.SkipTrust(d, i)
		if ke < 0 {
			return
		}
		key := d[i+1 : ke-1]
		i = jsontext.WS(d, ke)
		i = jsontext.WS(d, i+1) // ':'
		ve := jsontext.SkipTrust(d, i)
		if ve < 0 {
			return
		}
		for j, name := range names {
			if want[j] && keyIs(key, name) {
				out[j] = Value{raw: d[i:ve], sel: sels[j], intern: v.intern}
			}
		}
		i = jsontext.WS(d, ve)
		if i >= len(d) || d[i] != ',' {
			break
		}
		i = jsontext.WS(d, i+1)
	}
}

// keyIs reports whether the JSON string content raw is name.
func keyIs(raw []byte, name string) bool {
	if len(raw) < len(name) {
		return false // an escape only makes the text longer than its value
	}
	for _, c := range raw {
		if c == '\\' {
			var buf [64]byte
			return string(jsontext.Unescape(buf[:0], raw)) == name
		}
	}
	return string(raw) == name
}

// Iter walks the elements of an array (Elems).
type Iter struct {
	v   Value
	sel *Selection
	i   int // next byte (raw) or index (decoded)
	n   int // elements returned
	cur Value
}

// Elems returns an iterator over v's elements (none when v is not an
// array or the Reader selected none).
func (v Value) Elems() Iter {
	it := Iter{v: v, i: -1}
	if v.Kind() != Array {
		return it
	}
	if v.sel != nil && !v.sel.all && !v.sel.elem.all {
		it.sel = v.sel.elem
	}
	it.i = 0
	if !v.dec {
		it.i = jsontext.WS(v.raw, 1)
	}
	return it
}

// Next moves to the next element; false at the end.
func (it *Iter) Next() bool {
	if it.i < 0 {
		return false
	}
	if it.v.dec {
		a := it.v.val.([]any)
		if it.i >= len(a) {
			it.i = -1
			return false
		}
		it.cur = Value{val: a[it.i], dec: true, sel: it.sel}
		it.i++
		it.n++
		return true
	}
	d := it.v.raw
	if it.i >= len(d) || d[it.i] == ']' {
		it.i = -1
		return false
	}
	e := jsontext.SkipTrust(d, it.i)
	if e < 0 {
		it.i = -1
		return false
	}
	it.cur = Value{raw: d[it.i:e], sel: it.sel, intern: it.v.intern}
	it.n++
	it.i = jsontext.WS(d, e)
	if it.i < len(d) && d[it.i] == ',' {
		it.i = jsontext.WS(d, it.i+1)
	}
	return true
}

// Value is the current element.
func (it *Iter) Value() Value { return it.cur }

// Index is the current element's index.
func (it *Iter) Index() int { return it.n - 1 }

// Str returns v's text when v is a string. It allocates only for a string
// that is not one of the schema's member names or literals.
func (v Value) Str() (string, bool) {
	if v.Kind() != String {
		return "", false
	}
	if v.dec {
		return v.val.(string), true
	}
	raw := v.raw[1 : len(v.raw)-1]
	if hasEscape(raw) {
		s := string(jsontext.Unescape(nil, raw))
		if is, ok := v.intern[s]; ok {
			return is, true
		}
		return s, true
	}
	if is, ok := v.intern[string(raw)]; ok {
		return is, true
	}
	return string(raw), true
}

// AppendText appends v's text to dst when v is a string (for map lookups
// without allocating: m[string(buf)]); dst unchanged and false otherwise.
func (v Value) AppendText(dst []byte) ([]byte, bool) {
	if v.Kind() != String {
		return dst, false
	}
	if v.dec {
		return append(dst, v.val.(string)...), true
	}
	return jsontext.Unescape(dst, v.raw[1:len(v.raw)-1]), true
}

// Is reports whether v is the string s.
func (v Value) Is(s string) bool {
	if v.Kind() != String {
		return false
	}
	if v.dec {
		return v.val.(string) == s
	}
	return keyIs(v.raw[1:len(v.raw)-1], s)
}

// Int returns v's value when v is a number whose value is an integer
// within int64, however it is written: 7, 7.0, 7e0, 70E-1 and -0 (0) are
// integers to JSON Schema (the schema accepts them where it says integer)
// and to the peers' JSON readers. A fraction or an integer beyond int64 is
// false.
func (v Value) Int() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	var s string
	if v.dec {
		s = string(v.val.(json.Number))
	} else {
		s = unsafe.String(&v.raw[0], len(v.raw)) // not kept: ParseInt copies it into its error
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	return intValue(s)
}

// intValue returns the value of the JSON number text s that is not a
// plain int64 literal (a fraction or an exponent: 1.0, 2e3, 30E-1) when
// that value is an integer within int64.
func intValue(s string) (int64, bool) {
	k := strings.IndexAny(s, "eE")
	if k < 0 && !strings.Contains(s, ".") {
		return 0, false // a plain integer ParseInt refused: out of range
	}
	mant, exp := s, int64(0)
	if k >= 0 {
		mant = s[:k]
		e, err := strconv.ParseInt(s[k+1:], 10, 64)
		if err != nil {
			// An exponent beyond int64: 0 if the digits are all zeros,
			// else far out of range or far below 1.
			return 0, strings.Trim(mant, "-0.") == ""
		}
		exp = e
	}
	neg := strings.HasPrefix(mant, "-")
	intPart, frac, _ := strings.Cut(strings.TrimPrefix(mant, "-"), ".")
	// value = digits × 10^exp
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	digits = trimmed
	switch {
	case digits == "":
		return 0, true
	case exp < 0 || exp > 18 || int64(len(digits))+exp > 19:
		return 0, false
	}
	if neg {
		digits = "-" + digits
	}
	i, err := strconv.ParseInt(digits+strings.Repeat("0", int(exp)), 10, 64)
	if err != nil {
		return 0, false
	}
	return i, true
}

func hasEscape(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' {
			return true
		}
	}
	return false
}

// Selection is the part of a value that is read (Reader): a set of JSON
// pointers. The zero Selection selects nothing; Add("") selects all.
type Selection struct {
	all  bool
	kids map[string]*Selection
	elem *Selection // "*": every array element
}

// Add adds a JSON pointer ("" = everything below; a "*" token = every
// element of an array).
func (s *Selection) Add(ptr string) {
	if s.all {
		return
	}
	if ptr == "" {
		s.all, s.kids, s.elem = true, nil, nil
		return
	}
	tok, rest, more := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
	if more {
		rest = "/" + rest
	}
	if tok == "*" {
		if s.elem == nil {
			s.elem = &Selection{}
		}
		s.elem.Add(rest)
		return
	}
	tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	if s.kids == nil {
		s.kids = map[string]*Selection{}
	}
	k := s.kids[tok]
	if k == nil {
		k = &Selection{}
		s.kids[tok] = k
	}
	k.Add(rest)
}

// All reports whether s selects everything.
func (s *Selection) All() bool { return s.all }

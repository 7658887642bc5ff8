package ruleset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// describe renders what a rule set can read of v (kinds, strings, ints,
// members by the names of the decoded value, elements), the same way for a
// view of the bytes and for the decoded value.
func describe(v Value, names func(Value) []string, depth int) string {
	var b strings.Builder
	switch k := v.Kind(); k {
	case String:
		s, _ := v.Str()
		fmt.Fprintf(&b, "s%q", s)
		var buf []byte
		buf, _ = v.AppendText(buf)
		if string(buf) != s || !v.Is(s) {
			fmt.Fprintf(&b, "!text %q", buf)
		}
	case Number:
		n, ok := v.Int()
		fmt.Fprintf(&b, "n%d,%v", n, ok)
	case Object:
		if depth > 8 {
			return "{…}"
		}
		ks := names(v)
		out := make([]Value, len(ks))
		v.Members(ks, out)
		b.WriteString("{")
		for i, k := range ks {
			fmt.Fprintf(&b, "%q:%s,", k, describe(out[i], names, depth+1))
			if g := describe(v.Get(k), names, depth+1); g != describe(out[i], names, depth+1) {
				fmt.Fprintf(&b, "!get %s,", g)
			}
		}
		b.WriteString("}")
	case Array:
		if depth > 8 {
			return "[…]"
		}
		b.WriteString("[")
		for it := v.Elems(); it.Next(); {
			fmt.Fprintf(&b, "%d:%s,", it.Index(), describe(it.Value(), names, depth+1))
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(&b, "k%d", k)
	}
	return b.String()
}

func decode(raw []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var val any
	if d.Decode(&val) != nil || d.More() {
		return nil, false
	}
	return val, true
}

// checkSame: a view of raw's bytes reads as the decoded value does, with
// everything selected and with sel.
func checkSame(t *testing.T, raw []byte, sel *Selection) {
	val, ok := decode(raw)
	if !ok || !utf8.Valid(raw) {
		return
	}
	// The member names asked for: some that the inputs use, one that is
	// never there.
	plain := func(Value) []string { return []string{"a", "b", "é", "a/b", "", "absent"} }
	for _, s := range []*Selection{nil, sel} {
		got := describe(RawValue(raw, s, nil), plain, 0)
		want := describe(DecodedValue(val, s), plain, 0)
		if got != want {
			t.Fatalf("%s (selection %v):\nbytes   %s\ndecoded %s", raw, s != nil, got, want)
		}
	}
}

func testSelection() *Selection {
	s := &Selection{}
	for _, p := range []string{"/a/b", "/b/*/a", "/é", "/a~1b"} {
		s.Add(p)
	}
	return s
}

func TestValueSameAsDecoded(t *testing.T) {
	for _, raw := range []string{
		`{"a":1,"b":"x","a":{"b":[1,2,{"a":"y"}]}}`,
		`{"\u00e9":"\ud83d\ude00","a\/b":"\ud800","b":[{"a":-0},{"a":12345678901234567890},{"a":1.5}]}`,
		`  {"a" : { "b" : "\"q\"" } , "b" : [ ] }  `,
		`[1,"a",null,true,{"a":[]}]`,
		`"plain"`, `-12`, `null`, `{}`,
	} {
		checkSame(t, []byte(raw), testSelection())
	}
}

// FuzzValue: a view of any valid JSON text reads as its decoded value.
func FuzzValue(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,{"a":"\u0041"}]},"b":[{"a":2}],"a":3}`))
	f.Add([]byte(`{"é":"\ud800x","a/b":[true,false,null]}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkSame(t, raw, testSelection()) })
}

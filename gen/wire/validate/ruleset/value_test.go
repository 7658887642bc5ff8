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

// TestIntByValue: Int reads a number by its value, as JSON Schema's
// integer does (the schema accepts seq 1.0 where it says integer, and
// Python's json.dumps writes a float seq so): the same from the bytes and
// decoded; ok is false for a fraction or an integer beyond int64.
func TestIntByValue(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int64
		ok   bool
	}{
		{"7", 7, true}, {"7.0", 7, true}, {"7e0", 7, true}, {"70E-1", 7, true}, {"0.7e1", 7, true},
		{"1E+2", 100, true}, {"100e-2", 1, true}, {"-7.000", -7, true},
		{"-0", 0, true}, {"0.0e5", 0, true}, {"-0.0E-3", 0, true}, {"0e99999999999999999999", 0, true},
		{"1.5", 0, false}, {"15e-1", 0, false}, {"1e-400", 0, false}, {"0.1", 0, false},
		{"9223372036854775807", 9223372036854775807, true}, {"9223372036854775807.0", 9223372036854775807, true},
		{"-9223372036854775808e0", -9223372036854775808, true}, {"-922337203685477580.8e1", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"922337203685477580.8e1", 0, false},
		{"1e18", 1000000000000000000, true}, {"1e19", 0, false}, {"1e400", 0, false},
		{"1e99999999999999999999", 0, false}, {"1e-99999999999999999999", 0, false},
	} {
		for _, v := range []Value{RawValue([]byte(tc.text), nil, nil), DecodedValue(json.Number(tc.text), nil)} {
			if n, ok := v.Int(); n != tc.want || ok != tc.ok {
				t.Errorf("%s (decoded %v): Int() = %d, %v; want %d, %v", tc.text, v.dec, n, ok, tc.want, tc.ok)
			}
		}
	}
}

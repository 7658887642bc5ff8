package jsonvalue

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, c := range []struct {
		a, b, ptr, what string
	}{
		{`{"a":1,"b":[true,null]}`, ` { "b" : [ true , null ] , "a" : 1 } `, "", ""},
		{`1.0`, `1`, "", ""},
		{`1e3`, `1000`, "", ""},
		{`10e-1`, `1`, "", ""},
		{`0.1`, `1E-1`, "", ""},
		{`-0`, `0`, "", ""},
		{`-0.0e5`, `0`, "", ""},
		{`1e999999999999999999999`, `10e999999999999999999998`, "", ""},
		{`123456789012345678901234567890`, `123456789012345678901234567891`, "", "123456789012345678901234567890 vs 123456789012345678901234567891"},
		{`9007199254740993`, `9007199254740992`, "", "9007199254740993 vs 9007199254740992"},
		{`"\u00e9\/"`, `"é/"`, "", ""},
		{`"\ud83d\ude00"`, `"😀"`, "", ""},
		// A lone surrogate is not U+FFFD (encoding/json's substitute).
		{`{"s":"a\ud800b"}`, `{"s":"a\ufffdb"}`, "/s", `"a\ud800b" vs "a\ufffdb"`},
		{`{"s":"a\ud800b"}`, `{"s":"a\ud800b"}`, "", ""},
		{`"\udc00\ud800"`, `"\udc00\ud800"`, "", ""},
		{`"\ud800\ud800"`, `"\ud800"`, "", `"\ud800\ud800" vs "\ud800"`},
		// First difference in member-name order: /a before the missing /b.
		{`{"a":1,"b":2}`, `{"a":2}`, "/a", "1 vs 2"},
		{`{"a":1,"b":2}`, `{"a":1}`, "/b", "member missing in the second value"},
		{`{"a":1}`, `{"a":1,"a/b~":2}`, "/a~1b~0", "member missing in the first value"},
		{`[1,2,3]`, `[1,5]`, "/1", "2 vs 5"},
		{`[1,2,3]`, `[1,2]`, "", "array of 3 items vs 2 items"},
		{`{"x":[{"y":"s"}]}`, `{"x":[{"y":7}]}`, "/x/0/y", `string "s" vs number 7`},
		{`{"a":{}}`, `{"a":[]}`, "/a", "object {0 members} vs array [0 items]"},
		{`{"a":1,"a":2}`, `{"a":2}`, "", ""},
	} {
		p, w, err := Diff([]byte(c.a), []byte(c.b))
		if err != nil {
			t.Errorf("Diff(%s, %s): %v", c.a, c.b, err)
			continue
		}
		if p != c.ptr || w != c.what {
			t.Errorf("Diff(%s, %s) = %q, %q; want %q, %q", c.a, c.b, p, w, c.ptr, c.what)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `01`, `1.`, `1e`, `-`, `"a`, "\"\x01\"", `"\x"`, `"\u12"`, `tru`, `{} {}`, `[1 2]`, `{"a":1 "b":2}`, `nul`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
		if json.Valid([]byte(in)) {
			t.Errorf("%q is valid JSON to encoding/json: bad test case", in)
		}
	}
}

// TestDeep: values nested far deeper than encoding/json accepts are parsed
// and compared without recursion, and the pointer of a deep difference is
// exact.
func TestDeep(t *testing.T) {
	const n = 200000
	a := strings.Repeat(`{"k":[`, n) + `1` + strings.Repeat(`]}`, n)
	b := strings.Repeat(`{"k":[`, n) + `2` + strings.Repeat(`]}`, n)
	if ok, err := Equal([]byte(a), []byte(a)); !ok || err != nil {
		t.Fatalf("deep value not equal to itself: %v", err)
	}
	p, w, err := Diff([]byte(a), []byte(b))
	if err != nil || w != "1 vs 2" || p != strings.Repeat("/k/0", n) {
		t.Fatalf("deep difference: %d-byte pointer, %q, %v", len(p), w, err)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"a\"\\\n":       `"a\"\\\u000a"`,
		"\uFFFD":        `"\ufffd"`,
		"\xED\xA0\x80":  `"\ud800"`,
		"\xff":          `"\xff"`,
		"é😀\u2028":      `"é😀\u2028"`,
		"plain":         `"plain"`,
		"\xED\xBF\xBFx": `"\udfffx"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzParse: Parse accepts exactly what encoding/json accepts, and a value
// re-encoded by encoding/json is equal to itself where encoding/json keeps
// strings (no lone surrogate escapes).
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9",true,null,{}]}`, `"\ud800"`, `[[[]]]`, `-0.0`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("Parse error %v, json.Valid %v for %q", err, json.Valid(data), data)
		}
		if err != nil || strings.Contains(strings.ToLower(string(data)), `\ud`) {
			return
		}
		var v any
		d := json.NewDecoder(strings.NewReader(string(data)))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			return
		}
		if _, w, err := Diff(data, out); err != nil || (w != "" && !strings.Contains(w, `\ufffd`) && !strings.Contains(w, `\x`)) {
			t.Fatalf("Diff(%q, %q) = %q, %v", data, out, w, err)
		}
	})
}

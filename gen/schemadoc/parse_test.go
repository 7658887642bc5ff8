package schemadoc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// parseAgrees checks Parse against encoding/json on one input: Parse
// accepts exactly the documents json.Valid accepts (except those dshgen
// refuses on purpose: duplicate keys, too deep), and the values are the
// ones json.Decoder with UseNumber gives.
func parseAgrees(t *testing.T, data []byte) {
	t.Helper()
	n, err := Parse(data)
	valid := json.Valid(data)
	if err != nil {
		var se *SyntaxError
		if !errorsAs(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) {
			t.Fatalf("%q: error %v is not a *SyntaxError with an offset in the input", data, err)
		}
		if valid && !strings.Contains(se.Msg, "duplicate object key") && !strings.Contains(se.Msg, "nesting deeper") && !strings.Contains(se.Msg, "byte order mark") {
			t.Fatalf("%q: encoding/json accepts it, Parse says %v", data, err)
		}
		return
	}
	if !valid {
		t.Fatalf("%q: Parse accepts what encoding/json refuses", data)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var want any
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := n.Value(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: Parse gives %#v, encoding/json %#v", data, got, want)
	}
	// Compact output parses back to the same value.
	back, err := Parse([]byte(n.Compact()))
	if err != nil || !reflect.DeepEqual(back.Value(), want) {
		t.Fatalf("%q: Compact %q does not parse back: %v", data, n.Compact(), err)
	}
}

func errorsAs(err error, se **SyntaxError) bool {
	e, ok := err.(*SyntaxError)
	*se = e
	return ok
}

var parseSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1e5`, `-1.5E-3`, `12345678901234567890123`,
	`"a"`, `""`, `"\u00e9\n\t\"\\\/\b\f\r"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`,
	"\"\xff\xfe\"", "\"caf\xc3\xa9\"", `{"a":[1,{"b":null}],"c":"d"}`, ` { "a" : 1 } `,
	`{"a":1,"a":2}`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `-`, `1e`, `"abc`, `{"a"}`, `[1 2]`, `tru`,
	"\"a\x01b\"", `"\x"`, `"\u12"`, `"\u12G4"`, "\xef\xbb\xbf{}", `{} {}`, `[1]x`, ``, `   `, `+1`, `NaN`,
	`{"":{"":[]}}`, `[[[[[]]]]]`, "\"\u2028\"", "[\"\xed\xa0\x80\"]",
}

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range parseSeeds {
		parseAgrees(t, []byte(s))
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := Parse([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("nesting of %d: %v", MaxDepth+1, err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("nesting of %d: %v", MaxDepth, err)
	}
}

// FuzzParse: go test -run XXX -fuzz FuzzParse ./gen/schemadoc/
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { parseAgrees(t, data) })
}

func TestParseKeepsOrderOffsetsAndLines(t *testing.T) {
	src := "{\n  \"z\": 1,\n  \"a\": {\"k\": [true, \"x\"]},\n  \"m\": null\n}\n"
	n, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(n.Keys(), ","); got != "z,a,m" {
		t.Errorf("member order %s", got)
	}
	d := newDoc("/x.json", "x.json", []byte(src), n)
	for ptr, want := range map[string][2]int{"": {1, 1}, "/z": {2, 8}, "/a": {3, 8}, "/a/k/1": {3, 21}, "/m": {4, 8}} {
		v, ok := Resolve(n, ptr)
		if !ok {
			t.Fatalf("%s: not found", ptr)
		}
		if l, c := d.LineCol(v.Offset()); l != want[0] || c != want[1] {
			t.Errorf("%s at %d:%d, want %d:%d", PointerText(ptr), l, c, want[0], want[1])
		}
	}
	_, err = Parse([]byte("{\n  \"a\": 1,\n  \"a\": 2\n}"))
	se, _ := err.(*SyntaxError)
	if se == nil || newDoc("/x", "x", []byte("{\n  \"a\": 1,\n  \"a\": 2\n}"), nil).Line(se.Offset) != 3 {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestResolvePointer(t *testing.T) {
	n, _ := Parse([]byte(`{"a/b":{"~k":[10,20]},"":{"x":1},"arr":[0,1,2,3,4,5,6,7,8,9,10]}`))
	for ptr, want := range map[string]string{
		"/a~1b/~0k/1": "20", "//x": "1", "/arr/10": "10", "": n.Compact(),
	} {
		v, ok := Resolve(n, ptr)
		if !ok || v.Compact() != want {
			t.Errorf("%q: %v %v, want %s", ptr, v, ok, want)
		}
	}
	for _, ptr := range []string{"/arr/01", "/arr/+1", "/arr/-1", "/arr/11", "/a~1b/~0k/x", "a", "/nope", "/arr/1/x"} {
		if _, ok := Resolve(n, ptr); ok {
			t.Errorf("%q resolved", ptr)
		}
	}
}

package validate

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

// stdDecode is encoding/json with UseNumber, exactly one value.
func stdDecode(data []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

var decodeSeeds = []string{
	``, ` `, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `01`, `1.`, `.5`, `1e5`, `1E+5`, `-1.5e-3`, `-`, `1e`,
	`"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\uZZZZ"`, `"\x"`, "\"\x01\"", "\"\xff\xfe\"",
	`{"a":1,"a":2}`, `{"a":[1,{"b":null}],"c":"d"}`, `{"a" : 1 , "b" : [ ] }`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a"}`, `{1:2}`,
	` {"jsonrpc":"2.0","id":"x","method":"m","params":{"k":"v\n\"q\""}} `, `{} {}`, `"abc`, `[`, "\xef\xbb\xbf{}",
	`{"type":"text","text":"\/\b\f\n\r\t\\"}`, `123456789012345678901234567890`, `[[[[[[[[[[]]]]]]]]]]`,
}

func TestFastDecodeAgrees(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
	// Every real frame.
	for _, sc := range cleanScenarios {
		for _, r := range loadCapture(t, sc) {
			checkDecode(t, r.payload)
		}
	}
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	fv, fok := fastDecode(data)
	sv, sok := stdDecode(data)
	if fok != sok || (fok && !reflect.DeepEqual(fv, sv)) {
		t.Fatalf("%q: fast %v %#v, encoding/json %v %#v", data, fok, fv, sok, sv)
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecode(t, data) })
}

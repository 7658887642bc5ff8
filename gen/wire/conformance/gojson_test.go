package conformance

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// jsonTexts are JSON texts and near misses for TestGoSplitAgreesWithJSON:
// every vector frame of testdata/conformance, edge values, and every text
// with each of its bytes changed to each byte of JSON's syntax (or
// dropped), which makes invalid JSON of each kind (a bad escape, a number
// with no digit, an unclosed string, a missing colon or comma, a stray
// bracket) and valid JSON of other shapes.
func jsonTexts(t *testing.T) []string {
	t.Helper()
	valid, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "conformance", "valid.log"))
	if err != nil {
		t.Fatal(err)
	}
	seeds := []string{
		`{}`, `[]`, ` { "a" : [ 1 , -0.5e+7 , 0 ] , "b" : { } } `, `{"a":1,"a":2}`, `{"\u0074ype":"x","t\"y":"\ud800"}`,
		`[true,false,null,"\\\/\b\f\n\r\t\u00e9"]`, `{"a":-12.5E-3,"b":1E9,"c":0.0}`, "{\"\xff\":\"\xfe\"}", "[\t\r\n]", `[[[[[]]]]]`,
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(valid)), "\n") {
		out = append(out, l[strings.LastIndexByte(l, '\t')+1:])
	}
	for _, s := range seeds {
		out = append(out, s)
		for i := range len(s) {
			out = append(out, s[:i]+s[i+1:])
			for _, c := range []byte("{}[]:,\"\\ -+.eE0a\x01") {
				out = append(out, s[:i]+string(c)+s[i+1:])
			}
		}
	}
	// Around encoding/json's nesting limit (10000, counting the object
	// around the text).
	for _, n := range []int{9998, 9999, 10000, 10001} {
		out = append(out, strings.Repeat("[", n)+strings.Repeat("]", n))
	}
	return out
}

// TestGoSplitAgreesWithJSON: the Go bindings' decoding splits objects and
// arrays in a pass of its own (runtime.go's splitObject, splitArray and
// validFrom); for every text of jsonTexts, as the value of an undeclared
// member, as the members of an open object (ToolResultBlock) and after the
// object (then only whitespace is valid), decoding
// fails exactly when encoding/json's does, with its message, and keeps the
// members encoding/json reads, byte for byte; and encoding (marshal's
// marshalCompact) writes what encoding/json writes, or fails where it does.
func TestGoSplitAgreesWithJSON(t *testing.T) {
	for _, text := range jsonTexts(t) {
		check := func(raw string) {
			var want map[string]json.RawMessage
			wantErr := json.Unmarshal([]byte(raw), &want)
			got, err := dshproto.DecodeContentBlock(json.RawMessage(raw))
			switch {
			case wantErr != nil:
				if err == nil || !strings.Contains(err.Error(), wantErr.Error()) {
					t.Errorf("%q: got %v, want the error %q", raw, err, wantErr)
				}
			case err != nil:
				t.Errorf("%q: %v (encoding/json reads it)", raw, err)
			default:
				extra := got.(dshproto.ToolResultBlock).Extra
				for _, k := range []string{"type", "toolCallId", "content"} {
					delete(want, k)
				}
				if len(want) == 0 {
					want = nil
				}
				if !maps.EqualFunc(extra, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
					t.Errorf("%q: extra %q, want %q", raw, extra, want)
				}
			}
		}
		head := `{"type":"tool-result","toolCallId":"","content":[]`
		// Encoding (MarshalJSON): text as an undeclared member and as an
		// unknown variant's Raw is written compacted, or refused, as
		// encoding/json does with a json.RawMessage on its own.
		var compact bytes.Buffer
		cerr := json.Compact(&compact, []byte(text))
		for _, c := range []struct {
			v    dshproto.ToolResultBlock
			want string
		}{
			{dshproto.ToolResultBlock{Extra: map[string]json.RawMessage{"x": json.RawMessage(text)}}, head + `,"x":` + compact.String() + `}`},
			{dshproto.ToolResultBlock{Content: []dshproto.ContentBlock{dshproto.UnknownContentBlock{Raw: json.RawMessage(text)}}}, `{"type":"tool-result","toolCallId":"","content":[` + compact.String() + `]}`},
		} {
			got, err := c.v.MarshalJSON()
			switch {
			case cerr != nil && err == nil:
				t.Errorf("%q: encoded as %s, want an error (%v)", text, got, cerr)
			case cerr == nil && (err != nil || string(got) != c.want):
				t.Errorf("%q: encoded as %s (%v), want %s", text, got, err, c.want)
			}
		}
		check(head + `,"x":` + text + `}`)
		check(head + `}` + text)
		// As members: those of text, after the declared ones (a text that
		// redeclares one, which would change the variant or fail its type,
		// is checked as a member value only).
		var own map[string]json.RawMessage
		err := json.Unmarshal([]byte(text), &own)
		_, tag := own["type"]
		_, id := own["toolCallId"]
		_, content := own["content"]
		if strings.HasPrefix(strings.TrimSpace(text), "{") && (err != nil || !tag && !id && !content) {
			check(head + "," + strings.TrimPrefix(strings.TrimSpace(text), "{"))
		}
	}
}

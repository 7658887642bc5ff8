package validate

import (
	"strings"
	"testing"
)

// TestJSONErrorNamesTheByte: a frame.json message names what is in the
// frame. encoding/json names an unexpected byte as the character of that
// code point, so the CESU-8 surrogate bytes ED A0 80 (a lone \ud800 written
// raw, as some encoders do) were "invalid character 'í'" and an é outside
// a string "invalid character 'Ã'"; now the byte that is not UTF-8 by its
// value and a whole character by itself. The same three ways (threeWays).
func TestJSONErrorNamesTheByte(t *testing.T) {
	vs := threeWays(t)
	for in, want := range map[string]string{
		"\xed\xa0\x80{}":        "not JSON: invalid byte 0xED (not UTF-8) looking for beginning of value at column 1",
		"{\"a\":\xc3\xa9}":      "not JSON: invalid character 'é' looking for beginning of value at column 6",
		"{\"a\":1\xff}":         "not JSON: invalid byte 0xFF (not UTF-8) after object key:value pair at column 7",
		"{\"a\":1\xe2\x82\xac}": "not JSON: invalid character '€' after object key:value pair at column 7",
		"{\"a\":1x}":            "not JSON: invalid character 'x' after object key:value pair at column 7",
	} {
		res := sameThreeWays(t, vs, []byte(in+"\n"), Input{})
		found := false
		for _, f := range res.Findings {
			if f.Rule == RuleFrameJSON {
				found = true
				if !strings.HasPrefix(f.Message, want) {
					t.Errorf("%q: %q, want %q …", in, f.Message, want)
				}
			}
		}
		if !found {
			t.Errorf("%q: no %s finding:\n%s", in, RuleFrameJSON, dumpFindings(res.Findings))
		}
	}
}

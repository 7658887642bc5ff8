package golang_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// Integers in the Go bindings are int64: exact past 2^53, and JSON Schema's
// notion of an integer (1.0 and 1e3 are integers, 1.5 is not), as in the
// Python bindings.
func TestIntegerMembers(t *testing.T) {
	for in, want := range map[string]int64{
		"1": 1, "1.0": 1, "1e3": 1000, "9007199254740993": 9007199254740993, "9223372036854775807": 9223372036854775807,
	} {
		var p dshproto.InitializeParams
		if err := json.Unmarshal([]byte(`{"cwd":"/","provider":"p","model":"m","maxTokens":`+in+`}`), &p); err != nil {
			t.Errorf("maxTokens %s: %v", in, err)
			continue
		}
		if p.MaxTokens == nil || *p.MaxTokens != want {
			t.Errorf("maxTokens %s: got %v, want %d", in, p.MaxTokens, want)
		}
		out, _ := json.Marshal(p)
		if !strings.Contains(string(out), `"maxTokens":`+jsonInt(want)) {
			t.Errorf("maxTokens %s re-encodes as %s", in, out)
		}
	}
	for _, in := range []string{"1.5", "9223372036854775808", `"10"`, "true", "null"} {
		var p dshproto.InitializeParams
		err := json.Unmarshal([]byte(`{"cwd":"/","provider":"p","model":"m","maxTokens":`+in+`}`), &p)
		if err == nil || !strings.Contains(err.Error(), "/maxTokens") {
			t.Errorf("maxTokens %s: got %v, want an error at /maxTokens", in, err)
		}
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

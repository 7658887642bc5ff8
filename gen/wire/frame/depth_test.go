package frame

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`:                               0,
		`"[{"`:                            0,
		`{}`:                              1,
		`{"a":[1,{"b":"]}\"[["}],"c":{}}`: 3,
		`[[],[[]],[]]`:                    3,
	} {
		if got := Depth([]byte(in)); got != want {
			t.Errorf("Depth(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestMaxDepthIsEncodingJSONs: encoding/json reads a frame MaxDepth deep
// and rejects one a level deeper, so the Go bindings and MaxDepth agree.
func TestMaxDepthIsEncodingJSONs(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	var v any
	if b := nest(MaxDepth); Depth(b) != MaxDepth || json.Unmarshal(b, &v) != nil {
		t.Errorf("a frame %d deep: Depth %d, encoding/json error %v", MaxDepth, Depth(b), json.Unmarshal(b, &v))
	}
	if b := nest(MaxDepth + 1); json.Unmarshal(b, &v) == nil {
		t.Errorf("encoding/json reads a frame %d deep: MaxDepth is stale", MaxDepth+1)
	}
}

package validate

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParamsOmitted (testdata/cases/params-omitted): requests and
// notifications whose def declares no params member, or whose params type
// requires nothing, are valid without params and with no overlay; an open
// def without a params member takes any params, a closed one none.
func TestParamsOmitted(t *testing.T) {
	v := newValidator(t, filepath.Join(moduleRoot(t), "testdata", "cases", "params-omitted", "schema.json"), Options{})
	for _, name := range []string{"ping", "items/list", "stop", "ready"} {
		if m := v.model.Method(name); m == nil || !m.ParamsOptional {
			t.Fatalf("%s: want a method with optional params, got %+v", name, m)
		}
	}
	if m := v.model.Method("ping"); !m.ParamsUndeclared || m.Params.Name != "PingRequestParams" || m.Params.Closed {
		t.Errorf("ping params: undeclared %v, %s, closed %v", m.ParamsUndeclared, m.Params.Name, m.Params.Closed)
	}
	if m := v.model.Method("stop"); !m.ParamsUndeclared || !m.Params.Closed {
		t.Errorf("stop params: undeclared %v, closed %v", m.ParamsUndeclared, m.Params.Closed)
	}
	fp := filepath.Join(t.TempDir(), "f.jsonl")
	frames := `{"jsonrpc":"2.0","id":1,"method":"ping"}
{"jsonrpc":"2.0","id":2,"method":"items/list"}
{"jsonrpc":"2.0","id":3,"method":"items/list","params":{"cursor":"p2"}}
{"jsonrpc":"2.0","method":"ready","params":{"any":1}}
{"jsonrpc":"2.0","method":"stop"}
{"jsonrpc":"2.0","method":"stop","params":{}}
{"jsonrpc":"2.0","id":4,"method":"items/list","params":{"cursor":5}}
`
	if err := os.WriteFile(fp, []byte(frames), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := clientFindings(t, v, fp)
	checkFindings(t, kept, []want{
		{line: 6, rule: RuleParams, sev: Error, pointer: "/params", msg: []string{"params not allowed", "#/$defs/StopNotification"},
			schema: []string{"#/$defs/StopNotification/additionalProperties"}},
		{line: 7, rule: RuleParams, sev: Error, pointer: "/params/cursor", msg: []string{"expected string"}},
	})
}

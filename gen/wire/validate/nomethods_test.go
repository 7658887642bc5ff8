package validate

import (
	"strings"
	"testing"
)

// TestUnknownMethodMessage: an unknown method's finding lists the schema's
// methods, and for a schema that declares none (no x-methods, nothing
// inferred) it says so instead of an empty list.
func TestUnknownMethodMessage(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"todo/add","params":{}}` + "\n")
	for _, c := range []struct {
		name, schema, want string
	}{
		{"no methods", `{"$schema": "https://json-schema.org/draft/2020-12/schema",
			"$defs": {"Todo": {"type": "object", "properties": {"title": {"type": "string"}}}}}`,
			`unknown method "todo/add" (the schema declares no method: no x-methods, and none inferred)`},
		{"two methods", `{"$schema": "https://json-schema.org/draft/2020-12/schema",
			"x-methods": {
				"b/get": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/P"}, "result": {"$ref": "#/$defs/P"}},
				"a/note": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/P"}}},
			"$defs": {"P": {"type": "object"}}}`,
			`unknown method "todo/add" (known: a/note, b/get)`},
	} {
		v, err := validatorFromBytes(t, []byte(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		res := run(t, v, "t.jsonl", frame, Input{Direction: "client-to-server"})
		var got []string
		for _, f := range res.Findings {
			if f.Rule == RuleMethodUnknown {
				got = append(got, f.Message)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
			t.Errorf("%s: method.unknown findings %q, want one starting %q\n%s", c.name, got, c.want, dumpFindings(res.Findings))
		}
	}
}

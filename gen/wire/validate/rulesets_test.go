package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate/rulesets/harness"
	"github.com/dshgen/dshgen/gen/wire/validate/rulesets/lifecycle"
)

// shippedRaw returns the shipped schema's bytes.
func shippedRaw(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func validatorFromBytes(t *testing.T, raw []byte) (*Validator, error) {
	t.Helper()
	m, err := ir.LoadBytes("test.schema.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	return New(m, Options{})
}

// TestRuleSetOptIn: the shipped schema opts into initialize-first and
// deepseek-harness; the same
// schema without the keyword gets only the generic JSON-RPC 2.0 rules
// (pairing still runs, the protocol's state rules do not); an unknown name
// or a bad keyword is a schema error naming the pointer.
func TestRuleSetOptIn(t *testing.T) {
	raw := shippedRaw(t)
	v, err := validatorFromBytes(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.RuleSets(), ","); got != lifecycle.Name+","+harness.Name {
		t.Fatalf("shipped schema opts into %q", got)
	}
	frames := []step{
		{c2s, promptReq(`"p1"`, "s1")}, // before initialize
		{s2c, turnStart("s1", 0, 1)},
		{s2c, turnStart("s1", 2, 2)}, // a seq gap (then turns are unknown)
		{s2c, initRes(`"nope"`)},     // unknown id: generic pairing
	}
	if got := rulesOf(feedSteps(v, true, frames)); got != "1:request.unanswered:info 1:state.initialize-first:error 3:state.seq:error 4:response.unknown-id:error" {
		t.Errorf("with deepseek-harness: %s", got)
	}
	generic := bytes.Replace(raw, []byte(`"x-dshgen-rules": [`+"\n"+`    "initialize-first",`+"\n"+`    "deepseek-harness"`+"\n"+`  ],`), nil, 1)
	if bytes.Equal(generic, raw) {
		t.Fatal("keyword not found in the shipped schema")
	}
	g, err := validatorFromBytes(t, generic)
	if err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(feedSteps(g, true, frames)); got != "1:request.unanswered:info 4:response.unknown-id:error" {
		t.Errorf("generic: %s", got)
	}
	for _, c := range []struct{ kw, want string }{
		{`"x-dshgen-rules": ["deepseek-harness", "mcp-lifecycle"],`, `test.schema.json:7: /x-dshgen-rules/1: unknown rule set "mcp-lifecycle" (known: deepseek-harness, initialize-first)`},
		{`"x-dshgen-rules": "deepseek-harness",`, `test.schema.json:7: /x-dshgen-rules: x-dshgen-rules must be an array of strings, not a string`},
		{`"x-dshgen-rules": [7],`, `test.schema.json:7: /x-dshgen-rules: x-dshgen-rules must be an array of strings, not an array`},
	} {
		bad := bytes.Replace(generic, []byte(`"x-ts-request-map"`), []byte(c.kw+`"x-ts-request-map"`), 1)
		// A keyword of the wrong shape fails the load (the IR's keyword
		// table); an unknown set name fails New.
		m, err := ir.LoadBytes("test.schema.json", bad)
		if err == nil {
			_, err = New(m, Options{})
		}
		if err == nil || !strings.Contains(err.Error(), "\n  "+c.want) {
			t.Errorf("%s: %v", c.kw, err)
		}
	}
}

// TestGenericIDAndError: the JSON-RPC 2.0 id and error object are checked
// by built-in rules whatever the schema calls its types (here the shipped
// schema with JsonRpcId and JsonRpcError renamed).
func TestGenericIDAndError(t *testing.T) {
	raw := bytes.ReplaceAll(shippedRaw(t), []byte("JsonRpcError"), []byte("RpcFault"))
	raw = bytes.ReplaceAll(raw, []byte("JsonRpcId"), []byte("RequestKey"))
	v, err := validatorFromBytes(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	if v.errType != nil || v.idType != nil {
		t.Fatal("the renamed types were found by name")
	}
	fs := feedSteps(v, true, []step{
		{c2s, initReq(`1.5`)},
		{c2s, initReq(`"a"`)},
		{s2c, `{"jsonrpc":"2.0","id":"a","error":{"code":"boom"}}`},
	})
	want := []string{
		"1:envelope.id: /id: id 1.5 is not a JSON-RPC 2.0 id (a string or an integer)",
		"3:error.schema: /error: missing properties: 'message' (a JSON-RPC 2.0 error object has an integer code and a string message)",
		"3:error.schema: /error/code: expected integer, but got string (a JSON-RPC 2.0 error object has an integer code and a string message)",
	}
	var got []string
	for _, f := range fs {
		if f.Rule == RuleEnvID || f.Rule == RuleError {
			got = append(got, strings.SplitN(TextLine(&f), ": ", 2)[0][len("t:"):]+":"+f.Rule+": "+f.Pointer+": "+f.Message)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSchemaRuleSeverity: x-dshgen-rule-severity sets rule severities for
// the protocol; an unknown rule id or severity is a schema problem naming
// the line and pointer.
func TestSchemaRuleSeverity(t *testing.T) {
	raw := shippedRaw(t)
	at := []byte(`"x-dshgen-rules": [`)
	with := func(kw string) []byte {
		return bytes.Replace(raw, at, []byte(`"x-dshgen-rule-severity": `+kw+`, `+string(at)), 1)
	}
	v, err := validatorFromBytes(t, with(`{"method.unknown": "error", "state.prompt-overlap": "off"}`))
	if err != nil {
		t.Fatal(err)
	}
	steps := []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, "s")}, {c2s, promptReq(`"r3"`, "s")},
		{s2c, promptRes(`"r2"`)}, {s2c, promptRes(`"r3"`)}, {c2s, `{"jsonrpc":"2.0","method":"x/y","params":{}}`}}
	if got := rulesOf(feedSteps(v, true, steps)); got != "7:method.unknown:error" {
		t.Errorf("got %q", got)
	}
	for kw, want := range map[string]string{
		`{"no.such": "off"}`:         `/x-dshgen-rule-severity/no.such: unknown rule id "no.such" (known: input.read,`,
		`{"method.unknown": "loud"}`: `/x-dshgen-rule-severity/method.unknown: severity must be off, info, warning or error, not "loud"`,
		`["state.prompt-overlap"]`:   `/x-dshgen-rule-severity: must be an object`,
	} {
		if _, err := validatorFromBytes(t, with(kw)); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "test.schema.json:6") {
			t.Errorf("%s: %v", kw, err)
		}
	}
}

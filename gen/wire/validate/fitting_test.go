package validate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// fittingSchema: request "run" whose params are Job | Probe, open objects
// no member or JSON type tells apart (a union by ordered tries); Job's
// "step" is a closed union tagged by "kind".
const fittingSchema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "F",
  "x-methods": {"run": {"kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/RunParams"}, "result": {"$ref": "#/$defs/Done"}}},
  "$defs": {
    "RunParams": {"anyOf": [{"$ref": "#/$defs/Job"}, {"$ref": "#/$defs/Probe"}]},
    "Job": {"type": "object", "properties": {"name": {"type": "string"}, "step": {"$ref": "#/$defs/Step"}}, "required": ["name", "step"]},
    "Probe": {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]},
    "Step": {"oneOf": [
      {"$ref": "#/$defs/StepCopy"}, {"$ref": "#/$defs/StepMove"}]},
    "StepCopy": {"type": "object", "properties": {"kind": {"const": "copy"}}, "required": ["kind"]},
    "StepMove": {"type": "object", "properties": {"kind": {"const": "move"}}, "required": ["kind"]},
    "Done": {"type": "object"}}}`

// TestOnlyFittingBranch: a value that fails every branch of a union by
// ordered tries, but has every required member of exactly one branch of
// the right type, is explained as that branch (the bad tag inside it is
// union.unknown-tag at its pointer, the bad member type params.schema at
// its own); a value that fits no branch, or several, gives one finding at
// the union's value that lists each branch's reasons.
func TestOnlyFittingBranch(t *testing.T) {
	dir := t.TempDir()
	sp := filepath.Join(dir, "s.json")
	frames := `{"jsonrpc":"2.0","id":1,"method":"run","params":{"name":"a","step":{"kind":"jump"}}}
{"jsonrpc":"2.0","id":2,"method":"run","params":{"name":5,"step":{"kind":"copy"}}}
{"jsonrpc":"2.0","id":3,"method":"run","params":{"name":"a"}}
{"jsonrpc":"2.0","id":4,"method":"run","params":{"name":"a","step":{"kind":"jump"},"target":7}}
`
	fp := filepath.Join(dir, "f.jsonl")
	if err := os.WriteFile(sp, []byte(fittingSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fp, []byte(frames), 0o644); err != nil {
		t.Fatal(err)
	}
	v := newValidator(t, sp, Options{})
	kept := clientFindings(t, v, fp)
	checkFindings(t, kept, []want{
		{line: 1, rule: RuleUnionUnknownTag, sev: Error, pointer: "/params/step/kind", msg: []string{`"jump"`}},
		{line: 2, rule: RuleParams, sev: Error, pointer: "/params/name", msg: []string{"expected string, but got number"}},
		// Fits no branch (Job lacks step, Probe target), or both (each
		// fails inside): one finding listing each branch's reasons.
		{line: 3, rule: RuleParams, sev: Error, pointer: "/params", msg: []string{"no branch of RunParams matched", "Job: missing properties: 'step'", "Probe: missing properties: 'target'"}},
		{line: 4, rule: RuleParams, sev: Error, pointer: "/params", msg: []string{"no branch of RunParams matched", "Job: /step", "Probe: /target"}},
	})
}

// clientFindings validates the client-to-server NDJSON file fp and returns
// its findings other than request.unanswered (the files hold requests
// only).
func clientFindings(t *testing.T, v *Validator, fp string) []Finding {
	t.Helper()
	res, err := v.ValidateFile(fp, Input{Name: "f.jsonl", Direction: ir.ClientToServer})
	if err != nil {
		t.Fatal(err)
	}
	var kept []Finding
	for _, f := range res.Findings {
		if f.Rule != RuleRequestUnanswered {
			kept = append(kept, f)
		}
	}
	return kept
}

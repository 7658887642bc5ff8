package ir

import (
	"strings"
	"testing"
)

// resultSchema is a protocol whose request "run" may answer RunResult or
// Pending; runTag and pendingTag are a required "state" member of each
// (a const) or "" for none.
func resultSchema(runTag, pendingTag string) string {
	req := func(tag string) string {
		if tag == "" {
			return ""
		}
		return `, "state"`
	}
	return `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "R",
  "x-methods": {"run": {"kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/RunParams"}, "result": {"$ref": "#/$defs/RunResult"},
    "resultAlternatives": [{"$ref": "#/$defs/Pending"}]}},
  "$defs": {
    "RunParams": {"type": "object", "properties": {"x": {"type": "string"}}},
    "RunResult": {"type": "object", "properties": {"out": {"type": "string"}` + runTag + `}, "required": ["out"` + req(runTag) + `]},
    "Pending": {"type": "object", "properties": {"job": {"type": "string"}` + pendingTag + `}, "required": ["job"` + req(pendingTag) + `]}}}`
}

// TestResultUnion: a request with result alternatives gets one union of
// its result and the alternatives, named from them, decided by the union
// rules (tagged when a required const member tells them apart, ordered
// tries otherwise), declared by the bindings (Decls) and not a schema type
// (Types); BindingResult is that union, and the main result without
// alternatives.
func TestResultUnion(t *testing.T) {
	cases := []struct {
		name            string
		runTag, pending string
		by              UnionBy
		tag             string
	}{
		{"ordered tries", "", "", ByTry, ""},
		{"tagged by a const member", `, "state": {"const": "done"}`, `, "state": {"const": "pending"}`, ByTag, "state"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := LoadBytes("r.json", []byte(resultSchema(c.runTag, c.pending)))
			if err != nil {
				t.Fatal(err)
			}
			me := m.Method("run")
			u := me.ResultUnion
			if u == nil || me.BindingResult() != u || me.Result.Name != "RunResult" {
				t.Fatalf("run: result union %v, binding result %v", u, me.BindingResult())
			}
			if u.Name != "RunResultOrPending" || u.Kind != KindUnion || u.Union.By != c.by || u.Union.Tag != c.tag {
				t.Fatalf("union %s %v by %v tag %q", u.Name, u.Kind, u.Union.By, u.Union.Tag)
			}
			var got []string
			for _, v := range u.Union.Variants {
				got = append(got, v.Type.Name)
			}
			if strings.Join(got, ",") != "RunResult,Pending" {
				t.Errorf("variants %v", got)
			}
			inDecls := false
			for _, d := range m.Decls {
				inDecls = inDecls || d == u
			}
			if !inDecls || m.TypeByName(u.Name) != nil {
				t.Errorf("in Decls %v, in Types %v: want Decls only", inDecls, m.TypeByName(u.Name) != nil)
			}
			if rr := m.TypeByName("RunResult"); len(rr.Unions) != 1 || rr.Unions[0] != u {
				t.Errorf("RunResult.Unions = %v", rr.Unions)
			}
		})
	}
	m, err := LoadBytes("r.json", []byte(strings.Replace(resultSchema("", ""), `,
    "resultAlternatives": [{"$ref": "#/$defs/Pending"}]`, "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if me := m.Method("run"); me.ResultUnion != nil || me.BindingResult() != me.Result {
		t.Errorf("without alternatives: union %v", me.ResultUnion)
	}
}

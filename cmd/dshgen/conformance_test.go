package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/wire/corpus"
)

// TestConformanceGo: the Go bindings generated from the shipped schema
// round-trip the default corpus and the validator catches every invalid
// vector.
func TestConformanceGo(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	code, stdout, stderr := runDshgen(t, repoRoot(t), "conformance", "--lang", "go")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "round-tripped: go 919/919; invalid vectors caught: 29/29") {
		t.Errorf("no summary: %s", stdout)
	}
}

// TestConformanceCatchesBrokenEmitter: an emitter that drops an optional
// member (here: the Go bindings no longer write assistant/message usage) is
// caught, with the language, the line and the JSON pointer of the member.
func TestConformanceCatchesBrokenEmitter(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	root := repoRoot(t)
	out := t.TempDir()
	if code, _, stderr := runDshgen(t, root, "generate", "--out", out, "--lang", "go"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	types := filepath.Join(out, "go", "dshproto", "json.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	drop := "\tif v.Usage != nil {\n\t\tw.value(\"usage\", v.Usage)\n\t}\n"
	if !strings.Contains(string(src), drop) {
		t.Fatalf("the generated code changed shape; update the perturbation")
	}
	os.WriteFile(types, []byte(strings.Replace(string(src), drop, "", 1)), 0o644)
	code, stdout, _ := runDshgen(t, root, "conformance", "--lang", "go", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stdout)
	}
	want := "go: re-encodes differently: member missing in the second value at /params/event/data/usage"
	if !strings.Contains(stdout, want) {
		t.Errorf("report lacks %q:\n%s", want, stdout)
	}
}

// TestConformanceUserCapture: a capture the user points at is round-tripped.
func TestConformanceUserCapture(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	capture := filepath.Join(repoRoot(t), "..", "shared", "fixtures", "real-captures", "subagent", "interleaved.log")
	code, stdout, stderr := runDshgen(t, repoRoot(t), "conformance", "--lang", "go", capture)
	if code != 0 || !strings.Contains(stdout, "1 file, 68 frames") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConformancePython: the Python bindings round-trip the default corpus
// (the package needs only the standard library).
func TestConformancePython(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	if !haveLang(t, "python") {
		t.Skip("python3 not found")
	}
	code, stdout, stderr := runDshgen(t, repoRoot(t), "conformance", "--lang", "python")
	if code != 0 || !strings.Contains(stdout, "round-tripped: python 919/919; invalid vectors caught: 29/29") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConformanceTypeScript: the TypeScript bindings round-trip the
// default corpus.
func TestConformanceTypeScript(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	if !haveLang(t, "ts") {
		t.Skip("node or TypeScript (npm ci in testdata/ts) missing")
	}
	code, stdout, stderr := runDshgenEnv(t, repoRoot(t), nil, "conformance", "--lang", "ts")
	if code != 0 || !strings.Contains(stdout, "round-tripped: ts 919/919; invalid vectors caught: 29/29") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// haveLang reports whether lang's driver can run here; it fails instead of
// skipping where CI requires the tools (DSHGEN_PYTHON, DSHGEN_REQUIRE_TSC).
func haveLang(t *testing.T, lang string) bool {
	t.Helper()
	switch lang {
	case "python":
		py := os.Getenv("DSHGEN_PYTHON")
		if _, err := exec.LookPath(orPython(py)); err != nil {
			if py != "" {
				t.Fatalf("DSHGEN_PYTHON=%s: %v", py, err)
			}
			return false
		}
	case "ts":
		_, errNode := exec.LookPath("node")
		_, errTS := os.Stat(filepath.Join(repoRoot(t), repoTypeScript, "package.json"))
		if errNode != nil || errTS != nil {
			if os.Getenv("DSHGEN_REQUIRE_TSC") != "" {
				t.Fatalf("node or TypeScript missing: %v %v", errNode, errTS)
			}
			return false
		}
	}
	return true
}

func orPython(p string) string {
	if p == "" {
		return "python3"
	}
	return p
}

// langsHere are the languages whose drivers can run here.
func langsHere(t *testing.T) []string {
	var out []string
	for _, l := range []string{"go", "python", "ts"} {
		if haveLang(t, l) {
			out = append(out, l)
		}
	}
	return out
}

// perLang is the summary's "round-tripped:" part for langs, each n/n.
func perLang(langs []string, n int) string {
	var parts []string
	for _, l := range langs {
		parts = append(parts, fmt.Sprintf("%s %d/%d", l, n, n))
	}
	return "round-tripped: " + strings.Join(parts, ", ") + ";"
}

// nestedFrames writes a file of 100 session.status notifications with
// line51 as its line 51.
func nestedFrames(t *testing.T, line51 string) string {
	var b strings.Builder
	for i := 1; i <= 101; i++ {
		if i == 51 {
			b.WriteString(line51 + "\n")
			continue
		}
		b.WriteString(`{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle"}}` + "\n")
	}
	p := filepath.Join(t.TempDir(), "frames.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConformanceDeepValueAmongGoodFrames: one 5000-deep JSON value among
// 100 good frames round-trips in every language (it used to crash the
// Python and TypeScript drivers and report 0/101, blamed on line 1).
func TestConformanceDeepValueAmongGoodFrames(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	langs := langsHere(t)
	deep := `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`
	code, stdout, stderr := runDshgenEnv(t, repoRoot(t), nil, "conformance", "--lang", strings.Join(langs, ","), nestedFrames(t, deep))
	if code != 0 || !strings.Contains(stdout, "101 frames, 101 valid; "+perLang(langs, 101)) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConformanceExactStrings: a lone surrogate the Go bindings turn into
// U+FFFD (encoding/json does) is a mismatch at its own line, with both
// strings shown; Python and TypeScript keep it.
func TestConformanceExactStrings(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	langs := langsHere(t)
	sur := `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"a\ud800b","status":"idle"}}`
	code, stdout, _ := runDshgenEnv(t, repoRoot(t), nil, "conformance", "--lang", strings.Join(langs, ","), nestedFrames(t, sur))
	want := `frames.jsonl:51: go: re-encodes differently: "a\ud800b" vs "a\ufffdb" at /params/sessionId`
	if code != 1 || !strings.Contains(stdout, want) || strings.Count(stdout, "frames.jsonl:") != 1 {
		t.Fatalf("exit %d, want 1 and only %q:\n%s", code, want, stdout)
	}
	if !strings.Contains(stdout, "go 100/101") {
		t.Errorf("go not 100/101:\n%s", stdout)
	}
	for _, l := range langs[1:] {
		if !strings.Contains(stdout, l+" 101/101") {
			t.Errorf("%s not 101/101:\n%s", l, stdout)
		}
	}
}

// kvSchema is a small protocol of our own (not the shipped one): a request
// with a result holding any JSON value and a notification whose params are
// a tagged union.
const kvSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:example:kv",
  "title": "Key-value store protocol",
  "x-methods": {
    "kv/get": {"kind": "request", "direction": "client-to-server", "params": {"$ref": "#/$defs/GetParams"}, "result": {"$ref": "#/$defs/GetResult"}, "description": "Read one key."},
    "kv/changed": {"kind": "notification", "direction": "server-to-client", "params": {"$ref": "#/$defs/Change"}, "description": "A key was set or deleted."}
  },
  "$defs": {
    "JsonValue": {"description": "Any JSON value.", "anyOf": [{"type": "null"}, {"type": "boolean"}, {"type": "number"}, {"type": "string"},
      {"type": "array", "items": {"$ref": "#/$defs/JsonValue"}}, {"type": "object", "additionalProperties": {"$ref": "#/$defs/JsonValue"}}]},
    "GetParams": {"type": "object", "description": "Which key to read.", "properties": {"key": {"type": "string", "minLength": 1, "description": "The key."}}, "required": ["key"], "additionalProperties": false},
    "GetResult": {"type": "object", "description": "The key's value.", "properties": {
      "value": {"$ref": "#/$defs/JsonValue", "description": "The stored value (absent: no such key)."},
      "version": {"type": "integer", "minimum": 0, "description": "Write count of the key."}}, "required": ["version"]},
    "Change": {"description": "One change, by operation.", "oneOf": [{"$ref": "#/$defs/SetChange"}, {"$ref": "#/$defs/DeleteChange"}], "discriminator": {"propertyName": "op"}},
    "SetChange": {"type": "object", "description": "A key was set.", "properties": {"op": {"const": "set", "description": "Tag."}, "key": {"type": "string", "description": "The key."},
      "value": {"$ref": "#/$defs/JsonValue", "description": "New value."}}, "required": ["op", "key", "value"]},
    "DeleteChange": {"type": "object", "description": "A key was deleted.", "properties": {"op": {"const": "delete", "description": "Tag."}, "key": {"type": "string", "description": "The key."}}, "required": ["op", "key"]}
  }
}
`

// TestConformanceOutsideRepository: the built binary, run in a directory
// holding nothing but a user's schema, generates that schema's bindings,
// round-trips its vectors through every language and checks its invalid
// vectors; the same for the shipped schema; and a capture of the user's
// protocol is checked too (a frame that is not valid is named with why);
// and the MCP subset of testdata/second-protocol.
func TestConformanceOutsideRepository(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	langs := langsHere(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kv.schema.json"), []byte(kvSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runDshgenEnv(t, dir, nil, "conformance", "--schema", "kv.schema.json", "--package", "kvproto", "--lang", strings.Join(langs, ","))
	if code != 0 || !strings.Contains(stdout, "1 file, 8 frames, 8 valid; "+perLang(langs, 8)+" invalid vectors caught: 17/17") {
		t.Fatalf("kv schema: exit %d\n%s%s", code, stdout, stderr)
	}
	capture := "C->S\t0.000\t" + `{"jsonrpc":"2.0","id":1,"method":"kv/get","params":{"key":"k"}}` + "\n" +
		"S->C\t1.000\t" + `{"jsonrpc":"2.0","id":1,"result":{"version":3,"value":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}}` + "\n" +
		"S->C\t2.000\t" + `{"jsonrpc":"2.0","method":"kv/changed","params":{"op":"set","key":"é\ud83d\ude00","value":[1,2.5,"x"]}}` + "\n" +
		"S->C\t3.000\t" + `{"jsonrpc":"2.0","method":"kv/changed","params":{"op":"rename","key":"k","to":"j"}}` + "\n"
	os.WriteFile(filepath.Join(dir, "session.log"), []byte(capture), 0o644)
	code, stdout, stderr = runDshgenEnv(t, dir, nil, "conformance", "--schema", "kv.schema.json", "--package", "kvproto", "--lang", strings.Join(langs, ","), "session.log")
	if code != 0 || !strings.Contains(stdout, "1 file, 4 frames, 3 valid; "+perLang(langs, 3)) ||
		!strings.Contains(stdout, `session.log:4: not checked (not a valid frame): union.unknown-tag: unknown Change op "rename"`) {
		t.Fatalf("kv capture: exit %d\n%s%s", code, stdout, stderr)
	}
	// Outside a checkout the shared fixtures are found only through
	// DSHGEN_SHARED; without it the shipped schema's vectors alone.
	code, stdout, stderr = runDshgenEnv(t, dir, []string{"DSHGEN_SHARED="}, "conformance", "--lang", "go")
	if code != 0 || !strings.Contains(stdout, "1 file, 245 frames, 245 valid; round-tripped: go 245/245; invalid vectors caught: 29/29") {
		t.Fatalf("shipped schema without the shared fixtures: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runDshgenEnv(t, dir, []string{"DSHGEN_SHARED=" + corpus.SharedDir()}, "conformance", "--lang", strings.Join(langs, ","))
	if code != 0 || !strings.Contains(stdout, perLang(langs, 919)+" invalid vectors caught: 29/29") {
		t.Fatalf("shipped schema: exit %d\n%s%s", code, stdout, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("conformance left files in the working directory: %v", entries)
	}
	// A larger protocol: the MCP subset, whose root URIs carry a pattern
	// without examples.
	mcp, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "second-protocol", "mcp.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "mcp.schema.json"), mcp, 0o644)
	code, stdout, stderr = runDshgenEnv(t, dir, nil, "conformance", "--schema", "mcp.schema.json", "--package", "mcpproto", "--lang", strings.Join(langs, ","))
	if code != 0 || !strings.Contains(stdout, "1 file, 148 frames, 148 valid; "+perLang(langs, 148)+" invalid vectors caught: 40/40") {
		t.Fatalf("MCP subset: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConformanceNoTypeScript: without TypeScript the TypeScript driver is
// a setup error that says how to get it.
func TestConformanceNoTypeScript(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	code, stdout, stderr := runDshgenEnv(t, t.TempDir(), []string{"DSHGEN_TYPESCRIPT="}, "conformance", "--lang", "ts")
	if code != 2 || !strings.Contains(stderr, "ts driver: did not start") || !strings.Contains(stderr, "npm install typescript") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConformanceTypeScriptInPackage: with --out DIR and no
// DSHGEN_TYPESCRIPT, the typescript package that npm install put into the
// generated package (DIR/ts/node_modules) is found from a working
// directory that has none; without it the error names both places
// searched.
func TestConformanceTypeScriptInPackage(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	if !haveLang(t, "ts") {
		t.Skip("node or TypeScript (npm ci in testdata/ts) missing")
	}
	dir, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "kv.schema.json"), []byte(kvSchema), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runDshgen(t, dir, "generate", "--schema", "kv.schema.json", "--out", out, "--package", "kvproto", "--lang", "ts"); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	run := func() (int, string, string) {
		return runDshgenEnv(t, work, []string{"DSHGEN_TYPESCRIPT="}, "conformance", "--schema", filepath.Join(dir, "kv.schema.json"), "--package", "kvproto", "--out", out, "--lang", "ts")
	}
	code, stdout, stderr := run()
	if code != 2 || !strings.Contains(stderr, "searched from "+work+" and from "+filepath.Join(out, "ts")) {
		t.Fatalf("without TypeScript anywhere: exit %d\n%s%s", code, stdout, stderr)
	}
	nm := filepath.Join(out, "ts", "node_modules")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repoRoot(t), repoTypeScript), filepath.Join(nm, "typescript")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run()
	if code != 0 || !strings.Contains(stdout, "round-tripped: ts 8/8; invalid vectors caught: 17/17") {
		t.Fatalf("with TypeScript in %s: exit %d\n%s%s", nm, code, stdout, stderr)
	}
}

// TestConformanceRevision021: the committed 0.2.1 bindings (out/0.2.1)
// round-trip, in every language that can run here, the 0.2.1 vectors, the
// PyPI reference captures (testdata/pypi/captures) and the schema's
// evidence captures; the validator catches every invalid vector.
func TestConformanceRevision021(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	langs := []string{"go"}
	for _, l := range []string{"python", "ts"} {
		if haveLang(t, l) {
			langs = append(langs, l)
		}
	}
	code, stdout, stderr := runDshgenEnv(t, repoRoot(t), nil, "conformance", "--revision", "0.2.1", "--out", "out/0.2.1", "--lang", strings.Join(langs, ","))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var per []string
	for _, l := range langs {
		per = append(per, l+" 1582/1582")
	}
	want := "36 files, 1595 frames, 1582 valid; round-tripped: " + strings.Join(per, ", ") + "; invalid vectors caught: 37/37"
	if !strings.Contains(stdout, want) {
		t.Errorf("want %q in:\n%s", want, stdout)
	}
}

// TestConformanceTypeInstances: --type round-trips MCP's official examples
// (instances of one $defs type each, pretty-printed JSON) through every
// language's bindings generated into a scratch directory: an object type, a
// map of a union (the Go bindings' own decoder) and, for ImageContent, an
// instance of another type, which the validator rejects and the run lists
// as not checked; bindings that lose a member are caught; an unknown type
// is a usage error.
func TestConformanceTypeInstances(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	mcp := filepath.Join(repoRoot(t), "..", "shared", "protocols", "mcp", "2026-07-28")
	if _, err := os.Stat(filepath.Join(mcp, "schema.json")); err != nil {
		t.Skipf("the published MCP schema is not here: %v", err)
	}
	langs := langsHere(t)
	examples := func(typ string) []string {
		files, err := filepath.Glob(filepath.Join(mcp, "examples", typ, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no examples of %s: %v", typ, err)
		}
		return files
	}
	run := func(typ string, files ...string) (int, string, string) {
		args := []string{"conformance", "--schema", filepath.Join(mcp, "schema.json"), "--package", "mcp", "--lang", strings.Join(langs, ","), "--type", typ}
		return runDshgenEnv(t, repoRoot(t), nil, append(args, files...)...)
	}
	for _, tc := range []struct {
		typ string
		n   int
	}{{"CallToolResult", 4}, {"InputRequests", 1}} {
		code, stdout, stderr := run(tc.typ, examples(tc.typ)...)
		want := fmt.Sprintf("%d valid; %s", tc.n, perLang(langs, tc.n))
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--type %s: exit %d, want 0 and %q\n%s%s", tc.typ, code, want, stdout, stderr)
		}
	}

	wrong := examples("TextContent")[0]
	code, stdout, stderr := run("ImageContent", append(examples("ImageContent"), wrong)...)
	if code != 0 || !strings.Contains(stdout, "2 frames, 1 valid; "+perLang(langs, 1)) ||
		!strings.Contains(stdout, wrong+":1: not checked (not a valid frame): ") {
		t.Errorf("--type ImageContent with a TextContent: exit %d\n%s%s", code, stdout, stderr)
	}

	// A binding that loses a member of the type is caught (exit 1, with the
	// language and the JSON pointer): bindings generated with --out, the
	// Python ImageContent.to_json perturbed.
	if haveLang(t, "python") {
		out := t.TempDir()
		if code, _, stderr := runDshgen(t, repoRoot(t), "generate", "--schema", filepath.Join(mcp, "schema.json"), "--package", "mcp", "--lang", "python", "--out", out); code != 0 {
			t.Fatalf("generate: %s", stderr)
		}
		types := filepath.Join(out, "python", "mcp", "types.py")
		src, err := os.ReadFile(types)
		if err != nil {
			t.Fatal(err)
		}
		drop := "        d[\"mimeType\"] = self.mime_type\n        d[\"type\"] = \"image\"\n"
		if strings.Count(string(src), drop) != 1 {
			t.Fatalf("the generated Python changed shape; update the perturbation")
		}
		os.WriteFile(types, []byte(strings.Replace(string(src), drop, "        d[\"type\"] = \"image\"\n", 1)), 0o644)
		code, stdout, stderr := runDshgenEnv(t, repoRoot(t), nil, append([]string{"conformance", "--schema", filepath.Join(mcp, "schema.json"), "--package", "mcp", "--lang", "python", "--out", out, "--type", "ImageContent"}, examples("ImageContent")...)...)
		want := "python: re-encodes differently: member missing in the second value at /mimeType"
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("perturbed Python bindings: exit %d, want 1 and %q\n%s%s", code, want, stdout, stderr)
		}
	}

	code, _, stderr = run("NoSuchType", wrong)
	if code != 2 || !strings.Contains(stderr, "--type NoSuchType: the schema has no $defs/NoSuchType") {
		t.Errorf("unknown type: exit %d, want 2\n%s", code, stderr)
	}
}

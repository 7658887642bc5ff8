package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The frame suites of testdata/protocols/<p>/frames (written from each
// protocol's specification, checked independently by check_frames.py)
// through `dshgen validate` on the unmodified published schemas, with the
// method tables dshgen infers (gen/ir/METHODS.md) and only the overlay
// each protocol needs (testdata/protocols/<p>/overlay.json: the
// initialize-first rule set).

// protocolSuite is one published protocol and its frame suite.
type protocolSuite struct {
	name, schema string
}

var protocolSuites = []protocolSuite{
	{"mcp-2025-11-25", "mcp/2025-11-25/schema.json"},
	{"mcp-2026-07-28", "mcp/2026-07-28/schema.json"},
	{"acp", "acp/schema.json"},
}

// publishedSchema is a published schema under ../shared/protocols; the
// suites cannot run without it, so its absence fails.
func publishedSchema(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(repoRoot(t), "..", "shared", "protocols", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("published schema: %v", err)
	}
	return p
}

// suiteArgs are the schema flags of a suite: --schema and the suite's
// overlay when it has one.
func suiteArgs(t *testing.T, s protocolSuite) []string {
	args := []string{"--schema", publishedSchema(t, s.schema)}
	ov := filepath.Join(repoRoot(t), "testdata", "protocols", s.name, "overlay.json")
	if _, err := os.Stat(ov); err == nil {
		args = append(args, "--overlay", ov)
	}
	return args
}

type jsonFinding struct {
	Line     int    `json:"line"`
	Rule     string `json:"rule"`
	Pointer  string `json:"pointer"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

type jsonReport struct {
	Streams []struct {
		Name     string        `json:"name"`
		Findings []jsonFinding `json:"findings"`
		Frames   int           `json:"frames"`
	} `json:"streams"`
}

// validateFiles runs dshgen validate --format json over files and returns
// the findings by file base name and the frame count.
func validateFiles(t *testing.T, args []string, files []string) (map[string][]jsonFinding, int) {
	t.Helper()
	code, out, stderr := runValidate(t, nil, append(append(append([]string{}, args...), "--format", "json"), files...)...)
	if code == 2 {
		t.Fatalf("exit 2: %s", stderr)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	got := map[string][]jsonFinding{}
	frames := 0
	for _, s := range rep.Streams {
		got[filepath.Base(s.Name)] = s.Findings
		frames += s.Frames
	}
	if len(rep.Streams) != len(files) {
		t.Fatalf("%d streams for %d files", len(rep.Streams), len(files))
	}
	return got, frames
}

// knownGaps are invalid frames whose expected finding dshgen does not give
// yet: file → the finding it gives today (rule and pointer). The test fails
// when a gap closes, so the entry must then be removed. None today (the
// last, MCP 2026-07-28's 17-input-request-unknown-method.log, is caught as
// union.unknown-tag since the validator explains the only branch of a
// failed union that the value fits: gen/wire/validate/RULES.md).
var knownGaps = map[string]jsonFinding{}

// TestProtocolFrameSuites: every valid frame of the MCP 2025-11-25, MCP
// 2026-07-28 and ACP suites validates without a finding; every invalid
// file gives exactly the findings its expected.json entry lists (line,
// rule, pointer prefix) and none elsewhere. request.unanswered (info) is
// not counted in invalid files: their bad requests are left unanswered on
// purpose (frames/invalid in each suite's README).
func TestProtocolFrameSuites(t *testing.T) {
	for _, s := range protocolSuites {
		t.Run(s.name, func(t *testing.T) {
			dir := filepath.Join(repoRoot(t), "testdata", "protocols", s.name, "frames")
			args := suiteArgs(t, s)
			valid, _ := filepath.Glob(filepath.Join(dir, "valid", "*.log"))
			invalid, _ := filepath.Glob(filepath.Join(dir, "invalid", "*.log"))
			if len(valid) == 0 || len(invalid) < 10 {
				t.Fatalf("%d valid and %d invalid files", len(valid), len(invalid))
			}
			got, frames := validateFiles(t, args, valid)
			for f, fs := range got {
				for _, x := range fs {
					t.Errorf("valid/%s:%d: %s %s: %s", f, x.Line, x.Rule, x.Pointer, x.Message)
				}
			}
			raw, err := os.ReadFile(filepath.Join(dir, "invalid", "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			var expected map[string]struct {
				Findings []jsonFinding `json:"findings"`
			}
			if err := json.Unmarshal(raw, &expected); err != nil {
				t.Fatal(err)
			}
			got, _ = validateFiles(t, args, invalid)
			caught, gaps := 0, 0
			for f, fs := range got {
				exp, ok := expected[f]
				if !ok {
					t.Errorf("invalid/%s has no expected.json entry", f)
					continue
				}
				delete(expected, f)
				var kept []jsonFinding
				for _, x := range fs {
					if x.Rule != "request.unanswered" {
						kept = append(kept, x)
					}
				}
				want := exp.Findings
				if g, ok := knownGaps[s.name+"/"+f]; ok {
					if matches(kept, want) {
						t.Errorf("invalid/%s: caught as expected.json says: remove it from knownGaps", f)
					}
					want = []jsonFinding{g}
					gaps++
				}
				if !matches(kept, want) {
					t.Errorf("invalid/%s: got %s, want %s", f, show(kept), show(want))
					continue
				}
				if want[0] == exp.Findings[0] || len(want) != 1 {
					caught++
				}
			}
			for f := range expected {
				t.Errorf("expected.json lists %s, which is not in invalid/", f)
			}
			t.Logf("%s: %d valid frames in %d files clean; %d/%d invalid files caught by the rule expected.json names, %d known gap(s)", s.name, frames, len(valid), caught, len(invalid), gaps)
		})
	}
}

// matches reports whether got is exactly want: same lines and rules, each
// pointer starting with the wanted pointer at a token boundary.
func matches(got, want []jsonFinding) bool {
	if len(got) != len(want) {
		return false
	}
	key := func(f jsonFinding) string { return strings.Join([]string{itoa(f.Line), f.Rule}, " ") }
	sort.SliceStable(got, func(i, j int) bool { return key(got[i]) < key(got[j]) })
	sort.SliceStable(want, func(i, j int) bool { return key(want[i]) < key(want[j]) })
	for i := range got {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.Rule != w.Rule {
			return false
		}
		if g.Pointer != w.Pointer && !strings.HasPrefix(g.Pointer, w.Pointer+"/") {
			return false
		}
	}
	return true
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func show(fs []jsonFinding) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, itoa(f.Line)+" "+f.Rule+" "+f.Pointer)
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// TestValidateTypeInstalled: `dshgen validate --type`, from a binary
// installed with go install into a scratch GOBIN and run from a scratch
// directory outside the repository, validates each of the 129 official MCP
// 2026-07-28 examples (pretty-printed JSON documents, one per file, named
// by their folder's type) as its type; a document with a wrong member
// gives a finding at that member's line and pointer; NDJSON holds one
// instance per line.
func TestValidateTypeInstalled(t *testing.T) {
	gobin := t.TempDir()
	install := exec.Command("go", "install", "./cmd/dshgen")
	install.Dir = repoRoot(t)
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "dshgen")
	work := t.TempDir()
	schemaPath := publishedSchema(t, "mcp/2026-07-28/schema.json")
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, append([]string{"validate", "--schema", schemaPath}, args...)...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	examples := filepath.Join(filepath.Dir(schemaPath), "examples")
	dirs, err := os.ReadDir(examples)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(examples, d.Name(), "*.json"))
		n += len(files)
		if code, out := run(append([]string{"--type", d.Name()}, files...)...); code != 0 {
			t.Errorf("%s: exit %d\n%s", d.Name(), code, out)
		}
	}
	if n != 129 {
		t.Errorf("%d examples, want 129", n)
	}
	// A pretty-printed document with one bad member: the finding is at
	// the member's own line.
	doc := filepath.Join(work, "bad.json")
	if err := os.WriteFile(doc, []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/call\",\n  \"params\": {\n    \"_meta\": {\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\", \"io.modelcontextprotocol/clientCapabilities\": {}},\n    \"name\": 7\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run("--type", "CallToolRequest", doc)
	if code != 1 || !strings.Contains(out, "bad.json:7: error value.schema: /params/name: ") {
		t.Errorf("bad document: exit %d\n%s", code, out)
	}
	// NDJSON: one instance per line, each finding at its line.
	nd := filepath.Join(work, "roots.ndjson")
	if err := os.WriteFile(nd, []byte("{\"uri\": \"file:///a\"}\n{\"name\": \"no uri\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = run("--type", "Root", nd)
	if code != 1 || !strings.Contains(out, "roots.ndjson:2: error value.schema: ") || strings.Contains(out, "roots.ndjson:1:") {
		t.Errorf("NDJSON: exit %d\n%s", code, out)
	}
}

// TestProtocolSuitesRoundTripGo: the valid frames of the three suites
// round-trip through the Go bindings generated from each published schema
// (dshgen conformance --lang go). ACP's two extension-method frames are
// not held to it (no binding types them); MCP 2025-11-25's two
// task-augmented results (CreateTaskResult, a result alternative) decode
// as the method's result union (ir.Method.ResultUnion).
func TestProtocolSuitesRoundTripGo(t *testing.T) {
	cases := []struct {
		suite protocolSuite
		sum   string
		fails []string
	}{
		{protocolSuites[0], "82 frames, 82 valid; round-tripped: go 82/82", nil},
		{protocolSuites[1], "57 frames, 57 valid; round-tripped: go 57/57", nil},
		{protocolSuites[2], "69 frames, 67 valid; round-tripped: go 67/67", nil},
	}
	for _, c := range cases {
		t.Run(c.suite.name, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "protocols", c.suite.name, "frames", "valid", "*.log"))
			args := append([]string{"conformance", "--lang", "go", "--package", "p"}, suiteArgs(t, c.suite)...)
			_, stdout, stderr := runDshgen(t, repoRoot(t), append(args, files...)...)
			if !strings.Contains(stdout, c.sum) {
				t.Errorf("want %q\n%s%s", c.sum, stdout, stderr)
			}
			// The published schemas' methods are inferred: no warning.
			if strings.Contains(stderr, "warning:") {
				t.Errorf("a warning for a published schema:\n%s", stderr)
			}
			for _, f := range c.fails {
				if !strings.Contains(stdout, f) {
					t.Errorf("want the known failure %q\n%s", f, stdout)
				}
			}
		})
	}
}

// TestOverlayContradictsMetaJSON: an overlay whose x-methods entry gives
// an ACP method (typed by meta.json + x-method) another result: exit 2,
// the overlay file, line and pointer and the fix, nothing written.
func TestOverlayContradictsMetaJSON(t *testing.T) {
	dir := t.TempDir()
	ov := filepath.Join(dir, "acp.overlay.json")
	if err := os.WriteFile(ov, []byte(`{"overlay": {"#": {"x-methods": {
  "session/prompt": {"kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/PromptRequest"},
    "result": {"$ref": "#/$defs/NewSessionResponse"}}
}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runDshgen(t, repoRoot(t), "generate", "--schema", publishedSchema(t, "acp/schema.json"), "--overlay", ov, "--out", out)
	if code != 2 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{ov + ":4: /overlay/#/x-methods/session~1prompt/result/$ref: ", `method "session/prompt"`, "#/$defs/PromptResponse", `fix: remove this x-methods entry, or set "result": {"$ref": "#/$defs/PromptResponse"}`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written (%v)", out, err)
	}
}

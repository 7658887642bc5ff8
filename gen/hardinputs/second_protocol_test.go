package hardinputs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// The second protocol (testdata/second-protocol): a subset of the Model
// Context Protocol in dshgen's schema format, with frames written from the
// MCP specification. Nothing of the tool may depend on the shipped DeepSeek
// Harness schema, so the same commands must work on it unchanged.

func mcpDir() string { return filepath.Join(root, "testdata", "second-protocol") }

func mcpSchema() string { return filepath.Join(mcpDir(), "mcp.schema.json") }

// mcpMethods lists the methods the schema must describe (both directions).
var mcpMethods = []string{
	"initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read", "prompts/list",
	"prompts/get", "logging/setLevel", "sampling/createMessage", "roots/list", "notifications/initialized",
	"notifications/progress", "notifications/message", "notifications/tools/list_changed", "notifications/cancelled",
}

// dshSpecific matches names that belong to the DeepSeek Harness protocol
// and must not appear in bindings generated from another schema.
var dshSpecific = regexp.MustCompile(`(?i)harness|deepseek|@deepseek-ai|dsh-sdk|session[./]|sessionId|SessionEvent|dshproto`)

// TestSecondProtocolGenerates generates Go, Python and TypeScript from the
// MCP schema (package "mcp"), compiles each, and checks that every method
// is in each language's method table and that nothing of the shipped
// protocol leaked into the output. It runs beside the hostile cases.
func TestSecondProtocolGenerates(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	r, pyErr := generate(t, guard, mcpSchema(), out, 2*time.Minute, "--package", "mcp")
	if r.code != 0 {
		t.Fatalf("dshgen generate: exit %d\n%s", r.code, clip(r.stderr))
	}
	if pyErr != nil {
		t.Errorf("python: %v", pyErr)
	}
	for _, l := range checkedLangs() {
		t.Run(l, func(t *testing.T) {
			compile(t, l, out, nil)
			methodsFile := map[string]string{"go": "go/mcp/methods.go", "python": "python/mcp/methods.py", "ts": "ts/src/methods.ts"}[l]
			src, err := os.ReadFile(filepath.Join(out, methodsFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mcpMethods {
				if !strings.Contains(string(src), `"`+m+`"`) {
					t.Errorf("%s does not name method %q", methodsFile, m)
				}
			}
		})
	}
	for _, f := range listFiles(out) {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := dshSpecific.FindString(line); m != "" {
				t.Errorf("%s:%d: %q from the shipped DeepSeek Harness protocol in bindings generated from the MCP schema: %s", f, i+1, m, strings.TrimSpace(line))
			}
		}
	}
}

// finding is the part of a validator finding the expectations name.
type finding struct {
	Line     int    `json:"line"`
	Rule     string `json:"rule"`
	Pointer  string `json:"pointer"`
	Severity string `json:"severity,omitempty"`
	Message  string `json:"message,omitempty"`
}

func (f finding) key() string {
	return fmt.Sprintf("%d %s %s %s", f.Line, f.Severity, f.Rule, f.Pointer)
}

// validateFile runs `dshgen validate --schema mcp --direction both
// --format json FILE` and returns the exit code and the findings that are
// errors or warnings.
func validateFile(t *testing.T, file string) (int, []finding) {
	t.Helper()
	r := runCmd(root, guard.proxyEnv(), time.Minute, dshgen, "validate", "--schema", mcpSchema(), "--direction", "both", "--format", "json", file)
	if r.timedOut || (r.code != 0 && r.code != 1) {
		t.Fatalf("dshgen validate %s: exit %d\n%s%s", file, r.code, clip(r.stdout), clip(r.stderr))
	}
	var rep struct {
		Streams []struct {
			Findings []finding `json:"findings"`
		} `json:"streams"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("dshgen validate --format json: %v\n%s", err, clip(r.stdout))
	}
	var out []finding
	for _, s := range rep.Streams {
		for _, f := range s.Findings {
			if f.Severity != "info" {
				out = append(out, f)
			}
		}
	}
	return r.code, out
}

// TestSecondProtocolValidFrames: a whole MCP session (every method, both
// directions, every content block and resource contents shape) and the
// other valid-*.jsonl files give no error and no warning.
func TestSecondProtocolValidFrames(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(mcpDir(), "valid*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no valid*.jsonl")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, fs := validateFile(t, f)
			for _, x := range fs {
				t.Errorf("line %d: %s %s: %s: %s", x.Line, x.Severity, x.Rule, x.Pointer, x.Message)
			}
			if code != 0 && len(fs) == 0 {
				t.Errorf("exit %d without findings", code)
			}
		})
	}
}

// TestSecondProtocolInvalidFrames: each invalid/<case> gives exactly the
// findings (line, severity, rule, pointer; infos aside) invalid/expected.json
// lists, and exits 1 when one of them is an error (0 for warnings only).
func TestSecondProtocolInvalidFrames(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(mcpDir(), "invalid", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]finding
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(mcpDir(), "invalid", "*.*"))
	seen := 0
	for _, f := range files {
		name := filepath.Base(f)
		if name == "expected.json" {
			continue
		}
		seen++
		t.Run(name, func(t *testing.T) {
			exp, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s in invalid/expected.json", name)
			}
			code, got := validateFile(t, f)
			wantCode := 0
			for _, x := range exp {
				if x.Severity == "error" {
					wantCode = 1
				}
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			var g, w []string
			for _, x := range got {
				g = append(g, x.key())
			}
			for _, x := range exp {
				w = append(w, x.key())
			}
			sort.Strings(g)
			sort.Strings(w)
			if strings.Join(g, "\n") != strings.Join(w, "\n") {
				t.Errorf("findings (line severity rule pointer):\n got  %q\n want %q\nall: %+v", g, w, got)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("invalid/expected.json lists %d cases, invalid/ holds %d", len(want), seen)
	}
}

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runValidate runs the built dshgen with stdin and returns exit code, stdout, stderr.
func runValidate(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(dshgenBin, append([]string{"validate"}, args...)...)
	cmd.Dir = repoRoot(t)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func sharedPath(t *testing.T, parts ...string) string {
	p := filepath.Join(append([]string{repoRoot(t), "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", p, err)
	}
	return p
}

func validateCase(t *testing.T, name string) string {
	return filepath.Join(repoRoot(t), "testdata", "validate", "cases", name)
}

func TestValidateCLIRealCaptures(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(sharedPath(t, "fixtures", "real-captures"), "*", "interleaved.log"))
	var clean []string
	for _, l := range logs {
		if !strings.Contains(l, "malformed-lines") {
			clean = append(clean, l)
		}
	}
	// The deliberate negative tests (invalid maxTokens, unknown methods)
	// are findings whatever the runtime answered: 4 params errors, 2
	// unknown-method warnings, the answer in the message.
	code, out, errOut := runValidate(t, nil, clean...)
	if code != 1 || !strings.Contains(out, "dshgen validate: 7 streams, 250 frames: 4 errors, 2 warnings, 0 info; checked against revision 0.0.1") ||
		!strings.Contains(out, "(the peer answered with error -32603 at line 2)") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// The committed baseline accepts exactly those: clean, exit 0.
	bl := filepath.Join(repoRoot(t), "testdata", "baselines", "real-captures-0.0.1.jsonl")
	code, out, errOut = runValidate(t, nil, append([]string{"--baseline", bl}, clean...)...)
	if code != 0 || !strings.Contains(out, "0 errors, 0 warnings, 0 info (+6 baselined)") || strings.Count(out, ": baselined ") != 6 {
		t.Errorf("baseline: exit %d\n%s%s", code, out, errOut)
	}
	// stdin gives the same as the file.
	data, _ := os.ReadFile(filepath.Join(filepath.Dir(clean[0]), "interleaved.log"))
	code, out, _ = runValidate(t, data)
	if code != 0 || !strings.Contains(out, "1 stream,") {
		t.Errorf("stdin: exit %d\n%s", code, out)
	}
	code, out, _ = runValidate(t, nil, sharedPath(t, "fixtures", "real-captures", "malformed-lines", "interleaved.log"))
	if code != 1 || strings.Count(out, ": error ") != 9 || strings.Count(out, ": warning frame.blank") != 2 {
		t.Errorf("malformed-lines: exit %d\n%s", code, out)
	}
}

func TestValidateCLICase18(t *testing.T) {
	dir := validateCase(t, "18-oneof-error-noise")
	code, out, _ := runValidate(t, nil, "--schema", filepath.Join(dir, "schema.json"), filepath.Join(dir, "frames.jsonl"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 7 {
		t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), out)
	}
	for i, ln := range []string{"2", "3", "4", "5", "6", "7"} {
		if !strings.Contains(lines[i], "frames.jsonl:"+ln+": error ") {
			t.Errorf("line %d: %s", i, lines[i])
		}
	}
	if !strings.Contains(lines[0], "/params/event/data/turn: expected integer, but got string") ||
		!strings.Contains(lines[0], "type=turn/end") || !strings.Contains(lines[0], "#/$defs/TurnEndEvent/properties/data/properties/turn/type") {
		t.Errorf("line 2 finding: %s", lines[0])
	}
	if !strings.HasPrefix(lines[6], "dshgen validate: 1 stream, 8 frames: 6 errors, 0 warnings, 0 info; checked against ") || !strings.HasSuffix(lines[6], "schema.json") {
		t.Errorf("summary: %s", lines[6])
	}
}

func TestValidateCLIFormats(t *testing.T) {
	dir := validateCase(t, "15-crlf-bom-final-newline")
	args := []string{"--schema", filepath.Join(dir, "schema.json"), filepath.Join(dir, "frames-bom.jsonl")}

	code, out, _ := runValidate(t, nil, append([]string{"--format", "json"}, args...)...)
	var rep struct {
		Streams []struct {
			Name     string
			Frames   int
			Findings []struct {
				Line     int
				Offset   int64
				Rule     string
				Severity string
				Pointer  string
				Method   string
			}
		}
		Summary struct{ Errors, Warnings, Frames int }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	if rep.Summary.Errors != 1 || rep.Summary.Warnings != 1 || rep.Summary.Frames != 3 || len(rep.Streams) != 1 {
		t.Errorf("json summary %+v", rep.Summary)
	}
	if f := rep.Streams[0].Findings; len(f) != 2 || f[0].Rule != "frame.bom" || f[0].Offset != 0 ||
		f[1].Line != 3 || f[1].Pointer != "/params/status" || f[1].Method != "session.status" {
		t.Errorf("json findings %+v", f)
	}

	code, out, _ = runValidate(t, nil, append([]string{"--format", "junit"}, args...)...)
	var ju struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &ju); err != nil || code != 1 {
		t.Fatalf("junit: exit %d, %v\n%s", code, err, out)
	}
	if ju.Tests != 2 || ju.Failures != 1 || ju.Suites[0].Cases[1].Failure == nil || ju.Suites[0].Cases[1].Failure.Type != "params.schema" {
		t.Errorf("junit: %+v\n%s", ju, out)
	}

	code, out, _ = runValidate(t, nil, append([]string{"--format", "github"}, args...)...)
	gl := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(gl) != 3 || !strings.HasPrefix(gl[0], "::warning file=") || !strings.Contains(gl[0], ",line=1,title=frame.bom::") ||
		!strings.HasPrefix(gl[1], "::error file=") || !strings.Contains(gl[1], ",line=3,title=params.schema::/params/status") {
		t.Errorf("github: exit %d\n%s", code, out)
	}
}

func TestValidateCLIOptions(t *testing.T) {
	snaps, _ := filepath.Glob(filepath.Join(sharedPath(t, "fixtures", "upstream-snapshots"), "*", "notifications.expected.jsonl"))
	if code, out, _ := runValidate(t, nil, append([]string{"--snapshot"}, snaps...)...); code != 0 || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Errorf("--snapshot: exit %d\n%s", code, out)
	}
	if code, _, _ := runValidate(t, nil, snaps...); code != 1 {
		t.Errorf("snapshots without --snapshot: exit %d", code)
	}
	dir := validateCase(t, "01-discriminated-oneof-const")
	code, out, _ := runValidate(t, nil, "--schema", filepath.Join(dir, "schema.json"), "--type", "Drawing", filepath.Join(dir, "values.jsonl"))
	if code != 1 || strings.Count(out, ": error ") != 3 {
		t.Errorf("--type: exit %d\n%s", code, out)
	}
	// A one-direction file with the wrong --direction.
	c2s := sharedPath(t, "fixtures", "real-captures", "text-turn", "client-to-server.jsonl")
	if code, out, _ := runValidate(t, nil, "--direction", "server-to-client", c2s); code != 1 || !strings.Contains(out, "method.direction") {
		t.Errorf("--direction: exit %d\n%s", code, out)
	}
	if code, out, _ := runValidate(t, nil, "--direction", "client-to-server", c2s); code != 0 {
		t.Errorf("--direction client-to-server: exit %d\n%s", code, out)
	}
}

func TestValidateCLIUsageErrors(t *testing.T) {
	good := sharedPath(t, "fixtures", "real-captures", "text-turn", "interleaved.log")
	for _, args := range [][]string{
		{"--format", "xml", good},
		{"--prompt-overlap", "sometimes", good},
		{"--direction", "sideways", good},
		{"--max-frame-bytes", "0", good},
		{"--schema", "no/such/schema.json", good},
		{"--type", "NoSuchType", good},
		{filepath.Join(repoRoot(t), "no-such-file.jsonl")},
		{"--no-such-flag"},
	} {
		if code, out, errOut := runValidate(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	// An input that cannot be opened, even after a good one: nothing is
	// printed on stdout (no summary that reads like a verdict), and every
	// missing file is named.
	missing := []string{filepath.Join(repoRoot(t), "no-such-1.jsonl"), filepath.Join(repoRoot(t), "no-such-2.jsonl")}
	code, out, errOut := runValidate(t, nil, good, missing[0], missing[1])
	if code != 2 || out != "" || !strings.Contains(errOut, missing[0]) || !strings.Contains(errOut, missing[1]) {
		t.Errorf("missing inputs: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

func TestValidateCLIMaxFrameBytes(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	tmp := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(validateCase(t, "14-long-frame-lines"), "make.py"))
	os.WriteFile(filepath.Join(tmp, "make.py"), src, 0o644)
	mk := exec.Command(py, "make.py")
	mk.Dir = tmp
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	schemaArg := filepath.Join(validateCase(t, "14-long-frame-lines"), "schema.json")
	frames := filepath.Join(tmp, "frames.jsonl")
	code, out, _ := runValidate(t, nil, "--schema", schemaArg, frames)
	if code != 1 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "frames.jsonl:4: error params.schema: /params/event/seq") {
		t.Errorf("default limit: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(frames)
	code, out, _ = runValidate(t, data, "--schema", schemaArg, "--max-frame-bytes", "1048576")
	if code != 1 || !strings.Contains(out, "<stdin>:3: error frame.too-large: frame of 1126399 bytes exceeds the limit of 1048576") ||
		!strings.Contains(out, "<stdin>:4: error params.schema") || !strings.Contains(out, "5 frames") {
		t.Errorf("1 MiB limit: exit %d\n%s", code, out)
	}
}

// TestValidateCLIBaselineAndRules: a baseline entry that matches nothing
// fails the run as stale; --write-baseline writes one the next run is
// clean with; --rule switches a rule; bad ids are usage errors.
func TestValidateCLIBaselineAndRules(t *testing.T) {
	logs := []string{sharedPath(t, "fixtures", "real-captures", "unknown-method", "interleaved.log")}
	dir := t.TempDir()
	bl := filepath.Join(dir, "b.jsonl")
	code, out, errOut := runValidate(t, nil, append([]string{"--write-baseline", bl}, logs...)...)
	if code != 0 || !strings.Contains(out, "2 warnings") {
		t.Fatalf("write: exit %d\n%s%s", code, out, errOut)
	}
	b, _ := os.ReadFile(bl)
	if strings.Count(string(b), `"rule":"method.unknown"`) != 2 {
		t.Fatalf("baseline written:\n%s", b)
	}
	code, out, errOut = runValidate(t, nil, append([]string{"--baseline", bl}, logs...)...)
	if code != 0 || !strings.Contains(out, "(+2 baselined)") {
		t.Errorf("reuse: exit %d\n%s%s", code, out, errOut)
	}
	stale := string(b) + `{"rule":"params.schema","method":"session/prompt","pointer":"/params/sessionId"}` + "\n"
	os.WriteFile(bl, []byte(stale), 0o644)
	code, out, _ = runValidate(t, nil, append([]string{"--baseline", bl}, logs...)...)
	if code != 1 || !strings.Contains(out, "error baseline.stale: entry {\"rule\":\"params.schema\",\"method\":\"session/prompt\",\"pointer\":\"/params/sessionId\"} matched no finding") ||
		!strings.Contains(out, "b.jsonl:5:") {
		t.Errorf("stale: exit %d\n%s", code, out)
	}
	code, out, _ = runValidate(t, nil, append([]string{"--rule", "method.unknown=error"}, logs...)...)
	if code != 1 || strings.Count(out, ": error method.unknown") != 2 {
		t.Errorf("--rule error: exit %d\n%s", code, out)
	}
	code, out, _ = runValidate(t, nil, append([]string{"--rule", "method.unknown=off"}, logs...)...)
	if code != 0 || strings.Contains(out, "method.unknown") {
		t.Errorf("--rule off: exit %d\n%s", code, out)
	}
	code, _, errOut = runValidate(t, nil, append([]string{"--rule", "no.such-rule=off"}, logs...)...)
	if code != 2 || !strings.Contains(errOut, `unknown rule id "no.such-rule" (known: input.read,`) || !strings.Contains(errOut, "state.prompt-overlap") {
		t.Errorf("--rule unknown id: exit %d\n%s", code, errOut)
	}
	os.WriteFile(bl, []byte(`{"rule":"nope","pointer":""}`+"\n"), 0o644)
	code, _, errOut = runValidate(t, nil, append([]string{"--baseline", bl}, logs...)...)
	if code != 2 || !strings.Contains(errOut, "b.jsonl:1: unknown rule id \"nope\"") {
		t.Errorf("bad baseline: exit %d\n%s", code, errOut)
	}
}

// TestValidateCLIRevisions: --revision picks the schema, the summary says
// which; an unknown revision and --schema with --revision are usage
// errors; 0.2.1 traffic checked against 0.0.1 (and 0.0.1 traffic against
// 0.2.1) names the revision difference in every finding.
func TestValidateCLIRevisions(t *testing.T) {
	root := repoRoot(t)
	pypi, _ := filepath.Glob(filepath.Join(root, "testdata", "pypi", "captures", "*", "*.log.gz"))
	if len(pypi) == 0 {
		t.Fatal("no PyPI reference captures")
	}
	code, _, errOut := runValidate(t, nil, "--revision", "9.9", "x")
	if code != 2 || !strings.Contains(errOut, `unknown revision "9.9" (known: 0.0.1, 0.2.1)`) {
		t.Errorf("9.9: exit %d %s", code, errOut)
	}
	code, _, errOut = runValidate(t, nil, "--revision", "0.2.1", "--schema", "x.json", "x")
	if code != 2 || !strings.Contains(errOut, "--schema and --revision") {
		t.Errorf("both: exit %d %s", code, errOut)
	}
	// Under its own revision: clean but for the scenarios' deliberate
	// negative tests, which the committed baseline accepts (overlapping
	// prompts included: 0.2.1 turns state.prompt-overlap off).
	args := []string{"--revision", "0.2.1", "--format", "json", "--baseline", filepath.Join(root, "testdata", "baselines", "pypi-0.2.1.jsonl")}
	var tmp []string
	for _, p := range pypi {
		f := filepath.Join(t.TempDir(), filepath.Base(filepath.Dir(p))+"-"+strings.TrimSuffix(filepath.Base(p), ".gz"))
		os.WriteFile(f, gunzip(t, p), 0o644)
		tmp = append(tmp, f)
	}
	code, out, _ := runValidate(t, nil, append(args, tmp...)...)
	if code != 0 || !strings.Contains(out, `"revision": "0.2.1"`) || !strings.Contains(out, `"errors": 0`) || !strings.Contains(out, `"warnings": 0`) || !strings.Contains(out, `"baselined": 2`) {
		t.Errorf("PyPI captures under 0.2.1: exit %d\n%s", code, out)
	}
	for _, p := range pypi {
		data := gunzip(t, p)
		// Under 0.0.1: every finding says what 0.2.1 has.
		_, out, _ = runValidate(t, data)
		for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.HasPrefix(ln, "dshgen validate:") {
				if !strings.Contains(ln, "checked against revision 0.0.1") {
					t.Errorf("%s: summary %s", p, ln)
				}
				continue
			}
			if !strings.Contains(ln, "revision 0.2.1") && !strings.Contains(ln, "session/frobnicate") {
				t.Errorf("%s under 0.0.1: finding without a revision hint: %s", p, ln)
			}
		}
	}
	logs, _ := filepath.Glob(filepath.Join(sharedPath(t, "fixtures", "real-captures"), "*", "interleaved.log"))
	for _, l := range logs {
		if strings.Contains(l, "malformed-lines") || strings.Contains(l, "invalid-max-tokens") || strings.Contains(l, "unknown-method") {
			continue
		}
		_, out, _ := runValidate(t, nil, "--revision", "0.2.1", l)
		n := 0
		for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.HasPrefix(ln, "dshgen validate:") {
				continue
			}
			n++
			if !strings.Contains(ln, "revision 0.0.1") {
				t.Errorf("%s under 0.2.1: finding without a revision hint: %s", l, ln)
			}
		}
		if n == 0 {
			t.Errorf("%s under 0.2.1: no findings (0.0.1 traffic differs from 0.2.1)", l)
		}
	}
}

func gunzip(t *testing.T, p string) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

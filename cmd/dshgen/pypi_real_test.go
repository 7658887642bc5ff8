package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/wire/tap/taptest"
)

// The live test of the published Python SDK and runtime (testdata/pypi,
// README there). -update rewrites testdata/pypi/expected/*.json (the
// normalized SDK outcomes) and testdata/pypi/captures/ from a live run.
var updatePyPI = flag.Bool("update", false, "rewrite testdata/pypi/expected and testdata/pypi/captures from a live run of TestPyPIRuntime")

// pypiExpectedFindings are the frames the scenarios send wrong on purpose:
// the only findings a complete schema of the PyPI revision may report. Each
// must occur (a stale entry fails the test). The runtime rejects both, so
// the peer's answer is context: an unknown method is a warning, bad params an
// error (the same severity whatever the peer answered).
var pypiExpectedFindings = []pypiFinding{
	{Scenario: "session-wait", Instance: "rt", Severity: "warning", Rule: "method.unknown", Direction: "client-to-server", Method: "session/frobnicate"},
	{Scenario: "reasoning-effort", Instance: "zero", Severity: "error", Rule: "params.schema", Direction: "client-to-server", Method: "initialize"},
}

// pypiFinding is one validator finding, reduced to what identifies it.
type pypiFinding struct {
	Scenario, Instance, Severity, Rule, Direction, Method string
	Line                                                  int    `json:"-"`
	Message                                               string `json:"-"`
}

func (f pypiFinding) key() string {
	return strings.Join([]string{f.Scenario, f.Instance, f.Severity, f.Rule, f.Direction, f.Method}, " ")
}

// pypiSchema picks the schema the tap validates with: $DSHGEN_PYPI_SCHEMA,
// else schema/0.2.1/dsh-sdk-protocol.schema.json when it exists (strict:
// findings beyond pypiExpectedFindings fail), else the shipped 0.0.1 schema
// (findings are reported per rule, not failed: the runtime speaks a newer
// revision).
func pypiSchema(root string) (path string, strict bool) {
	if p := os.Getenv("DSHGEN_PYPI_SCHEMA"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		return p, true
	}
	p := filepath.Join(root, "schema", "0.2.1", "dsh-sdk-protocol.schema.json")
	if _, err := os.Stat(p); err == nil {
		return p, true
	}
	return filepath.Join(root, "schema", "0.0.1", "dsh-sdk-protocol.schema.json"), false
}

// pypiToolsMissing says why the harness cannot run here ("" when it can):
// it needs python3 with pip and venv (install.sh makes its own venv).
func pypiToolsMissing() string {
	if _, err := exec.LookPath("python3"); err != nil {
		return "python3 not found"
	}
	if out, err := exec.Command("python3", "-c", "import pip, venv, ensurepip").CombinedOutput(); err != nil {
		return "python3 has no pip/venv/ensurepip: " + strings.TrimSpace(string(out))
	}
	return ""
}

// TestPyPIRuntime runs every scenario of testdata/pypi/scenarios.py with
// the published Python SDK driving the published runtime behind `dshgen
// tap` (and, with -update or DSHGEN_PYPI_DIRECT=1, also directly), and
// checks that the tap is invisible and the traffic valid:
//
//   - each scenario ran to its end, and its outcome (what the SDK's public
//     API returned and raised, normalized: the run directory, which differs
//     per mode, and runtime-minted UUIDs) equals the direct run's, recorded
//     in testdata/pypi/expected/<scenario>.json (and, when the direct runs
//     are repeated, the live direct outcome and its runtime instances);
//   - every capture of the tap equals, byte for byte and per direction, what
//     the SDK wrote and read (recorded on the SDK's side by capture_wrap.py),
//     and its report says every byte was forwarded, validation was complete,
//     the runtime's exit status passed through, and has no tap notice above
//     info;
//   - the findings: with a schema of the PyPI revision (pypiSchema) only
//     pypiExpectedFindings, each of them; with the shipped 0.0.1 schema they
//     are logged per rule;
//   - `dshgen conformance` round-trips every frame of the captures that the
//     schema finds valid through the Go, Python and TypeScript bindings of
//     that schema (generated into a temp dir); with a PyPI-revision schema
//     every frame but the ones sent wrong on purpose must be valid and every
//     binding must give each back unchanged (with the shipped schema the
//     result is logged).
//
// It installs the two PyPI packages (pinned by hash, cached; see
// testdata/pypi/install.sh). Required when DSHGEN_REQUIRE_PYPI=1; otherwise
// skipped only when python3 with pip and venv is absent.
func TestPyPIRuntime(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	if reason := pypiToolsMissing(); reason != "" {
		if os.Getenv("DSHGEN_REQUIRE_PYPI") == "1" {
			t.Fatalf("DSHGEN_REQUIRE_PYPI=1 but %s", reason)
		}
		t.Skipf("%s: the PyPI runtime test needs python3 with pip and venv (DSHGEN_REQUIRE_PYPI=1 makes this a failure)", reason)
	}
	root := repoRoot(t)
	schema, strict := pypiSchema(root)
	t.Logf("schema: %s (strict: %v)", schema, strict)

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, filepath.Join(root, "testdata", "pypi", "run.sh"), out)
	// The direct runs are what testdata/pypi/expected records; they are
	// repeated live with -update (which rewrites it) or DSHGEN_PYPI_DIRECT=1,
	// else the tap's outcome is compared with the recorded direct one.
	modes := []string{"tap"}
	if *updatePyPI || os.Getenv("DSHGEN_PYPI_DIRECT") == "1" {
		modes = []string{"direct", "tap"}
	}
	run.Env = append(os.Environ(), "DSHGEN="+dshgenBin, "DSHGEN_PYPI_SCHEMA="+schema, "MODES="+strings.Join(modes, ","))
	var log bytes.Buffer
	run.Stdout, run.Stderr = &log, &log
	start := time.Now()
	err := run.Run()
	t.Logf("testdata/pypi/run.sh took %v:\n%s", time.Since(start).Round(time.Millisecond), log.String())
	if err != nil {
		t.Fatalf("run.sh: %v", err)
	}

	var summary struct {
		ElapsedS  float64                                       `json:"elapsed_s"`
		Scenarios map[string]map[string]struct{ Status string } `json:"scenarios"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &summary)
	names := pypiScenarioNames(t, root)
	for _, mode := range modes {
		for _, name := range names {
			if st := summary.Scenarios[mode][name].Status; st != "ok" {
				t.Errorf("%s %s: %q (see %s)", mode, name, st, filepath.Join(out, mode, name, "driver.log"))
			}
		}
	}

	var findings []pypiFinding
	for _, name := range names {
		tapped := pypiOutcome(t, filepath.Join(out, "tap", name, "outcome.json"))
		golden := filepath.Join(root, "testdata", "pypi", "expected", name+".json")
		if len(modes) == 2 {
			direct := pypiOutcome(t, filepath.Join(out, "direct", name, "outcome.json"))
			if !reflect.DeepEqual(direct.Normalized, tapped.Normalized) {
				t.Errorf("%s: the SDK's outcome through the tap differs from the direct run:\n%s", name, firstDiff(direct.Normalized, tapped.Normalized))
			}
			if !reflect.DeepEqual(direct.Instances, tapped.Instances) {
				t.Errorf("%s: runtimes started %v directly, %v through the tap", name, direct.Instances, tapped.Instances)
			}
			if *updatePyPI {
				writeJSON(t, golden, direct.Normalized)
			}
		}
		if !*updatePyPI {
			var want any
			readJSON(t, golden, &want)
			if !reflect.DeepEqual(tapped.Normalized, want) {
				t.Errorf("%s: the SDK's outcome through the tap differs from the direct run recorded in %s (DSHGEN_PYPI_DIRECT=1 repeats the direct run; -update rewrites the record):\n%s", name, golden, firstDiff(want, tapped.Normalized))
			}
		}
		for _, inst := range tapped.Instances {
			dir := filepath.Join(out, "tap", name, inst)
			pypiCheckCapture(t, name+"/"+inst, dir)
			findings = append(findings, pypiReportFindings(t, name, inst, filepath.Join(dir, "tap.report"))...)
		}
	}
	pypiCheckFindings(t, findings, strict)

	var logs []string
	for _, name := range names {
		for _, inst := range pypiOutcome(t, filepath.Join(out, "tap", name, "outcome.json")).Instances {
			logs = append(logs, filepath.Join(out, "tap", name, inst, "tap.log"))
		}
	}
	t.Run("conformance", func(t *testing.T) { pypiConformance(t, root, schema, strict, logs) })

	if *updatePyPI {
		pypiWriteReference(t, root, out, names)
	}
}

// TestPyPIReferenceCaptures validates the reference captures kept under
// testdata/pypi/captures (one gzipped tap capture per scenario and runtime,
// from a run of TestPyPIRuntime -update) with the schema pypiSchema picks, offline:
// with a PyPI-revision schema only pypiExpectedFindings, each of them; with
// the shipped one, the findings are logged per rule.
func TestPyPIReferenceCaptures(t *testing.T) {
	root := repoRoot(t)
	schema, strict := pypiSchema(root)
	gz, err := filepath.Glob(filepath.Join(root, "testdata", "pypi", "captures", "*", "*.log.gz"))
	if err != nil || len(gz) == 0 {
		t.Fatalf("no reference captures under testdata/pypi/captures (%v)", err)
	}
	sort.Strings(gz)
	tmp := t.TempDir()
	var logs []string
	for _, p := range gz {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		dst := filepath.Join(tmp, filepath.Base(filepath.Dir(p)), strings.TrimSuffix(filepath.Base(p), ".gz"))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, dst)
	}
	code, stdout, stderr := runValidate(t, nil, append([]string{"--format", "json", "--schema", schema}, logs...)...)
	if code != 0 && code != 1 {
		t.Fatalf("dshgen validate: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Streams []struct {
			Name     string
			Frames   int
			Findings []struct {
				Line                              int
				Severity, Rule, Direction, Method string
				Message                           string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("dshgen validate --format json: %v", err)
	}
	var findings []pypiFinding
	frames := 0
	for _, s := range rep.Streams {
		frames += s.Frames
		scenario := filepath.Base(filepath.Dir(s.Name))
		instance := strings.TrimSuffix(filepath.Base(s.Name), ".log")
		for _, f := range s.Findings {
			findings = append(findings, pypiFinding{Scenario: scenario, Instance: instance, Severity: f.Severity, Rule: f.Rule,
				Direction: f.Direction, Method: f.Method, Line: f.Line, Message: f.Message})
		}
	}
	t.Logf("%d reference captures, %d frames, schema %s", len(logs), frames, schema)
	if len(rep.Streams) != len(logs) || frames == 0 {
		t.Fatalf("validate read %d streams and %d frames from %d captures", len(rep.Streams), frames, len(logs))
	}
	pypiCheckFindings(t, findings, strict)
}

type pypiRun struct {
	Normalized any
	Instances  []string
}

// pypiOutcome reads an outcome.json of scenarios.py. Normalized is what the
// SDK observed (completed, failure, steps) with the run directory (which
// differs per mode) replaced by <root> and UUIDs (message ids and child
// session ids the runtime mints) by <uuid>; the timing fields are dropped.
func pypiOutcome(t *testing.T, path string) pypiRun {
	t.Helper()
	var raw struct {
		Root      string          `json:"root"`
		Completed bool            `json:"completed"`
		Failure   json.RawMessage `json:"failure"`
		Traceback string          `json:"traceback"`
		Steps     json.RawMessage `json:"steps"`
		Instances []string        `json:"instances"`
	}
	readJSON(t, path, &raw)
	if !raw.Completed {
		t.Errorf("%s: the scenario did not complete: %s\n%s", path, raw.Failure, raw.Traceback)
	}
	if raw.Root == "" {
		t.Fatalf("%s: no root", path)
	}
	s := strings.ReplaceAll(string(raw.Steps), raw.Root, "<root>")
	s = uuidRe.ReplaceAllString(s, "<uuid>")
	var steps any
	if err := json.Unmarshal([]byte(s), &steps); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pypiRun{Normalized: map[string]any{"completed": raw.Completed, "steps": steps}, Instances: raw.Instances}
}

// pypiScenarioNames lists the scenarios (scenarios.py --list).
func pypiScenarioNames(t *testing.T, root string) []string {
	t.Helper()
	out, err := exec.Command("python3", filepath.Join(root, "testdata", "pypi", "scenarios.py"), "--list").Output()
	if err != nil {
		t.Fatalf("scenarios.py --list: %v", err)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, _, _ := strings.Cut(l, ":")
		names = append(names, name)
	}
	if len(names) < 12 {
		t.Fatalf("scenarios.py lists %d scenarios: %q", len(names), names)
	}
	return names
}

// pypiCheckCapture compares the tap's capture with the SDK's side
// (capture_wrap.py) and checks the tap's summary.
func pypiCheckCapture(t *testing.T, name, dir string) {
	t.Helper()
	capture, err := os.ReadFile(filepath.Join(dir, "tap.log"))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	streams, _, err := taptest.ParseCapture(capture)
	if err != nil {
		t.Errorf("%s: tap capture: %v", name, err)
		return
	}
	var sdk [2][]byte
	for i, file := range []string{"client-to-server.jsonl", "server-to-client.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		sdk[i] = b
		if !bytes.Equal(streams[i], b) {
			t.Errorf("%s: the tap's capture differs from what the SDK saw in %s (%d vs %d bytes)", name, file, len(streams[i]), len(b))
		}
		if len(b) == 0 {
			t.Errorf("%s: %s is empty", name, file)
		}
	}
	var sum *struct {
		ExitCode           int  `json:"exitCode"`
		ValidationComplete bool `json:"validationComplete"`
		ClientToServer     struct {
			Bytes, Forwarded int
			EOF              bool `json:"eof"`
		} `json:"clientToServer"`
		ServerToClient struct {
			Bytes, Forwarded int
			EOF              bool `json:"eof"`
		} `json:"serverToClient"`
	}
	f, err := os.Open(filepath.Join(dir, "tap.report"))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct{ Kind, Severity, Rule string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("%s: report line %.200q: %v", name, sc.Text(), err)
			continue
		}
		switch rec.Kind {
		case "summary":
			json.Unmarshal(sc.Bytes(), &sum)
		case "tap":
			if rec.Severity != "info" {
				t.Errorf("%s: tap notice %s", name, sc.Text())
			}
		}
	}
	if sum == nil {
		t.Errorf("%s: the tap's report has no summary", name)
		return
	}
	if sum.ExitCode != 0 || !sum.ValidationComplete {
		t.Errorf("%s: runtime exit %d through the tap, validation complete %v", name, sum.ExitCode, sum.ValidationComplete)
	}
	if c := sum.ClientToServer; c.Bytes != len(sdk[0]) || c.Forwarded != c.Bytes {
		t.Errorf("%s: client to server: the tap read %d bytes and forwarded %d; the SDK wrote %d", name, c.Bytes, c.Forwarded, len(sdk[0]))
	}
	if c := sum.ServerToClient; c.Bytes != len(sdk[1]) || c.Forwarded != c.Bytes || !c.EOF {
		t.Errorf("%s: server to client: the tap read %d bytes and forwarded %d (EOF %v); the SDK read %d", name, c.Bytes, c.Forwarded, c.EOF, len(sdk[1]))
	}
}

// pypiReportFindings reads the findings of a tap report (--format jsonl).
func pypiReportFindings(t *testing.T, scenario, instance, path string) []pypiFinding {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s/%s: %v", scenario, instance, err)
		return nil
	}
	var out []pypiFinding
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		var rec struct {
			Kind, Severity, Rule, Direction, Method, Message string
			Line                                             int
		}
		if len(l) == 0 || json.Unmarshal(l, &rec) != nil || rec.Kind != "finding" {
			continue
		}
		out = append(out, pypiFinding{Scenario: scenario, Instance: instance, Severity: rec.Severity, Rule: rec.Rule,
			Direction: rec.Direction, Method: rec.Method, Line: rec.Line, Message: rec.Message})
	}
	return out
}

// pypiCheckFindings logs the findings per rule; strict: only and all of
// pypiExpectedFindings.
func pypiCheckFindings(t *testing.T, findings []pypiFinding, strict bool) {
	t.Helper()
	perRule := map[string]int{}
	first := map[string]pypiFinding{}
	for _, f := range findings {
		k := f.Severity + " " + f.Rule + " " + f.Direction
		perRule[k]++
		if _, ok := first[k]; !ok {
			first[k] = f
		}
	}
	var keys []string
	for k := range perRule {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		f := first[k]
		fmt.Fprintf(&b, "  %4d %s (first: %s/%s line %d %s: %.160s)\n", perRule[k], k, f.Scenario, f.Instance, f.Line, f.Method, f.Message)
	}
	t.Logf("%d findings:\n%s", len(findings), b.String())
	if !strict {
		return
	}
	want := map[string]bool{}
	for _, e := range pypiExpectedFindings {
		want[e.key()] = false
	}
	for _, f := range findings {
		if _, ok := want[f.key()]; ok {
			want[f.key()] = true
			continue
		}
		t.Errorf("false finding: %s/%s line %d: %s %s (%s %s): %s", f.Scenario, f.Instance, f.Line, f.Severity, f.Rule, f.Direction, f.Method, f.Message)
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("expected finding not reported (stale entry in pypiExpectedFindings?): %s", k)
		}
	}
}

// pypiConformance runs `dshgen conformance` on the tap captures with the
// bindings of schema: out/ for the shipped schema, else generated into a
// temp dir. TypeScript takes part when testdata/ts has its compiler (or
// DSHGEN_REQUIRE_TSC=1 says it must).
func pypiConformance(t *testing.T, root, schema string, strict bool, logs []string) {
	bindings := filepath.Join(root, "out")
	if schema != filepath.Join(root, "schema", "0.0.1", "dsh-sdk-protocol.schema.json") {
		bindings = filepath.Join(t.TempDir(), "bindings")
		gen := exec.Command(dshgenBin, "generate", "--schema", schema, "--out", bindings)
		gen.Dir = root
		if out, err := gen.CombinedOutput(); err != nil {
			t.Fatalf("dshgen generate --schema %s: %v\n%s", schema, err, out)
		}
	}
	langs := "go,python"
	if _, err := os.Stat(filepath.Join(root, "testdata", "ts", "node_modules", "typescript")); err == nil || os.Getenv("DSHGEN_REQUIRE_TSC") == "1" {
		langs += ",ts"
	} else {
		t.Logf("TypeScript left out: testdata/ts/node_modules/typescript is missing (testdata/ts/check.sh installs it)")
	}
	args := append([]string{"conformance", "--schema", schema, "--out", bindings, "--lang", langs}, logs...)
	cmd := exec.Command(dshgenBin, args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Logf("dshgen conformance --lang %s on %d captures:\n%s", langs, len(logs), text)
	if err != nil {
		if strict {
			t.Errorf("dshgen conformance: %v", err)
		} else {
			t.Logf("dshgen conformance: %v (not a failure with the shipped schema: the runtime speaks a newer revision)", err)
		}
	}
	// The summary line: "N files, F frames, V valid; round-tripped: ...".
	var files, frames, valid int
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "dshgen conformance: ") {
			fmt.Sscanf(l, "dshgen conformance: %d files, %d frames, %d valid", &files, &frames, &valid)
		}
	}
	if frames == 0 {
		t.Errorf("no summary line in the conformance output")
	}
	// The frames sent wrong on purpose are the only ones a schema of the
	// PyPI revision may find invalid (and so leave out of the round trip).
	if strict && frames-valid != len(pypiExpectedFindings) {
		t.Errorf("%d of %d frames are invalid under %s (want the %d sent wrong on purpose), so not round-tripped", frames-valid, frames, schema, len(pypiExpectedFindings))
	}
}

// pypiWriteReference copies one tap capture per scenario and runtime to
// testdata/pypi/captures/<scenario>/<instance>.log.gz (gzip: 130 KB instead
// of 700), with the run directory replaced by /tmp/dshgen-pypi so that the
// files do not change from run to run for that reason (the JSON stays
// valid: the path is plain ASCII).
func pypiWriteReference(t *testing.T, root, out string, names []string) {
	dst := filepath.Join(root, "testdata", "pypi", "captures")
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		for _, inst := range pypiOutcome(t, filepath.Join(out, "tap", name, "outcome.json")).Instances {
			b, err := os.ReadFile(filepath.Join(out, "tap", name, inst, "tap.log"))
			if err != nil {
				t.Fatal(err)
			}
			b = bytes.ReplaceAll(b, []byte(out), []byte("/tmp/dshgen-pypi"))
			var z bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
			zw.Write(b)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dst, name, inst+".log.gz")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff describes where two JSON values first differ.
func firstDiff(a, b any) string {
	var walk func(p string, a, b any) string
	walk = func(p string, a, b any) string {
		switch x := a.(type) {
		case map[string]any:
			y, ok := b.(map[string]any)
			if !ok {
				break
			}
			keys := map[string]bool{}
			for k := range x {
				keys[k] = true
			}
			for k := range y {
				keys[k] = true
			}
			var ks []string
			for k := range keys {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for _, k := range ks {
				if d := walk(p+"/"+k, x[k], y[k]); d != "" {
					return d
				}
			}
			return ""
		case []any:
			y, ok := b.([]any)
			if !ok {
				break
			}
			for i := 0; i < len(x) && i < len(y); i++ {
				if d := walk(fmt.Sprintf("%s/%d", p, i), x[i], y[i]); d != "" {
					return d
				}
			}
			if len(x) != len(y) {
				return fmt.Sprintf("at %s: %d vs %d elements", p, len(x), len(y))
			}
			return ""
		}
		if reflect.DeepEqual(a, b) {
			return ""
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return fmt.Sprintf("at %s:\n  %.600s\n  %.600s", p, ja, jb)
	}
	return walk("", a, b)
}

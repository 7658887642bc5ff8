package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/wire/tap/taptest"
)

// legitScenarios send only valid traffic; the others send invalid requests
// or lines on purpose (client-to-server only: the server's side is always
// legitimate).
var legitScenarios = map[string]bool{
	"text-turn": true, "bash-tool": true, "subagent": true, "parallel-sessions": true, "stdin-eof-idle": true,
}

// TestTapRealRuntime drives the real published runtime with the published
// TypeScript client through `dshgen tap` (../shared/real-runtime/run.sh with
// DSH_SERVER_CMD) and checks that the tap is invisible: the client's results
// equal those of the fixture run without the tap, the tap's capture equals
// the client side's byte for byte, the line counts equal the fixtures', and
// legitimate traffic gives no validation errors. Set DSHGEN_SKIP_REAL=1 to
// skip it (it installs Node 22 and the runtime from npm on first use).
func TestTapRealRuntime(t *testing.T) {
	if os.Getenv("DSHGEN_SKIP_REAL") == "1" {
		t.Skip("DSHGEN_SKIP_REAL=1: real-runtime end-to-end test skipped")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	rr := filepath.Join(root, "..", "shared", "real-runtime")
	fixtures := filepath.Join(root, "..", "shared", "fixtures", "real-captures")
	if _, err := os.Stat(filepath.Join(rr, "run.sh")); err != nil {
		t.Fatalf("%s not found (set DSHGEN_SKIP_REAL=1 to skip this test): %v", rr, err)
	}
	t.Log("RUNNING the real-runtime end-to-end test through dshgen tap (DSHGEN_SKIP_REAL=1 skips it)")

	tmp := t.TempDir()
	tapDir := filepath.Join(tmp, "tap")
	captures := filepath.Join(tmp, "client-side")
	os.MkdirAll(tapDir, 0o755)
	serverCmd := dshgenBin + ` tap --format jsonl --capture ` + tapDir + `/"$DSH_SCENARIO".log --report ` + tapDir +
		`/"$DSH_SCENARIO".report -- ../shared/real-runtime/start-runtime.sh`
	run := exec.Command(filepath.Join(rr, "run.sh"), captures)
	run.Dir = root
	run.Env = append(os.Environ(), "DSH_SERVER_CMD="+serverCmd, "WORK_ROOT="+filepath.Join(tmp, "work"))
	start := time.Now()
	out, err := run.CombinedOutput()
	elapsed := time.Since(start)
	t.Logf("run.sh through the tap took %v", elapsed.Round(time.Millisecond))
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}

	// 1. The client's results are those of the run without the tap.
	got := normalizedSummary(t, filepath.Join(captures, "driver-summary.json"))
	want := normalizedSummary(t, filepath.Join(fixtures, "driver-summary.json"))
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("driver summary through the tap differs from the fixture:\n%s\nwant\n%s", g, w)
	}

	// 2. Per scenario: capture == client side, line counts == fixtures,
	// exit status and validation in the tap's report.
	var counts map[string]struct {
		ClientToServer struct{ Lines int } `json:"clientToServer"`
		ServerToClient struct{ Lines int } `json:"serverToClient"`
		RuntimeExit    struct{ Code *int } `json:"runtimeExit"`
	}
	readJSON(t, filepath.Join(fixtures, "frame-counts.json"), &counts)
	if len(counts) != 8 {
		t.Fatalf("frame-counts.json has %d scenarios", len(counts))
	}
	for name, c := range counts {
		capture, err := os.ReadFile(filepath.Join(tapDir, name+".log"))
		if err != nil {
			t.Errorf("%s: no tap capture: %v", name, err)
			continue
		}
		streams, _, err := taptest.ParseCapture(capture)
		if err != nil {
			t.Errorf("%s: tap capture: %v", name, err)
			continue
		}
		for i, file := range []string{"client-to-server.jsonl", "server-to-client.jsonl"} {
			client, err := os.ReadFile(filepath.Join(captures, name, file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(streams[i], client) {
				t.Errorf("%s: the tap's capture differs from the client side's %s (%d vs %d bytes)", name, file, len(streams[i]), len(client))
			}
			lines := bytes.Count(client, []byte{'\n'})
			wantLines := c.ClientToServer.Lines
			if i == 1 {
				wantLines = c.ServerToClient.Lines
			}
			if lines != wantLines {
				t.Errorf("%s: %s has %d lines, fixture %d", name, file, lines, wantLines)
			}
		}
		checkTapReport(t, name, filepath.Join(tapDir, name+".report"), c.RuntimeExit.Code)
	}
}

// checkTapReport reads a JSON report of `dshgen tap` and checks the server
// exit status and the findings.
func checkTapReport(t *testing.T, name, path string, wantExit *int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Errorf("%s: no tap report: %v", name, err)
		return
	}
	defer f.Close()
	var summary *struct {
		ExitCode           int  `json:"exitCode"`
		ValidationComplete bool `json:"validationComplete"`
		Errors             int  `json:"errors"`
	}
	var errs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Kind      string `json:"kind"`
			Severity  string `json:"severity"`
			Direction string `json:"direction"`
			Rule      string `json:"rule"`
			Line      int    `json:"line"`
			Message   string `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("%s: report line %q: %v", name, sc.Text(), err)
			continue
		}
		switch rec.Kind {
		case "summary":
			json.Unmarshal(sc.Bytes(), &summary)
		case "finding":
			if rec.Severity != "error" {
				continue
			}
			if legitScenarios[name] || rec.Direction != "client-to-server" {
				errs = append(errs, sc.Text())
			}
		case "tap":
			if rec.Severity == "error" || rec.Severity == "warning" {
				t.Errorf("%s: tap notice %s", name, sc.Text())
			}
		}
	}
	if summary == nil {
		t.Errorf("%s: report has no summary", name)
		return
	}
	if wantExit != nil && summary.ExitCode != *wantExit {
		t.Errorf("%s: server exit %d through the tap, fixture %d", name, summary.ExitCode, *wantExit)
	}
	if !summary.ValidationComplete {
		t.Errorf("%s: validation incomplete", name)
	}
	if legitScenarios[name] && summary.Errors != 0 {
		t.Errorf("%s: %d validation errors on legitimate traffic", name, summary.Errors)
	}
	for _, e := range errs {
		t.Errorf("%s: unexpected error finding: %s", name, e)
	}
}

var (
	uuidRe  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reqIDRe = regexp.MustCompile(`req_[0-9a-f]{32}`)
)

// normalizedSummary reads a driver summary with uuids and request ids
// replaced by placeholders and elapsedMs removed.
func normalizedSummary(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = uuidRe.ReplaceAll(b, []byte("<uuid>"))
	b = reqIDRe.ReplaceAll(b, []byte("<req-id>"))
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, sc := range v.(map[string]any) {
		delete(sc.(map[string]any), "elapsedMs")
	}
	return v
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/wire/tap/taptest"
)

// dshgenBin is the dshgen binary built once for this test run by TestMain
// (tests run it as a subprocess). Other tests of this package may use it.
var dshgenBin string

// testScratch is a directory of this test run's own (made by TestMain,
// removed after the tests) for fixtures several tests share.
var testScratch string

// TestMain builds dshgen once into a temp dir; when started as a helper
// server by a tap test (taptest.HelperEnv set) it runs that instead.
func TestMain(m *testing.M) {
	if mode := os.Getenv(taptest.HelperEnv); mode != "" {
		os.Exit(taptest.HelperMain(mode))
	}
	dir, err := os.MkdirTemp("", "dshgen-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	dshgenBin = filepath.Join(dir, "dshgen")
	testScratch = filepath.Join(dir, "scratch")
	if err := os.Mkdir(testScratch, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	build := exec.Command("go", "build", "-o", dshgenBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building dshgen:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tapRun is one `dshgen tap` subprocess with its stdio in the test's hands.
type tapRun struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr bytes.Buffer
}

func startTap(t *testing.T, env []string, args ...string) *tapRun {
	t.Helper()
	r := &tapRun{cmd: exec.Command(dshgenBin, append([]string{"tap"}, args...)...)}
	r.cmd.Env = env
	r.cmd.Stderr = &r.stderr
	var err error
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if r.stdout, err = r.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			r.cmd.Process.Kill()
			r.cmd.Wait()
		}
	})
	return r
}

// wait waits for the tap (bounded) and returns its exit status; the tap
// itself must never die of a signal.
func (r *tapRun) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		r.cmd.Process.Kill()
		<-done
		t.Fatalf("tap did not exit within %v; stderr:\n%s", limit, r.stderr.String())
	}
	ws := r.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("the tap itself died of %v; stderr:\n%s", ws.Signal(), r.stderr.String())
	}
	return ws.ExitStatus()
}

func helperArgs(mode string, env ...string) (argv, environ []string) {
	return taptest.HelperCmd(mode, env...)
}

func TestTapCLITransparency(t *testing.T) {
	for _, tc := range []struct {
		seed                   uint64
		clientHuge, serverHuge bool
	}{{1, false, false}, {2, true, false}, {3, false, true}, {4, true, true}} {
		client := taptest.RandomStream(tc.seed, 30, tc.clientHuge)
		serverSeed := tc.seed + 1000
		server := taptest.RandomStream(serverSeed, 30, tc.serverHuge)
		dir := t.TempDir()
		shaFile := filepath.Join(dir, "sha")
		capFile := filepath.Join(dir, "capture.log")
		huge := "TAP_HUGE=0"
		if tc.serverHuge {
			huge = "TAP_HUGE=1"
		}
		argv, env := helperArgs("sha-and-emit", "TAP_SHA_FILE="+shaFile, "TAP_SEED="+strconv.FormatUint(serverSeed, 10), "TAP_LINES=30", huge)
		r := startTap(t, env, append([]string{"--capture", capFile, "--"}, argv...)...)
		go func() {
			taptest.WriteChunked(r.stdin, client, tc.seed)
			r.stdin.Close()
		}()
		h := sha256.New()
		n, _ := io.Copy(h, r.stdout)
		if code := r.wait(t, time.Minute); code != 0 {
			t.Fatalf("seed %d: exit %d\n%s", tc.seed, code, r.stderr.String())
		}
		if got, want := hex.EncodeToString(h.Sum(nil)), taptest.SHA256(server); got != want {
			t.Errorf("seed %d: stdout %d bytes sha %s, server wrote %d bytes sha %s", tc.seed, n, got, len(server), want)
		}
		got, _ := os.ReadFile(shaFile)
		if want := taptest.SHA256(client) + " " + strconv.Itoa(len(client)); string(got) != want {
			t.Errorf("seed %d: server received %s, client sent %s", tc.seed, got, want)
		}
		capture, _ := os.ReadFile(capFile)
		streams, tags, err := taptest.ParseCapture(capture)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streams[0], client) || !bytes.Equal(streams[1], server) {
			t.Errorf("seed %d: the capture does not parse back to the two streams", tc.seed)
		}
		if tags[len(tags)-1] != "C->S(EOF)" && tags[len(tags)-1] != "S->C(EOF)" {
			t.Errorf("seed %d: capture ends with %q", tc.seed, tags[len(tags)-1])
		}
		// A last line without a newline counts as a line and is marked.
		want := fmt.Sprintf("dshgen tap: C->S %s, S->C %s;", streamLines(client), streamLines(server))
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("seed %d: no summary %q on stderr:\n%s", tc.seed, want, r.stderr.String())
		}
	}
}

// streamLines is what the text summary says of a stream: "30 lines (N
// bytes)" or, with no newline at its end, "30 lines (N bytes, the last
// unterminated)".
func streamLines(b []byte) string {
	n, last := bytes.Count(b, []byte{'\n'}), ""
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n, last = n+1, ", the last unterminated"
	}
	return fmt.Sprintf("%d lines (%d bytes%s)", n, len(b), last)
}

func TestTapCLIExitStatus(t *testing.T) {
	for _, tc := range []struct {
		mode string
		env  []string
		want int
	}{
		{"kill-self", []string{"TAP_SIGNAL=9"}, 137},
		{"kill-self", []string{"TAP_SIGNAL=15"}, 143},
		{"never-read", []string{"TAP_SLEEP_MS=10"}, 3},
		{"sha-and-emit", []string{"TAP_SHA_FILE=/dev/null", "TAP_LINES=3", "TAP_EXIT=42"}, 42},
	} {
		argv, env := helperArgs(tc.mode, tc.env...)
		r := startTap(t, env, append([]string{"--no-validate", "--"}, argv...)...)
		r.stdin.Close()
		io.Copy(io.Discard, r.stdout)
		if code := r.wait(t, 30*time.Second); code != tc.want {
			t.Errorf("%s %v: exit %d, want %d\n%s", tc.mode, tc.env, code, tc.want, r.stderr.String())
		}
	}
}

func TestTapCLIForwardsSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		trap string
		want int
	}{
		{syscall.SIGTERM, "0", 143},
		{syscall.SIGINT, "0", 130},
		{syscall.SIGTERM, "1", 7},
	} {
		argv, env := helperArgs("wait-signal", "TAP_TRAP="+tc.trap)
		r := startTap(t, env, append([]string{"--"}, argv...)...)
		line, err := bufio.NewReader(r.stdout).ReadString('\n')
		if err != nil || line != "ready\n" {
			t.Fatalf("helper: %q %v", line, err)
		}
		r.cmd.Process.Signal(tc.sig)
		if code := r.wait(t, 20*time.Second); code != tc.want {
			t.Errorf("%v trap=%s: exit %d, want %d\n%s", tc.sig, tc.trap, code, tc.want, r.stderr.String())
		}
		if !strings.Contains(r.stderr.String(), "tap.signal") {
			t.Errorf("no signal notice:\n%s", r.stderr.String())
		}
	}
}

// TestTapCLIStdinHeldOpen: the server exits while the client keeps stdin
// open; the tap must exit at once.
func TestTapCLIStdinHeldOpen(t *testing.T) {
	argv, env := helperArgs("never-read", "TAP_SLEEP_MS=100")
	r := startTap(t, env, append([]string{"--"}, argv...)...)
	defer r.stdin.Close()
	r.stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n"))
	start := time.Now()
	out, _ := io.ReadAll(r.stdout)
	// A hang guard, not a speed check: a tap that waits for the client's
	// stdin never exits, so any bound a loaded machine meets will do.
	if code := r.wait(t, 30*time.Second); code != 3 || string(out) != "bye\n" {
		t.Errorf("exit %d, out %q (after %v)", code, out, time.Since(start))
	}
}

// TestTapCLIServerNeverReads: the client writes far more than a pipe holds
// to a server that never reads, then keeps stdin open; the server exits.
func TestTapCLIServerNeverReads(t *testing.T) {
	argv, env := helperArgs("never-read", "TAP_SLEEP_MS=300")
	r := startTap(t, env, append([]string{"--"}, argv...)...)
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i < 64; i++ {
			if _, err := r.stdin.Write(chunk); err != nil {
				return
			}
		}
	}()
	out, _ := io.ReadAll(r.stdout)
	if code := r.wait(t, 10*time.Second); code != 3 || string(out) != "bye\n" {
		t.Errorf("exit %d, out %q\n%s", code, out, r.stderr.String())
	}
}

// TestTapCLIClientClosesEarly: the client reads 1 MiB of a flood and closes
// its end; the server sees the broken pipe (the Go helper dies of SIGPIPE,
// as it would without the tap) and the tap exits with that status instead
// of dying itself.
func TestTapCLIClientClosesEarly(t *testing.T) {
	argv, env := helperArgs("flood", "TAP_FLOOD_BYTES="+strconv.Itoa(4<<30))
	r := startTap(t, env, append([]string{"--"}, argv...)...)
	io.CopyN(io.Discard, r.stdout, 1<<20)
	r.stdout.Close()
	r.stdin.Close()
	if code := r.wait(t, 30*time.Second); code != 128+int(syscall.SIGPIPE) {
		t.Errorf("exit %d, want %d\n%s", code, 128+int(syscall.SIGPIPE), r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "tap.client-gone") {
		t.Errorf("no client-gone notice:\n%s", r.stderr.String())
	}
}

// TestTapCLIFloodSlowReader: a server floods 256 MiB while the client
// reads slowly; everything arrives, the run ends cleanly and the tap's
// peak RSS stays bounded.
func TestTapCLIFloodSlowReader(t *testing.T) {
	const flood = 256 << 20
	argv, env := helperArgs("flood", "TAP_FLOOD_BYTES="+strconv.Itoa(flood))
	capFile := filepath.Join(t.TempDir(), "capture.log")
	report := filepath.Join(t.TempDir(), "report.jsonl")
	r := startTap(t, env, append([]string{"--capture", capFile, "--report", report, "--format", "jsonl", "--"}, argv...)...)
	r.stdin.Close()
	buf := make([]byte, 256<<10)
	var n int64
	for i := 0; ; i++ {
		k, err := r.stdout.Read(buf)
		n += int64(k)
		if err != nil {
			break
		}
		if i%64 == 0 {
			time.Sleep(5 * time.Millisecond) // a slow client
		}
	}
	if code := r.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	if n < flood {
		t.Errorf("read %d bytes of %d", n, flood)
	}
	raw, _ := os.ReadFile(report)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var sum struct {
		Kind      string `json:"kind"`
		MaxRSSKiB int64  `json:"tapMaxRssKiB"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Kind != "summary" || sum.MaxRSSKiB == 0 {
		t.Fatalf("summary %q: %v", lines[len(lines)-1], err)
	}
	t.Logf("flood of %d MiB through the tap (validation and capture on): the tap's peak RSS %d MiB", flood>>20, sum.MaxRSSKiB>>10)
	if sum.MaxRSSKiB > 100<<10 {
		t.Errorf("peak RSS %d MiB", sum.MaxRSSKiB>>10)
	}
	if fi, err := os.Stat(capFile); err != nil || fi.Size() < flood {
		t.Errorf("capture: %v %v", fi, err)
	}
}

// TestTapCLICases14And15 runs each case file through `cat FILE` as the
// server; the bytes arrive unchanged (long lines, split UTF-8, CRLF, BOM,
// blank lines, no final newline).
func TestTapCLICases14And15(t *testing.T) {
	for _, f := range tapCaseFiles(t) {
		want, _ := os.ReadFile(f)
		capFile := filepath.Join(t.TempDir(), "capture.log")
		r := startTap(t, os.Environ(), "--capture", capFile, "--", "cat", f)
		r.stdin.Close()
		got, _ := io.ReadAll(r.stdout)
		if code := r.wait(t, 30*time.Second); code != 0 {
			t.Errorf("%s: exit %d\n%s", f, code, r.stderr.String())
		}
		if taptest.SHA256(got) != taptest.SHA256(want) {
			t.Errorf("%s: sha256 %s, file %s", filepath.Base(f), taptest.SHA256(got), taptest.SHA256(want))
		}
		capture, _ := os.ReadFile(capFile)
		streams, _, err := taptest.ParseCapture(capture)
		if err != nil || !bytes.Equal(streams[1], want) {
			t.Errorf("%s: capture does not parse back (%v)", filepath.Base(f), err)
		}
	}
}

func tapCaseFiles(t *testing.T) []string {
	t.Helper()
	cases := filepath.Join("..", "..", "..", "shared", "cases")
	if _, err := os.Stat(cases); err != nil {
		t.Skip("../shared/cases not present")
	}
	files, _ := filepath.Glob(filepath.Join(cases, "15-crlf-bom-final-newline", "*.jsonl"))
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: case 14 skipped")
		return files
	}
	dir := t.TempDir()
	mk, _ := filepath.Abs(filepath.Join(cases, "14-long-frame-lines", "make.py"))
	cmd := exec.Command(py, mk)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("case 14 make.py: %v\n%s", err, out)
	}
	f := filepath.Join(dir, "frames.jsonl")
	b, _ := os.ReadFile(f)
	if taptest.SHA256(b) != "fbffe200ceebafd212ca98f2127f8cbc327e49bfff183281a7468ce3b70a14ab" {
		t.Fatalf("case 14 frames.jsonl: sha %s", taptest.SHA256(b))
	}
	return append(files, f)
}

// TestTapCLIReportStaysOffStdout: with --report the tap writes nothing but
// the server's bytes to stdout, and in the live formats nothing of its own
// to stderr.
func TestTapCLIReportStaysOffStdout(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report")
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\nnot json\n"
	for _, tc := range []struct{ format, want string }{
		{"text", "C->S 2 lines"},
		{"jsonl", `"kind":"summary"`},
		{"json", `"streams"`},
		{"junit", "<testsuites"},
		{"github", "::error"},
	} {
		r := startTap(t, os.Environ(), "--report", report, "--format", tc.format, "--", "cat")
		io.WriteString(r.stdin, in)
		r.stdin.Close()
		out, _ := io.ReadAll(r.stdout)
		code := r.wait(t, 10*time.Second)
		if code != 0 || string(out) != in {
			t.Errorf("%s: exit %d, out %q", tc.format, code, out)
		}
		if live := tc.format == "text" || tc.format == "jsonl"; live && r.stderr.Len() != 0 {
			t.Errorf("%s: stderr %q", tc.format, r.stderr.String())
		}
		rep, _ := os.ReadFile(report)
		if !bytes.Contains(rep, []byte(tc.want)) {
			t.Errorf("%s report lacks %q:\n%s", tc.format, tc.want, rep)
		}
		if tc.format == "json" && !json.Valid(rep) {
			t.Errorf("json report is not one JSON document:\n%s", rep)
		}
	}
}

// TestTapCLIUnterminatedLine: the text summary counts a last line without
// a newline as a line and says it is unterminated, in each direction; the
// jsonl summary marks it; the bytes forwarded are the input's.
func TestTapCLIUnterminatedLine(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report")
	in := strings.Repeat("{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n", 6) + `{"jsonrpc":"2.0","method":"y"}`
	for _, tc := range []struct{ format, want string }{
		{"text", fmt.Sprintf("dshgen tap: C->S 7 lines (%d bytes, the last unterminated), S->C 7 lines (%d bytes, the last unterminated);", len(in), len(in))},
		{"jsonl", `"lines":7,"unterminated":true`},
	} {
		r := startTap(t, os.Environ(), "--report", report, "--format", tc.format, "--", "cat")
		io.WriteString(r.stdin, in)
		r.stdin.Close()
		out, _ := io.ReadAll(r.stdout)
		if code := r.wait(t, 10*time.Second); code != 0 || string(out) != in {
			t.Errorf("%s: exit %d, out %q", tc.format, code, out)
		}
		if rep, _ := os.ReadFile(report); !bytes.Contains(rep, []byte(tc.want)) {
			t.Errorf("%s report lacks %q:\n%s", tc.format, tc.want, rep)
		}
	}
}

// TestTapCLIFailOn: --fail-on error turns a clean server exit into 1 when
// the traffic had errors; without it the server's status passes through.
func TestTapCLIFailOn(t *testing.T) {
	bad := `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"paused"}}` + "\n"
	good := `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle"}}` + "\n"
	dir := t.TempDir()
	for _, tc := range []struct {
		frames string
		args   []string
		want   int
	}{
		{bad, nil, 0},
		{bad, []string{"--fail-on", "none"}, 0},
		{bad, []string{"--fail-on", "error"}, 1},
		{good, []string{"--fail-on", "error"}, 0},
		{bad, []string{"--fail-on", "error", "--no-validate"}, 0},
	} {
		f := filepath.Join(dir, "frames.jsonl")
		os.WriteFile(f, []byte(tc.frames), 0o644)
		r := startTap(t, os.Environ(), append(tc.args, "--", "cat", f)...)
		r.stdin.Close()
		io.Copy(io.Discard, r.stdout)
		if code := r.wait(t, 10*time.Second); code != tc.want {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.want, r.stderr.String())
		}
	}
	// A failing server keeps its own status.
	r := startTap(t, os.Environ(), "--fail-on", "error", "--", "sh", "-c", "printf '%s' '"+strings.TrimSpace(bad)+"'; exit 3")
	r.stdin.Close()
	io.Copy(io.Discard, r.stdout)
	if code := r.wait(t, 10*time.Second); code != 3 {
		t.Errorf("failing server: exit %d, want 3", code)
	}
}

// TestTapCLILiveMatchesValidate: the findings the tap prints live are the
// lines `dshgen validate CAPTURE` prints for the tap's capture.
func TestTapCLILiveMatchesValidate(t *testing.T) {
	fx := filepath.Join("..", "..", "..", "shared", "fixtures", "real-captures", "malformed-lines")
	client, err := os.ReadFile(filepath.Join(fx, "client-to-server.jsonl"))
	if err != nil {
		t.Skip("real-capture fixtures not present")
	}
	dir := t.TempDir()
	capFile := filepath.Join(dir, "capture.log")
	argv, env := helperArgs("emit-file", "TAP_FILE="+filepath.Join(fx, "server-to-client.jsonl"))
	r := startTap(t, env, append([]string{"--capture", capFile, "--"}, argv...)...)
	r.stdin.Write(client)
	r.stdin.Close()
	io.Copy(io.Discard, r.stdout)
	if code := r.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	var live []string
	for _, l := range strings.Split(r.stderr.String(), "\n") {
		if strings.HasPrefix(l, capFile+":") {
			live = append(live, l)
		}
	}
	out, _ := exec.Command(dshgenBin, "validate", capFile).Output()
	var file []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, capFile+":") {
			file = append(file, l)
		}
	}
	slices.Sort(live)
	slices.Sort(file)
	if len(file) == 0 || !slices.Equal(live, file) {
		t.Errorf("live findings:\n%s\nvalidate on the capture:\n%s", strings.Join(live, "\n"), strings.Join(file, "\n"))
	}
}

func TestTapCLIUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"--"}, 2},
		{[]string{"--format", "xml", "--", "true"}, 2},
		{[]string{"--schema", "/nonexistent/schema.json", "--", "true"}, 2},
		{[]string{"--prompt-overlap", "loud", "--", "true"}, 2},
		{[]string{"--fail-on", "maybe", "--", "true"}, 2},
		{[]string{"--", "/nonexistent/server"}, 127},
		{[]string{"--", "true"}, 0},
		{[]string{"--", "false"}, 1},
		{[]string{"sh", "-c", "exit 5"}, 5}, // no "--": flags end at the command
	} {
		cmd := exec.Command(dshgenBin, append([]string{"tap"}, tc.args...)...)
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != tc.want {
			t.Errorf("tap %v: exit %d, want %d\n%s", tc.args, code, tc.want, out)
		}
	}
}

// TestTapCLIStderrNobodyReads: the client never reads stderr, where the
// tap writes its findings (one per frame of this flood). The pipe fills,
// but forwarding goes on, every byte arrives, and the tap still exits
// (its report writer gives up after a bounded wait) with the server's
// status.
func TestTapCLIStderrNobodyReads(t *testing.T) {
	const flood = 64 << 20
	argv, env := helperArgs("flood", "TAP_FLOOD_BYTES="+strconv.Itoa(flood))
	cmd := exec.Command(dshgenBin, append([]string{"tap", "--"}, argv...)...)
	cmd.Env = env
	stderr, _ := cmd.StderrPipe() // never read before the tap exits
	stdout, _ := cmd.StdoutPipe()
	cmd.Stdin = strings.NewReader("")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	got := make(chan int64, 1)
	go func() { n, _ := io.Copy(io.Discard, stdout); got <- n }()
	select {
	case n := <-got: // the server's EOF, passed on by the tap
		if n < flood {
			t.Errorf("stdout: %d bytes of %d", n, flood)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("forwarding stalled behind a full stderr pipe")
	}
	eof := time.Since(start)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("tap: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the tap did not exit with its stderr full")
	}
	t.Logf("nobody reading stderr: all of stdout after %v, the tap exited after %v", eof.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// TestTapCLIHugeNumbers: the frames with a huge exponent where an integer
// is checked (an id, maxTokens, error.code) used to panic inside the
// validation library and cut the traffic (177 of 232 bytes forwarded,
// exit 2). Now every byte goes through, both ways, the tap exits with the
// server's status, and the frames get their findings.
func TestTapCLIHugeNumbers(t *testing.T) {
	huge := "1e99999999999999999999"
	in := []byte(`{"jsonrpc":"2.0","id":` + huge + `,"method":"shutdown"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m","maxTokens":` + huge + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"error":{"code":1e-99999999999999999999,"message":"x"}}` + "\n")
	argv, env := helperArgs("echo")
	report := filepath.Join(t.TempDir(), "report.jsonl")
	r := startTap(t, env, append([]string{"--format", "jsonl", "--report", report, "--"}, argv...)...)
	go func() { r.stdin.Write(in); r.stdin.Close() }()
	out, _ := io.ReadAll(r.stdout)
	if code := r.wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr.String())
	}
	if !bytes.Equal(out, in) {
		t.Errorf("forwarded %d of %d bytes", len(out), len(in))
	}
	rep, _ := os.ReadFile(report)
	if bytes.Contains(rep, []byte("panic")) || bytes.Contains(rep, []byte("internal.error")) {
		t.Errorf("report:\n%s", rep)
	}
	for _, want := range []string{`"rule":"params.schema"`, `"rule":"error.schema"`, `"validationComplete":true`} {
		if !bytes.Contains(rep, []byte(want)) {
			t.Errorf("report lacks %s:\n%s", want, rep)
		}
	}
}

// TestTapCLIBaselineAndRevision: the tap writes and reads baselines as
// validate does (a stale entry is an error, so --fail-on error fails),
// takes --rule, says which revision it validated against, and refuses an
// unknown rule id or revision before starting the server.
func TestTapCLIBaselineAndRevision(t *testing.T) {
	fx := filepath.Join("..", "..", "..", "shared", "fixtures", "real-captures", "unknown-method")
	client, err := os.ReadFile(filepath.Join(fx, "client-to-server.jsonl"))
	if err != nil {
		t.Skip("real-capture fixtures not present")
	}
	bl := filepath.Join(t.TempDir(), "b.jsonl")
	run := func(args ...string) (int, string) {
		// replay-log answers each request only after reading it, so
		// the tap sees every response after its request.
		argv, env := helperArgs("replay-log", "TAP_FILE="+filepath.Join(fx, "interleaved.log"))
		r := startTap(t, env, append(args, append([]string{"--"}, argv...)...)...)
		r.stdin.Write(client)
		r.stdin.Close()
		io.Copy(io.Discard, r.stdout)
		return r.wait(t, 20*time.Second), r.stderr.String()
	}
	code, errOut := run("--write-baseline", bl, "--fail-on", "warning")
	if code != 1 || !strings.Contains(errOut, "validation against revision 0.0.1 (schema/0.0.1/dsh-sdk-protocol.schema.json): 0 errors, 2 warnings") {
		t.Fatalf("write: exit %d\n%s", code, errOut)
	}
	b, _ := os.ReadFile(bl)
	if strings.Count(string(b), `"rule":"method.unknown"`) != 2 {
		t.Fatalf("baseline:\n%s", b)
	}
	if code, errOut = run("--baseline", bl, "--fail-on", "warning"); code != 0 || strings.Count(errOut, ": baselined warning method.unknown") != 2 {
		t.Errorf("baselined: exit %d\n%s", code, errOut)
	}
	os.WriteFile(bl, append(b, []byte(`{"rule":"state.seq","method":"session.event","pointer":"/params/event/seq"}`+"\n")...), 0o644)
	if code, errOut = run("--baseline", bl, "--fail-on", "error"); code != 1 || !strings.Contains(errOut, "error baseline.stale: entry") {
		t.Errorf("stale: exit %d\n%s", code, errOut)
	}
	if code, errOut = run("--rule", "method.unknown=off", "--fail-on", "warning", "--revision", "0.2.1"); code != 0 || !strings.Contains(errOut, "validation against revision 0.2.1") {
		t.Errorf("--rule off: exit %d\n%s", code, errOut)
	}
	if code, errOut = run("--rule", "bogus=off"); code != 2 || !strings.Contains(errOut, `unknown rule id "bogus"`) {
		t.Errorf("bad --rule: exit %d\n%s", code, errOut)
	}
	if code, errOut = run("--revision", "9.9"); code != 2 || !strings.Contains(errOut, "known: 0.0.1, 0.2.1") {
		t.Errorf("9.9: exit %d\n%s", code, errOut)
	}
}

package tap

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// recSink rebuilds both streams from the frames it is given.
type recSink struct {
	mu       sync.Mutex
	streams  [2][]byte
	frames   [2]int
	oversize []int64
	closes   int
	complete bool
	ends     []string
	delay    time.Duration
	seen     map[string]bool // C->S lines, for the ordering test
	order    bool
	orderBad int
}

func (s *recSink) Frame(dir string, line []byte, terminated bool, at time.Duration) {
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := 0
	if dir == ServerToClient {
		d = 1
	}
	s.frames[d]++
	s.streams[d] = append(s.streams[d], line...)
	if terminated {
		s.streams[d] = append(s.streams[d], '\n')
	}
	if s.order {
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		if d == 0 {
			s.seen[string(line)] = true
		} else if !s.seen[string(line)] {
			s.orderBad++
		}
	}
}

func (s *recSink) End(dir string, eof bool, at time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ends = append(s.ends, dir+map[bool]string{true: "(EOF)", false: "(stop)"}[eof])
}

func (s *recSink) Close(complete bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closes++
	s.complete = complete
}

type overSink struct {
	recSink
	sizes []int64
}

func (s *overSink) Oversize(dir string, size int64, terminated bool, at time.Duration) {
	s.mu.Lock()
	s.sizes = append(s.sizes, size)
	s.mu.Unlock()
}

func runTap(t *testing.T, cfg Config) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Notices {
		t.Logf("notice: %s %s %s %.1f %s", n.Severity, n.Rule, n.Dir, n.AtMs, n.Message)
	}
	return res
}

func TestTapTransparencyRandom(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		// a 16 MiB line: C->S with seed 5, S->C with seed 2
		client := randomStream(seed, 30, seed == 5)
		serverSeed, serverHuge := seed+100, seed == 2
		shaFile := filepath.Join(t.TempDir(), "sha")
		huge := "TAP_HUGE=0"
		if serverHuge {
			huge = "TAP_HUGE=1"
		}
		argv, env := helperCmd("sha-and-emit", "TAP_SHA_FILE="+shaFile, "TAP_SEED="+itoa(int(serverSeed)), "TAP_LINES=25", huge)
		var out, capture bytes.Buffer
		sink := &recSink{}
		res := runTap(t, Config{
			Command: argv, Env: env,
			Stdin: iotestChunky(client, seed), Stdout: &out, Capture: &capture, Sink: sink,
			QueueBytes: 1 << 30, // not an overflow test: the low-priority validator may lag on a busy machine
		})
		if res.ExitCode != 0 {
			t.Fatalf("seed %d: exit %d", seed, res.ExitCode)
		}
		server := randomStream(serverSeed, 25, serverHuge)
		// what the server received
		got, err := os.ReadFile(shaFile)
		if err != nil {
			t.Fatal(err)
		}
		if want := sha(client) + " " + itoa(len(client)); string(got) != want {
			t.Errorf("seed %d: server received %s, client sent %s", seed, got, want)
		}
		if sha(out.Bytes()) != sha(server) {
			t.Errorf("seed %d: client received %d bytes, server sent %d (sha differs)", seed, out.Len(), len(server))
		}
		streams, tags := parseCapture(t, capture.Bytes())
		if !bytes.Equal(streams[0], client) || !bytes.Equal(streams[1], server) {
			t.Errorf("seed %d: capture does not parse back to the streams", seed)
		}
		if !contains(tags, "C->S(EOF)") || !contains(tags, "S->C(EOF)") {
			t.Errorf("seed %d: EOF records missing", seed)
		}
		if !bytes.Equal(sink.streams[0], client) || !bytes.Equal(sink.streams[1], server) {
			t.Errorf("seed %d: the sink did not see the streams exactly", seed)
		}
		if sink.closes != 1 || !sink.complete || !res.ValidationComplete {
			t.Errorf("seed %d: sink closes=%d complete=%v", seed, sink.closes, sink.complete)
		}
		if !contains(sink.ends, "C->S(EOF)") || !contains(sink.ends, "S->C(EOF)") || len(sink.ends) != 2 {
			t.Errorf("seed %d: sink ends %v", seed, sink.ends)
		}
		if res.ClientToServer.Bytes != int64(len(client)) || res.ClientToServer.Forwarded != int64(len(client)) ||
			res.ServerToClient.Bytes != int64(len(server)) || res.ServerToClient.Forwarded != int64(len(server)) ||
			!res.ClientToServer.EOF || !res.ServerToClient.EOF {
			t.Errorf("seed %d: stats %+v %+v", seed, res.ClientToServer, res.ServerToClient)
		}
	}
}

// iotestChunky returns a reader that hands out b in random-sized reads.
func iotestChunky(b []byte, seed uint64) io.Reader {
	return &chunky{b: b, rng: rand.New(rand.NewPCG(seed, 3))}
}

type chunky struct {
	b   []byte
	rng *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := 1 + c.rng.IntN(len(p))
	if n > len(c.b) {
		n = len(c.b)
	}
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func itoa(n int) string { return strconv.Itoa(n) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestTapServerKilledBySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGHUP} {
		argv, env := helperCmd("kill-self", "TAP_SIGNAL="+itoa(int(sig)))
		var out bytes.Buffer
		res := runTap(t, Config{Command: argv, Env: env, Stdout: &out})
		if res.ExitCode != 128+int(sig) || res.Signal != sig {
			t.Errorf("%v: exit %d signal %v, want %d", sig, res.ExitCode, res.Signal, 128+int(sig))
		}
		if out.String() != "x\n" {
			t.Errorf("%v: output %q", sig, out.String())
		}
	}
}

// signalWriter collects output and reports when it contains "ready".
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte("ready\n")) {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

func TestTapForwardsSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		trap string
		want int
	}{
		{syscall.SIGTERM, "1", 7},
		{syscall.SIGINT, "1", 7},
		{syscall.SIGTERM, "0", 128 + 15},
		{syscall.SIGINT, "0", 128 + 2},
	} {
		argv, env := helperCmd("wait-signal", "TAP_TRAP="+tc.trap)
		sigs := make(chan os.Signal, 1)
		w := &signalWriter{ready: make(chan struct{})}
		go func() {
			select {
			case <-w.ready:
				sigs <- tc.sig
			case <-time.After(20 * time.Second):
			}
		}()
		res := runTap(t, Config{Command: argv, Env: env, Stdout: w, Signals: sigs})
		if res.ExitCode != tc.want {
			t.Errorf("%v trap=%s: exit %d, want %d", tc.sig, tc.trap, res.ExitCode, tc.want)
		}
	}
}

// failWriter accepts limit bytes, then fails like a closed pipe.
type failWriter struct {
	n, limit int
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		return 0, syscall.EPIPE
	}
	w.n += len(p)
	return len(p), nil
}

func TestTapClientClosesEarly(t *testing.T) {
	argv, env := helperCmd("flood", "TAP_FLOOD_BYTES="+itoa(1<<30))
	start := time.Now()
	res := runTap(t, Config{Command: argv, Env: env, Stdout: &failWriter{limit: 1 << 20}, Sink: &recSink{}})
	// The Go helper dies of SIGPIPE writing to its closed stdout, as it
	// would with the client directly on its stdout.
	if res.ExitCode != 128+int(syscall.SIGPIPE) {
		t.Errorf("exit %d, want %d", res.ExitCode, 128+int(syscall.SIGPIPE))
	}
	if d := time.Since(start); d > hangGuard {
		t.Errorf("took %v: the tap went on forwarding after the client closed", d)
	}
	if !hasRule(res, RuleClientGone) {
		t.Errorf("no %s notice", RuleClientGone)
	}
}

func hasRule(res *Result, rule string) bool {
	for _, n := range res.Notices {
		if n.Rule == rule {
			return true
		}
	}
	return false
}

func countRule(res *Result, rule string) int {
	k := 0
	for _, n := range res.Notices {
		if n.Rule == rule {
			k++
		}
	}
	return k
}

// hangGuard bounds the tests that check that the tap returns instead of
// waiting for something that never ends (an endless client, a stdin held
// open, a background process holding the server's stdout). It is a hang
// guard, not a speed check: far above what a loaded CI machine needs, far
// below forever.
const hangGuard = 30 * time.Second

// endless is a client that never stops writing.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "abc\n"[i%4]
	}
	return len(p), nil
}

func TestTapServerNeverReads(t *testing.T) {
	argv, env := helperCmd("never-read", "TAP_SLEEP_MS=200")
	var out bytes.Buffer
	start := time.Now()
	res := runTap(t, Config{Command: argv, Env: env, Stdin: endless{}, Stdout: &out, Sink: &recSink{}})
	if res.ExitCode != 3 || out.String() != "bye\n" {
		t.Errorf("exit %d output %q", res.ExitCode, out.String())
	}
	if d := time.Since(start); d > hangGuard {
		t.Errorf("took %v: the tap went on reading the client after the server exited", d)
	}
}

func TestTapStdinHeldOpen(t *testing.T) {
	// The client never closes stdin; the server exits by itself: the tap
	// must return at once.
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte("{\"partial\":")) // a fragment without newline
	argv, env := helperCmd("never-read", "TAP_SLEEP_MS=100")
	var out, capture bytes.Buffer
	start := time.Now()
	sink := &recSink{}
	res := runTap(t, Config{Command: argv, Env: env, Stdin: pr, Stdout: &out, Capture: &capture, Sink: sink})
	if !contains(sink.ends, "C->S(stop)") || !contains(sink.ends, "S->C(EOF)") {
		t.Errorf("sink ends %v", sink.ends)
	}
	if d := time.Since(start); d > hangGuard {
		t.Errorf("took %v: the tap waited for the client's stdin", d)
	}
	if res.ExitCode != 3 || res.ClientToServer.EOF {
		t.Errorf("exit %d, c2s %+v", res.ExitCode, res.ClientToServer)
	}
	streams, tags := parseCapture(t, capture.Bytes())
	if contains(tags, "C->S(EOF)") || !contains(tags, "S->C(EOF)") {
		t.Errorf("tags %v", tags)
	}
	if string(streams[1]) != "bye\n" {
		t.Errorf("s2c %q", streams[1])
	}
	if len(streams[0]) > 0 && !contains(tags, "C->S(no-newline)") {
		t.Errorf("fragment not captured as no-newline: %v", tags)
	}
}

func TestTapDrainTimeout(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// A background process inherits the server's stdout and keeps it open.
	start := time.Now()
	var out bytes.Buffer
	// The background sleep outlives hangGuard, so a tap that waits for it
	// instead of giving up after DrainTimeout fails below; it is killed at
	// the end (it holds the test's stderr, which go test waits for).
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	script := "sleep 45 & echo $! > " + pidFile + "; echo hi"
	res := runTap(t, Config{Command: []string{"sh", "-c", script}, Stdout: &out, DrainTimeout: 200 * time.Millisecond})
	if d := time.Since(start); d > hangGuard {
		t.Errorf("took %v: the tap waited for the background process, not DrainTimeout", d)
	}
	if res.ExitCode != 0 || out.String() != "hi\n" || !hasRule(res, RuleDrainTimeout) {
		t.Errorf("exit %d out %q notices %v", res.ExitCode, out.String(), res.Notices)
	}
}

// TestTapValidationOverflow checks the documented policy: a Sink much slower
// than the traffic never slows forwarding; validation stops for good at the
// first overflow, one warning is reported, the bytes not validated are
// counted, and the Sink is closed with complete=false.
func TestTapValidationOverflow(t *testing.T) {
	const flood = 64 << 20
	argv, env := helperCmd("flood", "TAP_FLOOD_BYTES="+itoa(flood))
	h := &timedWriter{w: sha256.New()}
	var capture bytes.Buffer
	sink := &recSink{delay: time.Millisecond}
	start := time.Now()
	res := runTap(t, Config{Command: argv, Env: env, Stdout: h, Sink: sink, QueueBytes: 256 << 10, Capture: &capture})
	elapsed := time.Since(start)
	forwarding := h.last.Sub(start)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	s2c := res.ServerToClient
	if s2c.Forwarded != s2c.Bytes || s2c.Bytes < flood {
		t.Errorf("forwarded %d of %d", s2c.Forwarded, s2c.Bytes)
	}
	streams, _ := parseCapture(t, capture.Bytes())
	if hex.EncodeToString(h.w.(hash.Hash).Sum(nil)) != sha(streams[1]) || int64(len(streams[1])) != s2c.Bytes {
		t.Errorf("capture and forwarded bytes differ")
	}
	if n := countRule(res, RuleValidationOverflow); n != 1 {
		t.Errorf("%d overflow notices, want 1", n)
	}
	if s2c.Unvalidated == 0 || s2c.Unvalidated >= s2c.Bytes {
		t.Errorf("unvalidated %d of %d", s2c.Unvalidated, s2c.Bytes)
	}
	if sink.closes != 1 || sink.complete || res.ValidationComplete {
		t.Errorf("sink closes=%d complete=%v", sink.closes, sink.complete)
	}
	// Everything the sink saw is a prefix of the stream, in whole lines.
	if !bytes.HasPrefix(streams[1], sink.streams[1]) {
		t.Errorf("sink saw something else than a prefix")
	}
	if res.PeakQueueBytes > 256<<10+readBufSize+chunkOverhead {
		t.Errorf("queue peak %d over its bound", res.PeakQueueBytes)
	}
	frames := flood / 137
	t.Logf("flood of %d frames forwarded in %v; the sink (1 ms/frame) validated %d of them, Run returned after %v (draining the validation queue)",
		frames, forwarding, sink.frames[1], elapsed)
	if forwarding > 5*time.Second {
		t.Errorf("forwarding was slowed down by validation: %v", forwarding)
	}
}

// timedWriter records the time of its last write.
type timedWriter struct {
	w    io.Writer
	last time.Time
}

func (w *timedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.last = time.Now()
	return n, err
}

// TestTapOrdering checks that a response never reaches the Sink before the
// request that caused it (echo server: every S->C line is a C->S line).
func TestTapOrdering(t *testing.T) {
	var in bytes.Buffer
	for i := 0; i < 20000; i++ {
		in.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"ping"}` + "\n")
	}
	argv, env := helperCmd("echo")
	var out, capture bytes.Buffer
	sink := &recSink{order: true}
	res := runTap(t, Config{Command: argv, Env: env, Stdin: iotestChunky(in.Bytes(), 5), Stdout: &out, Sink: sink, Capture: &capture})
	if res.ExitCode != 0 || out.String() != in.String() {
		t.Fatalf("exit %d, %d bytes back", res.ExitCode, out.Len())
	}
	if sink.orderBad != 0 {
		t.Errorf("%d responses reached the sink before their request", sink.orderBad)
	}
	// Same in the capture.
	seen := map[string]bool{}
	for _, rec := range bytes.SplitAfter(capture.Bytes(), []byte{'\n'}) {
		f := bytes.SplitN(rec, []byte{'\t'}, 3)
		if len(f) < 3 {
			continue
		}
		switch string(f[0]) {
		case "C->S":
			seen[string(f[2])] = true
		case "S->C":
			if !seen[string(f[2])] {
				t.Fatalf("capture has a response before its request: %q", f[2])
			}
		}
	}
}

func TestTapOversizedFrames(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 5000) + "\nafter\n" + strings.Repeat("y", 3000)
	for _, withOver := range []bool{false, true} {
		argv, env := helperCmd("echo")
		var out bytes.Buffer
		var sink Sink
		rs := &recSink{}
		ovs := &overSink{}
		if withOver {
			sink = ovs
		} else {
			sink = rs
		}
		res := runTap(t, Config{Command: argv, Env: env, Stdin: strings.NewReader(in), Stdout: &out, Sink: sink, MaxFrameBytes: 1000})
		if out.String() != in {
			t.Fatalf("output differs")
		}
		if withOver {
			if len(ovs.sizes) != 4 || ovs.sizes[0] != 5000 || ovs.sizes[3] != 3000 || string(ovs.streams[0]) != "short\nafter\n" {
				t.Errorf("oversize sink: sizes %v, c2s %q", ovs.sizes, ovs.streams[0])
			}
			if hasRule(res, RuleFrameTooLarge) {
				t.Errorf("tap reported what the sink handles")
			}
		} else if countRule(res, RuleFrameTooLarge) != 4 || string(rs.streams[1]) != "short\nafter\n" {
			t.Errorf("notices %v, s2c %q", res.Notices, rs.streams[1])
		}
	}
}

func TestTapNoSinkNoCapture(t *testing.T) {
	argv, env := helperCmd("echo")
	var out bytes.Buffer
	in := randomStream(9, 40, false)
	res := runTap(t, Config{Command: argv, Env: env, Stdin: bytes.NewReader(in), Stdout: &out})
	if res.ExitCode != 0 || !bytes.Equal(out.Bytes(), in) || res.ValidationComplete {
		t.Errorf("exit %d, equal %v", res.ExitCode, bytes.Equal(out.Bytes(), in))
	}
}

func TestTapStartErrors(t *testing.T) {
	if _, err := Run(context.Background(), Config{}); !errors.Is(err, ErrNoCommand) {
		t.Errorf("no command: %v", err)
	}
	if _, err := Run(context.Background(), Config{Command: []string{"/nonexistent/dshgen-tap-test"}}); err == nil {
		t.Errorf("missing command: no error")
	}
}

// TestTapCases14And15 passes the long-line and framing cases through `cat
// FILE` and checks the bytes arrive unchanged.
func TestTapCases14And15(t *testing.T) {
	files := caseFiles(t)
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var out, capture bytes.Buffer
		sink := &recSink{}
		res := runTap(t, Config{Command: []string{"cat", f}, Stdout: &out, Capture: &capture, Sink: sink})
		if res.ExitCode != 0 || sha(out.Bytes()) != sha(want) {
			t.Errorf("%s: exit %d, sha %s want %s", filepath.Base(f), res.ExitCode, sha(out.Bytes()), sha(want))
		}
		streams, _ := parseCapture(t, capture.Bytes())
		if !bytes.Equal(streams[1], want) || !bytes.Equal(sink.streams[1], want) {
			t.Errorf("%s: capture or sink differ", filepath.Base(f))
		}
	}
}

// caseFiles returns the frame files of cases 14 (generated with its
// make.py into a temp dir) and 15.
func caseFiles(t *testing.T) []string {
	t.Helper()
	cases := filepath.Join("..", "..", "..", "..", "shared", "cases")
	if _, err := os.Stat(cases); err != nil {
		t.Skip("../shared/cases not present")
	}
	files, _ := filepath.Glob(filepath.Join(cases, "15-crlf-bom-final-newline", "*.jsonl"))
	if py, err := exec.LookPath("python3"); err == nil {
		dir := t.TempDir()
		mk, _ := filepath.Abs(filepath.Join(cases, "14-long-frame-lines", "make.py"))
		cmd := exec.Command(py, mk)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case 14 make.py: %v\n%s", err, out)
		}
		f := filepath.Join(dir, "frames.jsonl")
		b, _ := os.ReadFile(f)
		if sha(b) != "fbffe200ceebafd212ca98f2127f8cbc327e49bfff183281a7468ce3b70a14ab" {
			t.Fatalf("case 14 frames.jsonl has sha %s", sha(b))
		}
		files = append(files, f)
	} else {
		t.Log("python3 not found: case 14 skipped")
	}
	if len(files) < 4 {
		t.Fatalf("case files: %v", files)
	}
	return files
}

func TestTapLineSplitter(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for iter := 0; iter < 200; iter++ {
		src := randomStream(uint64(iter), 10, false)
		max := int64(1 + rng.IntN(3<<20))
		s := lineSplitter{max: max}
		var got, want []byte
		var wantOver []int64
		for _, l := range bytes.SplitAfter(src, []byte{'\n'}) {
			if body := bytes.TrimSuffix(l, []byte{'\n'}); int64(len(body)) > max {
				wantOver = append(wantOver, int64(len(body)))
			} else {
				want = append(want, l...)
			}
		}
		var gotOver []int64
		frame := func(line []byte, term bool) {
			got = append(got, line...)
			if term {
				got = append(got, '\n')
			}
		}
		over := func(n int64, term bool) { gotOver = append(gotOver, n) }
		for rest := src; len(rest) > 0; {
			k := 1 + rng.IntN(200000)
			if k > len(rest) {
				k = len(rest)
			}
			s.feed(rest[:k], frame, over)
			rest = rest[k:]
		}
		s.end(frame, over)
		if !bytes.Equal(got, want) {
			t.Fatalf("iter %d: lines differ", iter)
		}
		if len(gotOver) != len(wantOver) {
			t.Fatalf("iter %d: oversize %v want %v", iter, gotOver, wantOver)
		}
		for i := range gotOver {
			if gotOver[i] != wantOver[i] {
				t.Fatalf("iter %d: oversize %v want %v", iter, gotOver, wantOver)
			}
		}
	}
}

// TestTapEOFBeforeValidationAndAbandon: the server's EOF reaches the
// client at once although a slow validator is far behind; a signal after
// the server exited makes Run stop validating and return.
func TestTapEOFBeforeValidationAndAbandon(t *testing.T) {
	for _, signalAfterExit := range []bool{false, true} {
		var in bytes.Buffer
		for i := 0; i < 400; i++ {
			in.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"ping"}` + "\n")
		}
		argv, env := helperCmd("echo")
		pr, pw := io.Pipe()
		eof := make(chan time.Time, 1)
		go func() { io.Copy(io.Discard, pr); eof <- time.Now() }()
		sigs := make(chan os.Signal, 1)
		sink := &recSink{delay: 5 * time.Millisecond} // 800 frames: 4 s
		if signalAfterExit {
			go func() { <-eof; eof <- time.Now(); sigs <- syscall.SIGTERM }()
		}
		start := time.Now()
		res := runTap(t, Config{Command: argv, Env: env, Stdin: bytes.NewReader(in.Bytes()), Stdout: pw, CloseStdout: true, Sink: sink, Signals: sigs})
		end := time.Now()
		sawEOF := <-eof
		if d := sawEOF.Sub(start); d > 2*time.Second { // the validator needs 4 s
			t.Errorf("signal=%v: the client saw EOF %v after the start", signalAfterExit, d)
		}
		if signalAfterExit {
			if res.ValidationComplete || !hasRule(res, RuleValidationAbandoned) || sink.complete || sink.closes != 1 {
				t.Errorf("abandon: complete %v, notices %v, sink complete %v closes %d", res.ValidationComplete, res.Notices, sink.complete, sink.closes)
			}
			if d := end.Sub(start); d > 3*time.Second {
				t.Errorf("abandon: Run took %v", d)
			}
		} else if !res.ValidationComplete || sink.frames[0]+sink.frames[1] != 800 || end.Sub(sawEOF) < time.Second {
			t.Errorf("no signal: complete %v, %d frames, Run returned %v after EOF", res.ValidationComplete, sink.frames[0]+sink.frames[1], end.Sub(sawEOF))
		}
	}
}

// panicSink panics on its n-th frame.
type panicSink struct {
	recSink
	n int
}

func (s *panicSink) Frame(dir string, line []byte, terminated bool, at time.Duration) {
	s.mu.Lock()
	s.n--
	n := s.n
	s.mu.Unlock()
	if n == 0 {
		var m map[string]int
		m["boom"]++ // a nil-map write: the kind of panic a validator bug gives
	}
	s.recSink.Frame(dir, line, terminated, at)
}

// TestTapSinkPanic: a panic in the validator neither ends the tap nor cuts
// the traffic: every byte of both directions is forwarded and captured,
// the tap reports tap.validator-panic once and returns the server's own
// exit status, with validation marked incomplete.
func TestTapSinkPanic(t *testing.T) {
	argv, env := helperCmd("sha-and-emit", "TAP_SEED=5", "TAP_LINES=200", "TAP_EXIT=7", "TAP_SHA_FILE="+filepath.Join(t.TempDir(), "sha"))
	in := randomStream(6, 200, false)
	var out, capture bytes.Buffer
	sink := &panicSink{n: 3}
	res := runTap(t, Config{Command: argv, Env: env, Stdin: bytes.NewReader(in), Stdout: &out, Capture: &capture, Sink: sink})
	if res.ExitCode != 7 {
		t.Errorf("exit %d, want the server's 7", res.ExitCode)
	}
	want := randomStream(5, 200, false)
	if !bytes.Equal(out.Bytes(), want) || res.ClientToServer.Forwarded != int64(len(in)) {
		t.Errorf("forwarded S->C %d of %d bytes, C->S %d of %d", out.Len(), len(want), res.ClientToServer.Forwarded, len(in))
	}
	streams, _ := parseCapture(t, capture.Bytes())
	if !bytes.Equal(streams[0], in) || !bytes.Equal(streams[1], want) {
		t.Errorf("capture incomplete")
	}
	if res.ValidationComplete {
		t.Errorf("validation marked complete after a panic")
	}
	n := 0
	for _, no := range res.Notices {
		if no.Rule == RuleValidatorPanic {
			n++
			if !strings.Contains(no.Message, "nil map") {
				t.Errorf("notice: %s", no.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d tap.validator-panic notices, want 1: %+v", n, res.Notices)
	}
	if sink.frames[0]+sink.frames[1] != 2 {
		t.Errorf("the sink got %d frames after it broke", sink.frames[0]+sink.frames[1]-2)
	}
}

// TestTapCountsUnterminatedLine: a last line without "\n" is counted as a
// line, in both directions, and marked Unterminated; a stream that ends
// with "\n" is not; the bytes forwarded and captured are the same either
// way.
func TestTapCountsUnterminatedLine(t *testing.T) {
	for _, c := range []struct {
		in, extra          string
		c2sLines, s2cLines int64
		c2sOpen, s2cOpen   bool
	}{
		{"1\n2\n3", `x\ny`, 3, 4, true, true}, // S->C: "1\n2\n3x\ny"
		{"1\n2\n", `x\n`, 2, 3, false, false},
		{"", "", 0, 0, false, false},
		{"", `z`, 0, 1, false, true},
	} {
		var out, capture bytes.Buffer
		res := runTap(t, Config{Command: []string{"sh", "-c", `cat; printf '` + c.extra + `'`}, Stdin: strings.NewReader(c.in), Stdout: &out, Capture: &capture})
		wantOut := c.in + strings.ReplaceAll(c.extra, `\n`, "\n")
		if out.String() != wantOut {
			t.Errorf("%q: forwarded %q, want %q", c.in, out.String(), wantOut)
		}
		streams, _ := parseCapture(t, capture.Bytes())
		if string(streams[0]) != c.in || string(streams[1]) != wantOut {
			t.Errorf("%q: captured %q / %q", c.in, streams[0], streams[1])
		}
		cs, sc := res.ClientToServer, res.ServerToClient
		if cs.Lines != c.c2sLines || cs.Unterminated != c.c2sOpen || sc.Lines != c.s2cLines || sc.Unterminated != c.s2cOpen {
			t.Errorf("%q + %q: C->S %d lines (unterminated %v), S->C %d (unterminated %v); want %d (%v), %d (%v)",
				c.in, c.extra, cs.Lines, cs.Unterminated, sc.Lines, sc.Unterminated, c.c2sLines, c.c2sOpen, c.s2cLines, c.s2cOpen)
		}
		if cs.Bytes != int64(len(c.in)) || sc.Bytes != int64(len(wantOut)) || cs.Forwarded != cs.Bytes || sc.Forwarded != sc.Bytes {
			t.Errorf("%q: bytes %+v %+v", c.in, cs, sc)
		}
	}
}

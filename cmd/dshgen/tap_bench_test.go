package main

// Benchmarks of `dshgen tap` as a subprocess (the binary TestMain built),
// with the helper servers of gen/wire/tap/taptest run by this test binary:
//
//	go test ./cmd/dshgen -run '^$' -bench Tap -benchtime 20000x -count 3
//
// DSHGEN_BENCH_BIN=path runs that dshgen binary instead of this tree's
// (for A/B comparisons).
//
// Both start measuring after benchWarmup (the tap compiles the schema at
// start, beside the server's own start: frames of the first ~0.1 s wait
// for validation, never for forwarding, but share the CPU with it).
//
// BenchmarkTapRoundTrip: one request in flight at a time (a session/prompt
// frame of 232 bytes, answered at once by the "respond" server), measured
// from before the client's write to after it has read the whole response
// line; p50/p99 in µs. "direct" is the same client and server without the
// tap; the tap's added latency is the difference.
//
// BenchmarkTapThroughput: the "replay" server writes b.N real
// session.event/session.status frames (from the real-capture fixtures,
// renamed per repetition so every repetition is a fresh, valid session) as
// fast as the client reads them; frames/s and MB/s at the client (until the
// server's EOF arrives), whether validation saw every frame
// (validated-all = 1: no overflow) and, if so, validated-frames/s: frames
// per second until the tap exited, which it does once the validator has
// caught up. With -benchtime 20000x the frames fit into the validation
// queue; with 200000x they do not, and the overflow policy shows
// (validated-all 0, forwarding as fast).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/wire/tap/taptest"
)

type benchMode struct {
	name    string
	tapArgs []string // nil: no tap
}

func benchModes(dir string) []benchMode {
	return []benchMode{
		{"direct", nil},
		{"tap-no-validate", []string{"--no-validate", "--report", os.DevNull}},
		{"tap-validate", []string{"--report", filepath.Join(dir, "report.json"), "--format", "jsonl"}},
		{"tap-validate-capture", []string{"--report", filepath.Join(dir, "report.json"), "--format", "jsonl", "--capture", filepath.Join(dir, "capture.log")}},
	}
}

// startBenchPeer starts helper mode behind the tap (or directly).
func startBenchPeer(b *testing.B, m benchMode, mode string, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	b.Helper()
	argv, environ := taptest.HelperCmd(mode, env...)
	if m.tapArgs != nil {
		bin := dshgenBin
		if alt := os.Getenv("DSHGEN_BENCH_BIN"); alt != "" {
			bin = alt // compare another build of dshgen
		}
		argv = append(append(append([]string{bin, "tap"}, m.tapArgs...), "--"), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = environ
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return cmd, in, bufio.NewReaderSize(out, 1<<20)
}

// benchWarmup lets the tap finish compiling the schema (~0.1 s of CPU,
// done beside the server's start) before anything is measured.
const benchWarmup = time.Second

const benchInit = `{"jsonrpc":"2.0","id":"req_init","method":"initialize","params":{"cwd":"/tmp/bench","provider":"deepseek-official","model":"deepseek-v4-flash"}}` + "\n"

func BenchmarkTapRoundTrip(b *testing.B) { benchRoundTrip(b, 0) }

// BenchmarkTapRoundTripPaced is BenchmarkTapRoundTrip with one request
// every millisecond (live traffic: the validator is mostly idle), instead
// of back to back (the validator then works all the time, on the same 2
// cores as the client, the server and the forwarding).
func BenchmarkTapRoundTripPaced(b *testing.B) { benchRoundTrip(b, time.Millisecond) }

func benchRoundTrip(b *testing.B, every time.Duration) {
	dir := b.TempDir()
	for _, m := range benchModes(dir) {
		b.Run(m.name, func(b *testing.B) {
			cmd, in, out := startBenchPeer(b, m, "respond")
			if _, err := io.WriteString(in, benchInit); err != nil {
				b.Fatal(err)
			}
			if _, err := out.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
			time.Sleep(benchWarmup)
			lat := make([]time.Duration, 0, b.N)
			var req []byte
			next := time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req = fmt.Appendf(req[:0], `{"jsonrpc":"2.0","id":"req_%032d","method":"session/prompt","params":{"sessionId":"bench-%d","contentBlocks":[{"type":"text","text":"Say hello."}]}}`+"\n", i, i)
				if every > 0 {
					next = next.Add(every)
					time.Sleep(time.Until(next))
				}
				t0 := time.Now()
				if _, err := in.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			in.Close()
			io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			slices.Sort(lat)
			pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e3 }
			b.ReportMetric(pct(0.50), "p50-µs")
			b.ReportMetric(pct(0.99), "p99-µs")
			b.ReportMetric(pct(0.999), "p99.9-µs")
			if m.tapArgs != nil && m.tapArgs[0] != "--no-validate" {
				reportValidation(b, filepath.Join(dir, "report.json"))
			}
		})
	}
}

func BenchmarkTapThroughput(b *testing.B) {
	fx := filepath.Join("..", "..", "..", "shared", "fixtures", "real-captures")
	var files []string
	frames := 0
	for _, sc := range []string{"text-turn", "bash-tool", "parallel-sessions"} {
		f := filepath.Join(fx, sc, "server-to-client.jsonl")
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Skip("real-capture fixtures not present")
		}
		frames += strings.Count(string(raw), `"method":"session.`)
		files = append(files, f)
	}
	dir := b.TempDir()
	for _, m := range benchModes(dir) {
		b.Run(m.name, func(b *testing.B) {
			repeat := b.N/frames + 1
			cmd, in, out := startBenchPeer(b, m, "replay", "TAP_WAIT_INIT=1", "TAP_REPEAT="+strconv.Itoa(repeat), "TAP_REPLAY_FILES="+strings.Join(files, ":"))
			time.Sleep(benchWarmup)
			b.ResetTimer()
			t0 := time.Now()
			io.WriteString(in, benchInit)
			var n, bytes int64
			for {
				line, err := out.ReadSlice('\n')
				bytes += int64(len(line))
				if err == bufio.ErrBufferFull {
					continue
				}
				if err != nil {
					break
				}
				n++
			}
			el := time.Since(t0)
			b.StopTimer()
			in.Close()
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			untilExit := time.Since(t0)
			if want := int64(repeat*frames + 1); n != want {
				b.Fatalf("read %d frames, want %d", n, want)
			}
			b.ReportMetric(float64(n)/el.Seconds(), "frames/s")
			b.ReportMetric(float64(bytes)/el.Seconds()/1e6, "MB/s")
			if m.tapArgs != nil && m.tapArgs[0] != "--no-validate" {
				if reportValidation(b, filepath.Join(dir, "report.json")) {
					// The tap exits once the validator has caught up.
					b.ReportMetric(float64(n)/untilExit.Seconds(), "validated-frames/s")
				}
			}
		})
	}
}

// reportValidation reads the tap's JSON report summary and reports whether
// validation saw everything and how many errors it found; it returns the
// former.
func reportValidation(b *testing.B, path string) bool {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var s struct {
		Kind               string `json:"kind"`
		ValidationComplete bool   `json:"validationComplete"`
		Errors             int    `json:"errors"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil || s.Kind != "summary" {
		b.Fatalf("report summary: %v %q", err, lines[len(lines)-1])
	}
	all := 0.0
	if s.ValidationComplete {
		all = 1
	}
	b.ReportMetric(all, "validated-all")
	b.ReportMetric(float64(s.Errors), "errors")
	return s.ValidationComplete
}

package conformance

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/emit/golang"
	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/emit/python"
	"github.com/dshgen/dshgen/gen/emit/typescript"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
)

// fakeEnv makes the test binary a fake driver (see fakeDriver).
const fakeEnv = "DSHGEN_CONFORMANCE_FAKE_DRIVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeDriver(mode))
	}
	os.Exit(m.Run())
}

// fakeDriver speaks driver protocol 1 and echoes every frame, misbehaving
// on frames carrying a marker: CRASH exits 3 with a message on stderr,
// HALF writes half an answer and exits, HANG never answers, KILL kills
// itself with SIGKILL, WRONGSEQ answers with the wrong sequence number,
// FFFD answers with \ud800 replaced by \ufffd (what encoding/json does).
// Mode "nohandshake" fails its set-up instead.
func fakeDriver(mode string) int {
	if mode == "nohandshake" {
		fmt.Fprintln(os.Stderr, "fake driver: no bindings under /nowhere")
		return 2
	}
	fmt.Println(Handshake)
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return 0
		}
		head, f, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		var seq int
		fmt.Sscanf(head, `{"seq":%d`, &seq)
		switch {
		case strings.Contains(f, "CRASH"):
			fmt.Fprintf(os.Stderr, "Traceback (most recent call last):\n  File \"driver.py\", line 1\nRuntimeError: boom on seq %d\n", seq)
			return 3
		case strings.Contains(f, "HALF"):
			fmt.Printf("%d\t{\"jsonrpc\"", seq)
			return 4
		case strings.Contains(f, "HANG"):
			time.Sleep(time.Hour)
		case strings.Contains(f, "KILL"):
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Kill() // SIGKILL
			}
			time.Sleep(time.Hour)
		case strings.Contains(f, "WRONGSEQ"):
			seq++
		case strings.Contains(f, "FFFD"):
			f = strings.ReplaceAll(f, `\ud800`, `\ufffd`)
		}
		fmt.Printf("%d\t%s\n", seq, f)
	}
}

func fake(t *testing.T, mode string) Driver {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Driver{Lang: "fake", Cmd: []string{exe}, Env: []string{fakeEnv + "=" + mode}, Stall: 3 * time.Second}
}

// note builds a valid notification frame carrying s.
func note(file string, line int, s string) *InputFrame {
	return &InputFrame{File: file, Line: line, Valid: true, Raw: []byte(`{"jsonrpc":"2.0","method":"x/note","params":{"s":"` + s + `"}}`)}
}

func whats(ms []Mismatch) map[int]string {
	out := map[int]string{}
	for _, m := range ms {
		out[m.Line] = m.What
	}
	return out
}

// TestDriverDeathsBlameTheFrame: a driver that dies, hangs, writes half a
// line, is killed or answers out of turn is blamed on exactly that frame
// with the reason, the answers before it are kept and the frames after it
// are still checked (by a restarted driver).
func TestDriverDeathsBlameTheFrame(t *testing.T) {
	var frames []*InputFrame
	markers := map[int]string{3: "CRASH", 5: "HALF", 7: `FFFD a\ud800b`, 9: "HANG", 11: "KILL", 13: "WRONGSEQ"}
	for l := 1; l <= 15; l++ {
		frames = append(frames, note("in.jsonl", l, "ok "+markers[l]))
	}
	ms, err := fake(t, "echo").check(context.Background(), frames)
	if err != nil {
		t.Fatal(err)
	}
	got := whats(ms)
	want := map[int]string{
		3:  "the driver died on this frame: exit status 3: RuntimeError: boom on seq 3",
		5:  "the driver died on this frame: exit status 4",
		7:  `re-encodes differently: "ok FFFD a\ud800b" vs "ok FFFD a\ufffdb"`,
		9:  "the driver died on this frame: no answer within 3s (killed)",
		11: "the driver died on this frame: killed by signal killed",
		13: `the driver died on this frame: protocol error: expected the answer to frame 13, got "14\t{\"jsonrpc\":\"2.0\",\"method\":\"x/note\",\"params\":{\"s\":\"ok WRONGSEQ\"}}" (killed)`,
	}
	for l, w := range want {
		if got[l] != w {
			t.Errorf("line %d: got %q\nwant %q", l, got[l], w)
		}
	}
	if len(ms) != len(want) {
		t.Errorf("%d mismatches, want %d: %v", len(ms), len(want), ms)
	}
}

// TestDriverKeepsDying: after MaxDeaths deaths the frames left are reported
// as not checked, one entry per input, counting them.
func TestDriverKeepsDying(t *testing.T) {
	var frames []*InputFrame
	for l := 1; l <= 6; l++ {
		frames = append(frames, note("a.jsonl", l, "CRASH"))
	}
	frames = append(frames, note("b.jsonl", 1, "CRASH"), note("b.jsonl", 2, "fine"))
	d := fake(t, "echo")
	d.MaxDeaths = 3
	ms, err := d.check(context.Background(), frames)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 5 || ms[3].File != "a.jsonl" || ms[3].Line != 4 || ms[3].Frames != 3 || ms[4].File != "b.jsonl" || ms[4].Frames != 2 ||
		!strings.HasPrefix(ms[3].What, "not checked: the driver died 3 times") {
		t.Fatalf("got %+v", ms)
	}
}

// TestDriverDoesNotStart: a driver that fails before its handshake is a
// setup error carrying its stderr, not a frame failure.
func TestDriverDoesNotStart(t *testing.T) {
	_, err := fake(t, "nohandshake").check(context.Background(), []*InputFrame{note("a.jsonl", 1, "x")})
	if err == nil || !strings.Contains(err.Error(), "did not start: exit status 2: fake driver: no bindings under /nowhere") {
		t.Fatalf("err = %v", err)
	}
}

// nest returns a JSON array nested n levels deep.
func nest(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// deepFrames are frames at the depth limit, through a JsonValue member
// (an unknown member of an open object, an error's data) and through the
// bindings' own recursion (ContentBlock → ToolResultBlock.content), among
// ordinary frames, plus a string with a lone surrogate.
func deepFrames(t *testing.T) []*InputFrame {
	status := `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle"}}`
	var out []*InputFrame
	add := func(raw, method string) {
		out = append(out, &InputFrame{File: "deep.jsonl", Line: len(out) + 1, Valid: true, Raw: []byte(raw), Method: method})
	}
	for i := 1; i <= 100; i++ {
		if i == 51 {
			add(`{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle","x":`+nest(frame.MaxDepth-2)+`}}`, "")
		}
		add(status, "")
	}
	add(`{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"m","data":{"d":`+nest(frame.MaxDepth-3)+`}}}`, "")
	// 5 levels around the content, 2 per tool-result block.
	n := (frame.MaxDepth - 5) / 2
	add(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"","event":{"type":"user/message","seq":0,"time":0,"data":{"id":"x","role":"user","content":[`+
		strings.Repeat(`{"type":"tool-result","toolCallId":"","content":[`, n)+strings.Repeat(`]}`, n)+`],"source":{"kind":"user"}},"surfaceOp":"append"}}}`, "")
	add(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m","x":`+nest(frame.MaxDepth-3)+`}}`, "")
	add(`{"jsonrpc":"2.0","id":"i","result":{"serverInfo":{"name":"n","version":"v"},"x":`+nest(frame.MaxDepth-3)+`}}`, "initialize")
	add(`{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"a\ud800b"}}`, "")
	for _, f := range out {
		if d := frame.Depth(f.Raw); d > frame.MaxDepth || (d < frame.MaxDepth-1 && d > 3) {
			t.Fatalf("frame %d nests %d levels", f.Line, d)
		}
	}
	return out
}

// bindings generates the shipped schema's bindings into a temporary
// directory.
func bindings(t *testing.T) Bindings {
	t.Helper()
	m, err := ir.Load(filepath.Join("..", "..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, emit := range []func(*ir.Model, ir.Options) ([]ir.File, error){golang.Emit, python.Emit, typescript.Emit} {
		files, err := emit(m, ir.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := output.Write([]output.Target{{Dir: dir, Files: files, NoManifest: true}}); err != nil {
			t.Fatal(err)
		}
	}
	return Bindings{Dir: dir, Package: "dshproto"}
}

// tools finds the interpreters, skipping a language whose tools are absent
// unless CI requires them (DSHGEN_PYTHON set, DSHGEN_REQUIRE_TSC set).
func tools(t *testing.T, lang string) Tools {
	t.Helper()
	ts, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "ts", "node_modules", "typescript"))
	tl := Tools{Python: os.Getenv("DSHGEN_PYTHON"), TypeScript: ts}
	switch lang {
	case "python":
		if _, err := exec.LookPath(orDefault(tl.Python, "python3")); err != nil {
			if tl.Python != "" {
				t.Fatalf("DSHGEN_PYTHON=%s: %v", tl.Python, err)
			}
			t.Skip("python3 not found")
		}
	case "ts":
		_, errNode := exec.LookPath("node")
		_, errTS := os.Stat(filepath.Join(ts, "package.json"))
		if errNode != nil || errTS != nil {
			if os.Getenv("DSHGEN_REQUIRE_TSC") != "" {
				t.Fatalf("node or TypeScript missing (npm ci in testdata/ts): %v %v", errNode, errTS)
			}
			t.Skip("node or TypeScript (testdata/ts, npm ci) missing")
		}
	}
	return tl
}

// TestDriversDeepValues: each language's driver round-trips frames nested
// to frame.MaxDepth, through JsonValue members and through the bindings'
// own recursive types, among 100 ordinary frames; a lone surrogate comes
// back exactly from Python and TypeScript, and the Go bindings' change of
// it to U+FFFD (encoding/json) is a mismatch at its line.
func TestDriversDeepValues(t *testing.T) {
	b := bindings(t)
	frames := deepFrames(t)
	for _, lang := range Langs {
		t.Run(lang, func(t *testing.T) {
			tl := tools(t, lang)
			d, err := Setup(lang, b, t.TempDir(), tl)
			if err != nil {
				t.Fatal(err)
			}
			// This test is about depth, not speed: the Go bindings take
			// time quadratic in the depth of a recursive type (about 10 s
			// of CPU for the ContentBlock frame, README.md), which on a
			// loaded machine can pass the default stall.
			d.Stall = 20 * time.Minute
			ms, err := d.check(context.Background(), frames)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int]string{}
			if lang == "go" {
				want[len(frames)] = `re-encodes differently: "a\ud800b" vs "a\ufffdb"`
			}
			got := whats(ms)
			if len(got) != len(want) {
				t.Errorf("mismatches: %v", ms)
			}
			for l, w := range want {
				if got[l] != w {
					t.Errorf("line %d: got %q, want %q", l, got[l], w)
				}
			}
		})
	}
}

// TestPythonIterativeJSON: the Python driver's iterative reader and writer
// (used where json.loads / json.dumps hit the recursion limit) give what
// the json module gives, for every vector frame and for edge values.
func TestPythonIterativeJSON(t *testing.T) {
	tl := tools(t, "python")
	dir := t.TempDir()
	src, err := driverFiles.ReadFile("drivers/python/driver.py")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "driver.py"), src, 0o644)
	valid, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "conformance", "valid.log"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, l := range strings.Split(strings.TrimSpace(string(valid)), "\n") {
		texts = append(texts, l[strings.LastIndexByte(l, '\t')+1:])
	}
	texts = append(texts, `"\ud800 \udfff \ud83d\ude00 \u0000 é"`, `[1e400, -0.0, 1.5e-7, 123456789012345678901234567890, -0]`, ` { "a" : [ ] , "b" : { } } `, `{"a":1,"a":2}`, nest(3000))
	os.WriteFile(filepath.Join(dir, "texts.txt"), []byte(strings.Join(texts, "\n")+"\n"), 0o644)
	check := `
import json, sys
sys.setrecursionlimit(20000)
import driver
n = 0
for line in open("texts.txt", encoding="utf-8"):
    text = line.rstrip("\n")
    try:
        want = json.loads(text)
    except RecursionError:  # Python 3.12 caps json's C recursion near 1500 levels
        assert driver.dumps_iterative(driver.loads_iterative(text)) == text
        n += 1
        continue
    got = driver.loads_iterative(text)
    assert got == want and repr(got) == repr(want), (text[:80], got, want)
    if "1e400" not in text:
        d1 = json.dumps(want, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        d2 = driver.dumps_iterative(want)
        assert d1 == d2, (d1[:200], d2[:200])
    n += 1
for bad in ["[1,]", "{\"a\"}", "01", "[1 2]", "tru", "{\"a\":1,}", "[", "", "NaN", "[1]x"]:
    try:
        driver.loads_iterative(bad)
    except ValueError:
        continue
    raise AssertionError("accepted " + bad)
print(n)
`
	cmd := exec.Command(orDefault(tl.Python, "python3"), "-c", check)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != fmt.Sprint(len(texts)) {
		t.Fatalf("%v\n%s", err, out)
	}
}

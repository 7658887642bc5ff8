package emit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/emit"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/tap"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// mcpTapEnv makes the test binary a tap (gen/wire/tap) between a peer
// client on its stdio and the server command in its arguments, writing the
// interleaved capture to the file the variable names.
const mcpTapEnv = "DSHGEN_MCP_TAP_CAPTURE"

func TestMain(m *testing.M) {
	if capture := os.Getenv(mcpTapEnv); capture != "" {
		os.Exit(mcpTap(capture, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// mcpTap runs the tap between this process's stdio and argv, capturing the
// traffic into the file capture; it returns the server's exit status.
func mcpTap(capture string, argv []string) int {
	f, err := os.Create(capture)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	defer f.Close()
	res, err := tap.Run(context.Background(), tap.Config{
		Command: argv, Stdin: os.Stdin, Stdout: os.Stdout, CloseStdout: true, Stderr: os.Stderr, Capture: f,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	return res.ExitCode
}

// mcpSchema is the published MCP schema the peers are generated from, as
// it is (no overlay).
const mcpSchema = "mcp/2025-11-25/schema.json"

// mcpTranscript is the transcript every client prints against every server.
var mcpTranscript = filepath.Join(root, "testdata", "mcp-sdk", "transcript.jsonl")

// mcpPeers builds the peer programs of testdata/mcp-sdk against the SDK
// generated from the published MCP 2025-11-25 schema into work (see
// buildPeers) and returns each language's command line (without its
// "client"/"server" argument) and the environment they need.
func mcpPeers(t *testing.T, m *ir.Model, work string) (map[string][]string, []string) {
	t.Helper()
	return buildPeers(t, m, "mcp", "example.com/mcppeers", filepath.Join(root, "testdata", "mcp-sdk"), work)
}

// buildPeers generates m's SDK as package pkg in all three languages into
// work and builds the peers of src against it (src/go/main.go in the Go
// module named module, one go build; src/ts/peer.ts, one tsc run;
// src/python/peer.py runs from source, checked by mypy --strict with the
// Python checks' venv when DSHGEN_PYTHON is set). It returns each
// language's command line and the environment the peers need.
func buildPeers(t *testing.T, m *ir.Model, pkg, module, src, work string) (map[string][]string, []string) {
	t.Helper()
	tsc := tscPath(t)
	py := pythonExe(t)
	var files []ir.File
	for _, e := range emit.All {
		fs, err := e.Emit(m, ir.Options{Package: pkg, Version: goldenVersion})
		if err != nil {
			t.Fatalf("%s emitter: %v", e.Lang, err)
		}
		files = append(files, fs...)
	}
	for _, lang := range []string{"go", "python", "ts"} {
		writeUnder(t, work, files, lang)
	}
	copyIn := func(from, to string) {
		raw, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, to), raw)
	}

	copyIn("go/main.go", "go/peer/main.go")
	writeFile(t, filepath.Join(work, "go", "go.mod"), []byte("module "+module+"\n\ngo 1.26\n"))
	goBin := filepath.Join(work, "bin", "peer")
	run(t, filepath.Join(work, "go"), []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "go", "build", "-trimpath", "-o", goBin, "./peer") // -trimpath: cached by content (TestGoldenGo)

	copyIn("ts/peer.ts", "ts/peer/peer.ts")
	opts := generatedCompilerOptions(t, filepath.Join(work, "ts", "tsconfig.json"))
	opts["rootDir"] = "."
	opts["declaration"] = false
	opts["typeRoots"] = []string{nodeTypes(t)}
	top, err := json.Marshal(map[string]any{"compilerOptions": opts, "include": []string{"src", "peer"}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "ts", "tsconfig.json"), top)
	runTSC(t, tsc, "-p", filepath.Join(work, "ts", "tsconfig.json"))
	if t.Failed() {
		t.FailNow()
	}

	copyIn("python/peer.py", "python/peer.py")
	if os.Getenv("DSHGEN_PYTHON") != "" {
		// The Python checks' venv has mypy: the peer type-checks against the
		// generated package as the Go and TypeScript peers do by compiling.
		// With its cache snapshot (runMypy: gen/internal/mypycache), one slot per package name.
		runMypy(t, filepath.Join(work, "python"), nil, py, "peers-"+pkg, "--strict", "peer.py")
	}
	return map[string][]string{
			"go":     {goBin},
			"python": {py, filepath.Join(work, "python", "peer.py")},
			"ts":     {"node", filepath.Join(work, "ts", "dist", "peer", "peer.js")},
		}, []string{
			"PYTHONPATH=" + filepath.Join(work, "python"), "PYTHONDONTWRITEBYTECODE=1",
		}
}

// canonicalLines re-encodes each JSON line with sorted keys (the languages
// order members differently; the values must agree).
func canonicalLines(out []byte) ([]string, error) {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%q: %v", l, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		lines = append(lines, string(b))
	}
	return lines, nil
}

// TestMCPSDKPeers: an MCP client and server written against the SDK
// generated (in Go, Python and TypeScript) from the published MCP
// 2025-11-25 schema talk over stdio in all nine client×server pairs, each
// through the tap: initialize and notifications/initialized, ping both
// ways, tools/list, tools/call with structured content during which the
// server asks the client sampling/createMessage and roots/list, pings it,
// gets -32601 for a method the client does not serve and sends
// notifications/progress, a tool error (-32602 with data) and -32601 for a
// method the server does not serve. Every client's transcript equals
// testdata/mcp-sdk/transcript.jsonl (-update rewrites it from the Go pair),
// and every capture validates against the schema with no finding but the
// two peer/unknown requests' method.unknown.
func TestMCPSDKPeers(t *testing.T) {
	shared := sharedProtocols(t)
	m, err := ir.LoadSource(ir.Source{Path: filepath.Join(shared, mcpSchema)})
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	peers, env := mcpPeers(t, m, work)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	langs := []string{"go", "python", "ts"}
	type outcome struct {
		lines   []string
		capture string
	}
	var mu sync.Mutex
	got := map[string]outcome{}
	t.Run("pairs", func(t *testing.T) {
		for _, c := range langs {
			for _, s := range langs {
				pair := c + "-client-" + s + "-server"
				t.Run(pair, func(t *testing.T) {
					t.Parallel()
					capture := filepath.Join(work, pair+".capture")
					argv := append(append([]string{}, peers[c]...), "client", self)
					argv = append(append(argv, peers[s]...), "server")
					lines := runPeer(t, argv, append(append([]string{}, env...), mcpTapEnv+"="+capture))
					mu.Lock()
					got[pair] = outcome{lines, capture}
					mu.Unlock()
				})
			}
		}
		// A server that reads the initialize request, answers a line of
		// garbage and half a frame, and exits: each client reports the two
		// lines it dropped and the closed transport, and exits.
		bad := []string{"sh", "-c", `read -r line; printf 'not json\n{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":'`}
		for _, c := range langs {
			t.Run(c+"-client-bad-server", func(t *testing.T) {
				t.Parallel()
				argv := append(append(append([]string{}, peers[c]...), "client"), bad...)
				lines := runPeer(t, argv, env)
				want := `{"lines":2,"step":"dropped"}` + "\n" + `{"error":"transport closed","step":"initialize"}`
				if strings.Join(lines, "\n") != want {
					t.Errorf("transcript:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	if len(got) != len(langs)*len(langs) {
		t.Fatalf("%d pairs ran, want %d", len(got), len(langs)*len(langs))
	}
	if *update {
		writeFile(t, mcpTranscript, []byte(strings.Join(got["go-client-go-server"].lines, "\n")+"\n"))
	}
	raw, err := os.ReadFile(mcpTranscript)
	if err != nil {
		t.Fatalf("%v (go test ./gen/emit -run TestMCPSDKPeers -update writes it)", err)
	}
	want, err := canonicalLines(raw)
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(m, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for pair, o := range got {
		if strings.Join(o.lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: transcript differs from %s:\ngot:\n%s\nwant:\n%s", pair, mcpTranscript,
				strings.Join(o.lines, "\n"), strings.Join(want, "\n"))
		}
		f, err := os.Open(o.capture)
		if err != nil {
			t.Fatal(err)
		}
		// The two peer/unknown requests (client to server, server to
		// client) are the only frames the schema does not know.
		var findings []string
		unknown := 0
		res, err := v.ValidateStream(f, validate.Input{Name: pair}, func(fd validate.Finding) {
			if fd.Rule == "method.unknown" && fd.Method == "peer/unknown" {
				unknown++
				return
			}
			findings = append(findings, validate.TextLine(&fd))
		})
		f.Close()
		if err != nil {
			t.Fatalf("%s: validate: %v", pair, err)
		}
		if res.Frames < len(want) {
			t.Errorf("%s: the capture holds %d frames", pair, res.Frames)
		}
		if unknown != 2 {
			t.Errorf("%s: %d method.unknown findings for peer/unknown, want 2", pair, unknown)
		}
		for _, l := range findings {
			t.Errorf("%s: %s", pair, l)
		}
	}
}

// runPeer runs a client peer (argv, with env added to the environment; two
// minutes at most) and returns its transcript's lines, canonical.
func runPeer(t *testing.T, argv, env []string) []string {
	t.Helper()
	lines, _ := runPeerStderr(t, argv, env)
	return lines
}

// runPeerStderr is runPeer that also returns what the peer (and whatever
// it passed its stderr on to) wrote to stderr.
func runPeerStderr(t *testing.T, argv, env []string) ([]string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v (%v)\nstdout:\n%s\nstderr:\n%s", err, ctx.Err(), out, stderr.String())
	}
	lines, err := canonicalLines(out)
	if err != nil {
		t.Fatal(err)
	}
	return lines, stderr.String()
}

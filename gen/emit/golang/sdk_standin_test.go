package golang_test

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

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// standInEnv makes the test binary the stand-in runtime on its stdio
// (TestMain), so a published client can spawn it as its server command.
const standInEnv = "DSHGEN_GO_STANDIN_RUNTIME"

func TestMain(m *testing.M) {
	if os.Getenv(standInEnv) == "1" {
		sc := dshproto.NewServerConn(os.Stdin, os.Stdout, nil)
		err := sc.Serve(&standIn{conn: sc, seq: map[string]int64{}})
		if err != nil {
			fmt.Fprintln(os.Stderr, "stand-in runtime:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// standInReply is the text every turn of the stand-in runtime answers.
const standInReply = "Hello from the Go stand-in runtime."

// standIn is a scripted runtime written against the generated Server
// interface: each prompt gets a message id, then the turn's receipt, a
// running status, a finish chunk, the assistant message and the idle status,
// as the real runtime sends them.
type standIn struct {
	conn *dshproto.ServerConn
	mu   sync.Mutex
	seq  map[string]int64
}

func (s *standIn) Initialize(ctx context.Context, p *dshproto.InitializeParams) (*dshproto.InitializeResult, error) {
	if p.MaxTokens != nil && *p.MaxTokens <= 0 {
		return nil, fmt.Errorf("initialize maxTokens must be a positive safe integer")
	}
	return &dshproto.InitializeResult{ServerInfo: dshproto.ServerInfo{Name: "go-stand-in", Version: "0.0.1"}}, nil
}

func (s *standIn) SessionPrompt(ctx context.Context, p *dshproto.SessionPromptParams) (*dshproto.SessionPromptResult, error) {
	id := fmt.Sprintf("msg-%d", time.Now().UnixNano())
	content, err := json.Marshal(p.ContentBlocks)
	if err != nil {
		return nil, err
	}
	go s.turn(p.SessionID, id, content)
	return &dshproto.SessionPromptResult{MessageID: id}, nil
}

func (s *standIn) Shutdown(ctx context.Context, p *dshproto.ShutdownParams) (*dshproto.ShutdownResult, error) {
	go func() { time.Sleep(50 * time.Millisecond); s.conn.Close() }()
	return &dshproto.ShutdownResult{}, nil
}

// event decodes one scripted event of session into its typed form.
func (s *standIn) event(session, typ, data, extra string) dshproto.SessionEvent {
	s.mu.Lock()
	seq := s.seq[session]
	s.seq[session]++
	s.mu.Unlock()
	raw := fmt.Sprintf(`{"type":%q,"seq":%d,"time":%d,"data":%s%s}`, typ, seq, time.Now().UnixMilli(), data, extra)
	ev, err := dshproto.DecodeSessionEvent(json.RawMessage(raw))
	if err != nil {
		panic("stand-in event " + raw + ": " + err.Error())
	}
	return ev
}

func (s *standIn) turn(session, messageID string, content []byte) {
	ctx := context.Background()
	send := func(typ, data string, extra ...string) {
		ev := s.event(session, typ, data, strings.Join(extra, ""))
		if err := s.conn.SessionEvent(ctx, &dshproto.SessionEventNotification{SessionID: session, Event: ev}); err != nil {
			fmt.Fprintln(os.Stderr, "stand-in:", err)
		}
	}
	status := func(st string) {
		_ = s.conn.SessionStatus(ctx, &dshproto.SessionStatusNotification{SessionID: session, Status: st})
	}
	send("agent/inbox/spliced", fmt.Sprintf(`{"target":"next-turn","start":0,"inserted":[{"content":%s,"source":{"kind":"user"},"role":"user","id":%q}]}`,
		content, messageID))
	status("running")
	send("assistant/chunk", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}`)
	send("assistant/message", fmt.Sprintf(`{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":%q}],`+
		`"source":{"kind":"model","provider":"deepseek-official","model":"deepseek-v4-flash"},"id":"a-1"}}`, standInReply), `,"sourceEventSeqs":[2],"surfaceOp":"append"`)
	status("idle")
}

// standInCommand is the shell command that starts the stand-in (the test
// binary itself); extra arguments a client passes are ignored.
func standInCommand(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestStandInServedToPublishedTSClient: the published TypeScript client
// (@deepseek-ai/dsh-sdk-client's DeepSeekHarness.run) completes a turn
// against the Go stand-in runtime.
func TestStandInServedToPublishedTSClient(t *testing.T) {
	rt := startRealRuntime(t)
	var node, rtDir string
	for _, e := range rt.env {
		if v, ok := strings.CutPrefix(e, "DSH_NODE="); ok {
			node = v
		}
		if v, ok := strings.CutPrefix(e, "DSH_RT_DIR="); ok {
			rtDir = v
		}
	}
	script := filepath.Join(t.TempDir(), "drive.mjs")
	src := `import { DeepSeekHarness } from ` + jsonString(filepath.Join(rtDir, "node_modules", "@deepseek-ai", "dsh-sdk-client", "lib", "index.js")) + `
const launch = { command: ` + jsonString(standInCommand(t)) + `, args: [], env: { ...process.env, ` + standInEnv + `: '1' }, requestTimeoutMs: 20000 }
const harness = new DeepSeekHarness({ launch, cwd: process.cwd(), provider: 'deepseek-official', model: 'deepseek-v4-flash' })
try {
  const r = await harness.run('Say hello.', { sessionId: 'go-1' })
  console.log(JSON.stringify({ finalResponse: r.finalResponse, events: r.events.map((e) => e.type) }))
} finally { await harness.close() }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("published TS client: %v\n%s", err, stderr.String())
	}
	var got struct {
		FinalResponse string
		Events        []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got.FinalResponse != standInReply || strings.Join(got.Events, " ") != "agent/inbox/spliced assistant/chunk assistant/message" {
		t.Errorf("published TS client's turn: %+v", got)
	}
}

// TestStandInServedToPublishedPythonSDK: the published Python SDK
// (PyPI deepseek-harness-sdk, DeepSeekHarness.run; testdata/pypi/install.sh)
// completes a turn against the Go stand-in runtime.
func TestStandInServedToPublishedPythonSDK(t *testing.T) {
	if os.Getenv("DSHGEN_SKIP_REAL") == "1" {
		t.Skip("DSHGEN_SKIP_REAL=1: published-SDK test skipped")
	}
	install := exec.Command("bash", filepath.Join("..", "..", "..", "testdata", "pypi", "install.sh"))
	install.Stderr = os.Stderr
	out, err := install.Output()
	if err != nil {
		t.Fatalf("testdata/pypi/install.sh: %v", err)
	}
	var py string
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "DSHPY_PYTHON="); ok {
			py = v
		}
	}
	dir := t.TempDir()
	launch := filepath.Join(dir, "launch.sh")
	if err := os.WriteFile(launch, []byte("#!/bin/sh\n"+standInEnv+"=1 exec "+shellQuote(standInCommand(t))+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `import json, sys
from deepseek_harness import DeepSeekHarness, DeepSeekHarnessConfig
cfg = DeepSeekHarnessConfig(cwd=sys.argv[1], dsh_bin=sys.argv[2], dsh_home=sys.argv[1], base_url="http://127.0.0.1:9", api_key="sk-fake",
                            initialize_timeout_seconds=20, request_timeout_seconds=20, shutdown_timeout_seconds=5)
with DeepSeekHarness(cfg) as h:
    r = h.run("Say hello.", session_id="go-py-1")
    print(json.dumps({"final": r.final_response}))
`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", src, dir, launch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("published Python SDK: %v\n%s", err, stderr.String())
	}
	var got struct{ Final string }
	if err := json.Unmarshal(res, &got); err != nil || got.Final != standInReply {
		t.Errorf("published Python SDK's turn: %s (%v)\n%s", res, err, stderr.String())
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

package golang_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// realRuntime is the published npm runtime (../shared/real-runtime)
// installed once and a fake model serving every scenario of one test.
type realRuntime struct {
	dir  string   // ../shared/real-runtime
	env  []string // DSH_NODE, DSH_RT_DIR, FAKE_LLM_PORT
	work string
}

// startRealRuntime installs the runtime (a few seconds when current) and
// starts the fake model for the test. DSHGEN_SKIP_REAL=1 skips it, as it
// does the tap's real-runtime test.
func startRealRuntime(t *testing.T) *realRuntime {
	t.Helper()
	if os.Getenv("DSHGEN_SKIP_REAL") == "1" {
		t.Skip("DSHGEN_SKIP_REAL=1: real-runtime test skipped")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "real-runtime"))
	if err != nil {
		t.Fatal(err)
	}
	install := exec.Command(filepath.Join(dir, "install.sh"))
	install.Stderr = os.Stderr
	out, err := install.Output()
	if err != nil {
		t.Fatalf("%s/install.sh (DSHGEN_SKIP_REAL=1 skips this test): %v", dir, err)
	}
	rt := &realRuntime{dir: dir, work: t.TempDir()}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(l, "DSH_NODE=") || strings.HasPrefix(l, "DSH_RT_DIR=") {
			rt.env = append(rt.env, l)
		}
	}
	llm := exec.Command(filepath.Join(dir, "start-fake-llm.sh"))
	llm.Env = append(os.Environ(), rt.env...)
	llm.Stderr = os.Stderr
	llmOut, err := llm.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := llm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Process.Signal(syscall.SIGTERM); _ = llm.Wait() })
	port, err := bufio.NewReader(llmOut).ReadString('\n')
	if err != nil {
		t.Fatalf("fake model: %v", err)
	}
	rt.env = append(rt.env, "FAKE_LLM_PORT="+strings.TrimSpace(port))
	return rt
}

// command is the runtime for one scenario, in a working directory of its own.
func (rt *realRuntime) command(t *testing.T, scenario string) (*exec.Cmd, string) {
	work := filepath.Join(rt.work, scenario)
	cmd := exec.Command(filepath.Join(rt.dir, "start-runtime.sh"))
	cmd.Env = append(os.Environ(), append(rt.env, "DSH_CWD="+work)...)
	cmd.Stderr = &bytes.Buffer{}
	return cmd, work
}

// notification is one server notification as the client's handlers saw it.
type notification struct {
	method, sessionID, status string
	event                     map[string]any // session.event: the event as JSON
}

// harness is a generated Client on a real runtime, keeping every
// notification in order (as the published client's subscription does).
type harness struct {
	client *dshproto.Client
	mu     sync.Mutex
	cond   *sync.Cond
	log    []notification
}

func eventJSON(t *testing.T, ev dshproto.SessionEvent) map[string]any {
	raw, err := json.Marshal(ev)
	if err != nil {
		t.Errorf("re-encoding an event: %v", err)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

func startHarness(t *testing.T, rt *realRuntime, scenario string) (*harness, string) {
	h := &harness{}
	h.cond = sync.NewCond(&h.mu)
	add := func(n notification) {
		h.mu.Lock()
		h.log = append(h.log, n)
		h.mu.Unlock()
		h.cond.Broadcast()
	}
	handlers := &dshproto.ClientHandlers{
		OnSessionEvent: func(ctx context.Context, p *dshproto.SessionEventNotification) {
			add(notification{method: dshproto.MethodSessionEvent, sessionID: p.SessionID, event: eventJSON(t, p.Event)})
		},
		OnSessionStatus: func(ctx context.Context, p *dshproto.SessionStatusNotification) {
			add(notification{method: dshproto.MethodSessionStatus, sessionID: p.SessionID, status: p.Status})
		},
		OnSubagentStarted: func(ctx context.Context, p *dshproto.SubagentStartedNotification) {
			add(notification{method: dshproto.MethodSubagentStarted})
		},
		OnSubagentFinished: func(ctx context.Context, p *dshproto.SubagentFinishedNotification) {
			add(notification{method: dshproto.MethodSubagentFinished})
		},
		OnNotification: func(ctx context.Context, method string, params json.RawMessage) {
			add(notification{method: method})
		},
	}
	cmd, work := rt.command(t, scenario)
	c, err := dshproto.StartClient(cmd, handlers, &dshproto.ConnOptions{
		OnDropped: func(line []byte, err error) { t.Errorf("dropped %q: %v", line, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.Shutdown(ctx, nil); err != nil && !errors.Is(err, dshproto.ErrClosed) {
			t.Errorf("shutdown: %v", err)
		}
		c.Close()
		if stderr := cmd.Stderr.(*bytes.Buffer).String(); t.Failed() {
			t.Logf("runtime stderr:\n%s", stderr)
		}
	})
	return h, work
}

func initParams(work string) *dshproto.InitializeParams {
	return &dshproto.InitializeParams{Cwd: work, Provider: "deepseek-official", Model: "deepseek-v4-flash"}
}

// turn is what a prompt produced, assembled as the published client does:
// from the receipt (agent/inbox/spliced holding the message id) to the
// session's idle status.
type turn struct {
	text, finish string
	methods      map[string]bool
}

// run sends one prompt and assembles its turn.
func (h *harness) run(ctx context.Context, t *testing.T, session, text string) turn {
	h.mu.Lock()
	from := len(h.log)
	h.mu.Unlock()
	res, err := h.client.SessionPrompt(ctx, &dshproto.SessionPromptParams{SessionID: session,
		ContentBlocks: []dshproto.ContentBlock{dshproto.TextBlock{Text: text}}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	stop := context.AfterFunc(ctx, h.cond.Broadcast)
	defer stop()
	h.mu.Lock()
	defer h.mu.Unlock()
	var events []map[string]any
	methods := map[string]bool{}
	received := false
	for i := from; ; i++ {
		for i >= len(h.log) {
			if ctx.Err() != nil {
				t.Fatalf("%s: no idle status: %v", session, ctx.Err())
			}
			h.cond.Wait()
		}
		n := h.log[i]
		if !received {
			if n.method != dshproto.MethodSessionEvent || n.sessionID != session || !isReceipt(n.event, res.MessageID) {
				continue
			}
			received = true
		}
		methods[n.method] = true
		if n.method == dshproto.MethodSessionEvent && n.sessionID == session {
			events = append(events, n.event)
		}
		if n.method == dshproto.MethodSessionStatus && n.sessionID == session && n.status == "idle" {
			break
		}
	}
	return turn{text: finalText(events), finish: finishReason(events), methods: methods}
}

func isReceipt(ev map[string]any, messageID string) bool {
	if ev["type"] != "agent/inbox/spliced" {
		return false
	}
	data, _ := ev["data"].(map[string]any)
	inserted, _ := data["inserted"].([]any)
	for _, m := range inserted {
		if mm, _ := m.(map[string]any); mm["id"] == messageID {
			return true
		}
	}
	return false
}

// finalText is the text of the last assistant message, as the published
// client's finalResponse.
func finalText(events []map[string]any) string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i]["type"] != "assistant/message" {
			continue
		}
		data, _ := events[i]["data"].(map[string]any)
		msg, _ := data["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		var b strings.Builder
		for _, c := range content {
			if cb, _ := c.(map[string]any); cb["type"] == "text" {
				s, _ := cb["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// finishReason is the kind of the last finish chunk's reason.
func finishReason(events []map[string]any) string {
	for i := len(events) - 1; i >= 0; i-- {
		data, _ := events[i]["data"].(map[string]any)
		chunk, _ := data["chunk"].(map[string]any)
		if events[i]["type"] == "assistant/chunk" && chunk["type"] == "finish" {
			reason, _ := chunk["reason"].(map[string]any)
			s, _ := reason["kind"].(string)
			return s
		}
	}
	return ""
}

// fixtureTurn is the turn the published TypeScript client saw in the same
// scenario (../shared/fixtures/real-captures: its driver summary and the
// server's side of its capture).
func fixtureTurn(t *testing.T, rt *realRuntime, scenario, session, summaryKey string) turn {
	fx := filepath.Join(rt.dir, "..", "fixtures", "real-captures")
	raw, err := os.ReadFile(filepath.Join(fx, "driver-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]struct{ Observed json.RawMessage }
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	var observed map[string]any
	if err := json.Unmarshal(summary[scenario].Observed, &observed); err != nil {
		t.Fatalf("%s: %v", scenario, err)
	}
	text, _ := observed[summaryKey].(string)
	capture, err := os.ReadFile(filepath.Join(fx, scenario, "server-to-client.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	for _, line := range bytes.Split(capture, []byte("\n")) {
		var f struct {
			Method string
			Params struct {
				SessionID string
				Event     map[string]any
			}
		}
		if json.Unmarshal(line, &f) == nil && f.Method == "session.event" && f.Params.SessionID == session {
			events = append(events, f.Params.Event)
		}
	}
	return turn{text: text, finish: finishReason(events)}
}

// TestRealRuntimeGoClient drives the published npm runtime with the
// generated Go client through the harness's scenarios and gets what the
// published TypeScript client got: the same final text and finish reason
// per turn, the same error responses.
func TestRealRuntimeGoClient(t *testing.T) {
	rt := startRealRuntime(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	turns := []struct{ scenario, session, prompt string }{
		{"text-turn", "text-1", "Say hello."},
		{"bash-tool", "bash-1", "Run a command for me. [[BASH]]"},
		{"subagent", "sub-1", "Delegate this to a helper. [[SUBAGENT]]"},
	}
	for _, tc := range turns {
		t.Run(tc.scenario, func(t *testing.T) {
			h, work := startHarness(t, rt, tc.scenario)
			if _, err := h.client.Initialize(ctx, initParams(work)); err != nil {
				t.Fatal(err)
			}
			got := h.run(ctx, t, tc.session, tc.prompt)
			want := fixtureTurn(t, rt, tc.scenario, tc.session, "finalResponse")
			if got.text != want.text || got.finish != want.finish || want.text == "" || want.finish == "" {
				t.Errorf("turn: text %q finish %q, the published client: %q %q", got.text, got.finish, want.text, want.finish)
			}
			if tc.scenario == "subagent" && (!got.methods[dshproto.MethodSubagentStarted] || !got.methods[dshproto.MethodSubagentFinished]) {
				t.Errorf("subagent turn without subagent notifications: %v", got.methods)
			}
		})
	}
	t.Run("parallel-sessions", func(t *testing.T) {
		h, work := startHarness(t, rt, "parallel-sessions")
		if _, err := h.client.Initialize(ctx, initParams(work)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		got := map[string]turn{}
		var mu sync.Mutex
		for key, p := range map[string][2]string{
			"a": {"par-a", "First session, slow answer. [[SLOW:800]]"},
			"b": {"par-b", "Second session, use a tool. [[BASH]]"},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr := h.run(ctx, t, p[0], p[1])
				mu.Lock()
				got[key] = tr
				mu.Unlock()
			}()
		}
		wg.Wait()
		for key, session := range map[string]string{"a": "par-a", "b": "par-b"} {
			want := fixtureTurn(t, rt, "parallel-sessions", session, key)
			if got[key].text != want.text || got[key].finish != want.finish || want.text == "" {
				t.Errorf("session %s: %q %q, the published client: %q %q", session, got[key].text, got[key].finish, want.text, want.finish)
			}
		}
	})
	t.Run("unknown-method", func(t *testing.T) {
		h, work := startHarness(t, rt, "unknown-method")
		if _, err := h.client.Initialize(ctx, initParams(work)); err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			method string
			params any
		}{{"session/cancel", map[string]string{"sessionId": "x"}}, {"no/such/method", nil}} {
			_, err := h.client.Conn().Call(ctx, m.method, m.params)
			var re *dshproto.ResponseError
			if !errors.As(err, &re) || re.Code != -32603 || re.Message != "unknown DeepSeek Harness SDK runtime method: "+m.method {
				t.Errorf("%s: %v", m.method, err)
			}
		}
	})
	t.Run("invalid-max-tokens", func(t *testing.T) {
		h, work := startHarness(t, rt, "invalid-max-tokens")
		for _, bad := range []any{0, -1, 1.5, "10"} {
			_, err := h.client.Conn().Call(ctx, dshproto.MethodInitialize, map[string]any{"cwd": work, "provider": "deepseek-official",
				"model": "deepseek-v4-flash", "maxTokens": bad})
			var re *dshproto.ResponseError
			if !errors.As(err, &re) || re.Code != -32603 || re.Message != "initialize maxTokens must be a positive safe integer" {
				t.Errorf("maxTokens %v: %v", bad, err)
			}
		}
		p := initParams(work)
		n := int64(64)
		p.MaxTokens = &n
		res, err := h.client.Initialize(ctx, p)
		if err != nil || res.ServerInfo.Name != "deepseek-harness-sdk-runtime" || res.ServerInfo.Version != "0.0.1" {
			t.Errorf("maxTokens 64: %+v %v", res, err)
		}
	})
}

// Command peer is an MCP 2025-11-25 server ("peer server", on stdio) and
// client ("peer client CMD ARGS...", spawning the server command) written
// against the Go SDK dshgen generates from the published schema. The client
// prints the transcript of what it got as JSON lines (see
// testdata/mcp-sdk/README.md); gen/emit's TestMCPSDKPeers runs every pair.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"example.com/mcppeers/mcp"
)

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "server" {
		if err := serve(); err != nil {
			fmt.Fprintln(os.Stderr, "go server:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) >= 3 && os.Args[1] == "client" {
		if err := runClient(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "go client:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Fprintln(os.Stderr, "usage: peer server | peer client CMD [ARG...]")
	os.Exit(2)
}

// ---- server ----

// server is the MCP server: one tool, "summarize", which asks the client's
// model (sampling/createMessage) and roots (roots/list), pings the client,
// tries a method the client does not serve, and reports progress between.
type server struct {
	mcp.UnimplementedServer // the requests it does not serve are answered -32601
	conn                    *mcp.ServerConn
	initialized             chan struct{}
	once                    sync.Once
	client                  string
}

func serve() error {
	sc := mcp.NewServerConn(os.Stdin, os.Stdout, nil)
	return sc.Serve(&server{conn: sc, initialized: make(chan struct{})})
}

func (s *server) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	s.client = p.ClientInfo.Name
	listChanged := false
	return &mcp.InitializeResult{
		ProtocolVersion: p.ProtocolVersion,
		ServerInfo:      mcp.Implementation{Name: "mcp-peer-server", Version: "1.0.0"},
		Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{ListChanged: &listChanged}},
	}, nil
}

func (s *server) NotificationsInitialized(ctx context.Context, p *mcp.NotificationParams) error {
	s.once.Do(func() { close(s.initialized) })
	return nil
}

func (s *server) Ping(ctx context.Context, p *mcp.RequestParams) (mcp.EmptyResult, error) {
	return mcp.EmptyResult{}, nil
}

func (s *server) ToolsList(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	desc := "Summarizes text with the client's model."
	str := json.RawMessage(`"string"`)
	return &mcp.ListToolsResult{Tools: []mcp.Tool{{
		Name:        "summarize",
		Description: &desc,
		InputSchema: mcp.ToolInputSchema{
			Properties: map[string]map[string]json.RawMessage{"text": {"type": str}},
			Required:   []string{"text"},
		},
	}}}, nil
}

// ToolsCall answers tools/call with a CallToolResult (this server runs no
// tasks, so it never answers CreateTaskResult, the union's other branch).
func (s *server) ToolsCall(ctx context.Context, p *mcp.CallToolRequestParams) (mcp.CallToolResultOrCreateTaskResult, error) {
	res, err := s.summarize(ctx, p)
	if err != nil {
		return nil, err
	}
	return *res, nil
}

// summarize serves the one tool: it samples the client, lists its roots and
// reports progress along the way.
func (s *server) summarize(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if p.Name != "summarize" {
		return nil, &mcp.ResponseError{Code: -32602, Message: "unknown tool: " + p.Name,
			Data: json.RawMessage(fmt.Sprintf(`{"tool":%q}`, p.Name))}
	}
	select {
	case <-s.initialized:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var text string
	if err := json.Unmarshal(p.Arguments["text"], &text); err != nil {
		return nil, &mcp.ResponseError{Code: -32602, Message: "summarize: text must be a string"}
	}
	var token mcp.ProgressToken
	if p.Meta != nil {
		token = p.Meta.ProgressToken
	}
	total := 3.0
	progress := func(n float64, msg string) error {
		if token == nil {
			return nil
		}
		return s.conn.NotificationsProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: n, Total: &total, Message: &msg})
	}
	if err := progress(1, "sampling"); err != nil {
		return nil, err
	}
	system := "Answer in one line."
	res, err := s.conn.SamplingCreateMessage(ctx, &mcp.CreateMessageRequestParams{
		Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "Summarize: " + text}}},
		MaxTokens:    64,
		SystemPrompt: &system,
	})
	if err != nil {
		return nil, fmt.Errorf("sampling/createMessage: %w", err)
	}
	// The request asks for no task, so the answer is the union's
	// CreateMessageResult branch.
	sample, ok := res.(mcp.CreateMessageResult)
	if !ok {
		return nil, fmt.Errorf("sampling/createMessage answered %T, want CreateMessageResult", res)
	}
	answer, ok := sample.Content.(mcp.TextContent)
	if !ok {
		return nil, fmt.Errorf("sampling/createMessage: content is %T, want text", sample.Content)
	}
	if err := progress(2, "roots"); err != nil {
		return nil, err
	}
	roots, err := s.conn.RootsList(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("roots/list: %w", err)
	}
	uris := []string{}
	for _, r := range roots.Roots {
		uris = append(uris, r.URI)
	}
	if _, err := s.conn.Ping(ctx, nil); err != nil {
		return nil, fmt.Errorf("ping: %w", err)
	}
	var unknown *mcp.ResponseError
	if _, err := s.conn.Conn().Call(ctx, "peer/unknown", nil); !errors.As(err, &unknown) {
		return nil, fmt.Errorf("peer/unknown: got %v, want an error response", err)
	}
	if err := progress(3, "done"); err != nil {
		return nil, err
	}
	structured := map[string]any{
		"summary":       answer.Text,
		"model":         sample.Model,
		"stopReason":    sample.StopReason,
		"roots":         uris,
		"client":        s.client,
		"unknownMethod": map[string]any{"code": unknown.Code, "message": unknown.Message},
	}
	sc := map[string]json.RawMessage{}
	for k, v := range structured {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		sc[k] = raw
	}
	isError := false
	return &mcp.CallToolResult{
		Content:           []mcp.ContentBlock{mcp.TextContent{Text: answer.Text}},
		StructuredContent: sc,
		IsError:           &isError,
	}, nil
}

// ---- client ----

// transcript prints one JSON line of the transcript.
func transcript(v map[string]any) {
	line, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
}

// errorLine is the transcript form of an error response.
func errorLine(step string, err error) map[string]any {
	var re *mcp.ResponseError
	if !errors.As(err, &re) {
		return map[string]any{"step": step, "notAResponseError": err.Error()}
	}
	e := map[string]any{"code": re.Code, "message": re.Message}
	if re.Data != nil {
		e["data"] = re.Data
	}
	return map[string]any{"step": step, "error": e}
}

func runClient(argv []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var served []map[string]any
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	h := &mcp.ClientHandlers{
		OnSamplingCreateMessage: func(ctx context.Context, p *mcp.CreateMessageRequestParams) (mcp.CreateMessageResultOrCreateTaskResult, error) {
			mu.Lock()
			served = append(served, map[string]any{"step": "served", "method": "sampling/createMessage", "params": p})
			mu.Unlock()
			asked := ""
			if len(p.Messages) > 0 {
				if t, ok := p.Messages[0].Content.(mcp.TextContent); ok {
					asked = t.Text
				}
			}
			stop := "endTurn"
			return mcp.CreateMessageResult{
				Role: mcp.RoleAssistant, Content: mcp.TextContent{Text: fmt.Sprintf("%d tokens at most: %s", p.MaxTokens, asked)},
				Model: "peer-model", StopReason: &stop,
			}, nil
		},
		OnRootsList: func(ctx context.Context, p *mcp.RequestParams) (*mcp.ListRootsResult, error) {
			mu.Lock()
			served = append(served, map[string]any{"step": "served", "method": "roots/list"})
			mu.Unlock()
			name := "peer-root"
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///tmp/peer-root", Name: &name}}}, nil
		},
		OnPing: func(ctx context.Context, p *mcp.RequestParams) (mcp.EmptyResult, error) {
			mu.Lock()
			served = append(served, map[string]any{"step": "served", "method": "ping"})
			mu.Unlock()
			return mcp.EmptyResult{}, nil
		},
		OnNotificationsProgress: func(ctx context.Context, p *mcp.ProgressNotificationParams) {
			progress <- p
		},
	}
	dropped := 0
	opts := &mcp.ConnOptions{OnDropped: func(line []byte, err error) {
		mu.Lock()
		dropped++
		mu.Unlock()
	}}
	// droppedLine reports the lines the transport did not deliver, if any.
	droppedLine := func() {
		mu.Lock()
		defer mu.Unlock()
		if dropped > 0 {
			transcript(map[string]any{"step": "dropped", "lines": dropped})
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	c, err := mcp.StartClient(cmd, h, opts)
	if err != nil {
		return err
	}
	defer c.Close()

	init, err := c.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: "2025-11-25",
		ClientInfo:      mcp.Implementation{Name: "mcp-peer-client", Version: "1.0.0"},
		Capabilities:    mcp.ClientCapabilities{Roots: &mcp.ClientCapabilitiesRoots{}, Sampling: &mcp.ClientCapabilitiesSampling{}},
	})
	if errors.Is(err, mcp.ErrClosed) {
		droppedLine()
		transcript(map[string]any{"step": "initialize", "error": "transport closed"})
		return nil
	}
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	transcript(map[string]any{"step": "initialize", "result": init})
	if err := c.NotificationsInitialized(ctx, nil); err != nil {
		return err
	}
	pong, err := c.Ping(ctx, nil)
	if err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	transcript(map[string]any{"step": "ping", "result": pong})
	tools, err := c.ToolsList(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	transcript(map[string]any{"step": "tools/list", "result": tools})

	res, err := callTool(ctx, c, "summarize", `{"text":"the quick brown fox"}`)
	if err != nil {
		return fmt.Errorf("tools/call: %w", err)
	}
	mu.Lock()
	for _, s := range served {
		transcript(s)
	}
	mu.Unlock()
	for i := 0; i < 3; i++ {
		select {
		case p := <-progress:
			transcript(map[string]any{"step": "progress", "params": p})
		case <-ctx.Done():
			return fmt.Errorf("progress notification %d: %w", i+1, ctx.Err())
		}
	}
	transcript(map[string]any{"step": "tools/call", "result": res})

	_, err = callTool(ctx, c, "nope", `{}`)
	transcript(errorLine("tools/call nope", err))
	_, err = c.Conn().Call(ctx, "peer/unknown", nil)
	transcript(errorLine("peer/unknown", err))
	droppedLine()
	return nil
}

// callTool is the one use of tools/call's result: it calls tool with the
// JSON object args (progress token "call-1") and returns the result, which
// must be the CallToolResult branch of the result union (the request asks
// for no task).
func callTool(ctx context.Context, c *mcp.Client, tool, args string) (*mcp.CallToolResult, error) {
	var a map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return nil, err
	}
	res, err := c.ToolsCall(ctx, &mcp.CallToolRequestParams{
		Name: tool, Arguments: a,
		Meta: &mcp.CallToolRequestParamsMeta{ProgressToken: mcp.ProgressTokenString("call-1")},
	})
	if err != nil {
		return nil, err
	}
	r, ok := res.(mcp.CallToolResult)
	if !ok {
		return nil, fmt.Errorf("tools/call answered %T, want CallToolResult", res)
	}
	return &r, nil
}

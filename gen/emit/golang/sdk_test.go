package golang_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// peer is the far end of an in-memory connection: it reads what the Conn
// under test writes, line by line, and writes raw lines back.
type peer struct {
	lines *bufio.Reader
	w     *io.PipeWriter
	r     *io.PipeReader
}

// pipeConn returns a Conn (not started) and the peer at its other end.
func pipeConn(opts *dshproto.ConnOptions) (*dshproto.Conn, *peer) {
	toConn, fromPeer := io.Pipe()
	toPeer, fromConn := io.Pipe()
	c := dshproto.NewConn(toConn, fromConn, opts)
	return c, &peer{lines: bufio.NewReader(toPeer), w: fromPeer, r: toPeer}
}

func (p *peer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.w, line); err != nil {
		t.Fatalf("peer write: %v", err)
	}
}

// sendAsync writes line from a goroutine of its own (a write error shows
// as the reader's failure).
func (p *peer) sendAsync(line string) { _, _ = io.WriteString(p.w, line) }

// next reads one line the Conn wrote (without its "\n") as a JSON object.
func (p *peer) next(t *testing.T) (string, map[string]json.RawMessage) {
	t.Helper()
	line, err := p.lines.ReadString('\n')
	if err != nil {
		t.Fatalf("peer read: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	return strings.TrimSuffix(line, "\n"), m
}

// drops collects what a Conn reports to OnDropped.
type drops struct {
	mu  sync.Mutex
	got []string
	ch  chan string
}

func newDrops() *drops { return &drops{ch: make(chan string, 64)} }

func (d *drops) hook(line []byte, err error) {
	s := fmt.Sprintf("%s: %v", line, err)
	d.mu.Lock()
	d.got = append(d.got, s)
	d.mu.Unlock()
	d.ch <- s
}

func (d *drops) wait(t *testing.T, want string) {
	t.Helper()
	select {
	case s := <-d.ch:
		if !strings.Contains(s, want) {
			t.Errorf("dropped %q, want it to contain %q", s, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("nothing reported to OnDropped, want %q", want)
	}
}

var reqID = regexp.MustCompile(`^"req_[0-9a-f]{32}"$`)

// Framing and ids: one compact frame per line, the shipped protocol's
// req_<32 hex> ids (x-request-id), a typed result.
func TestTransportFramingAndIDs(t *testing.T) {
	c, p := pipeConn(nil)
	c.Start(nil)
	defer c.Close()
	done := make(chan json.RawMessage, 1)
	go func() {
		raw, err := c.Call(context.Background(), "initialize", map[string]any{"cwd": "/w", "nested": map[string]int{"a": 1}})
		if err != nil {
			t.Error(err)
		}
		done <- raw
	}()
	line, m := p.next(t)
	if !reqID.Match(m["id"]) {
		t.Errorf("id %s is not req_<32 hex>", m["id"])
	}
	if want := `{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"method":"initialize","params":{"cwd":"/w","nested":{"a":1}}}`; line != want {
		t.Errorf("frame\n %s\nwant\n %s", line, want)
	}
	p.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"result":{"ok":true}}`+"\n")
	if raw := <-done; string(raw) != `{"ok":true}` {
		t.Errorf("result %s", raw)
	}
}

// Classification: a request (method and id) goes to the handler and is
// answered, a notification (method alone) goes to the handler unanswered,
// a response (id with result or error) to the call waiting for it, and a
// line that is none of these is dropped and reported.
func TestTransportClassification(t *testing.T) {
	d := newDrops()
	c, p := pipeConn(&dshproto.ConnOptions{OnDropped: d.hook})
	got := make(chan string, 4)
	c.Start(func(ctx context.Context, in *dshproto.Incoming) (any, error) {
		got <- fmt.Sprintf("%s id=%s params=%s", in.Method, in.ID, in.Params)
		return map[string]string{"pong": in.Method}, nil
	})
	defer c.Close()
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":1}}`+"\n")
	if g := <-got; g != `ping id=7 params={"x":1}` {
		t.Errorf("request: %s", g)
	}
	if line, _ := p.next(t); line != `{"jsonrpc":"2.0","id":7,"result":{"pong":"ping"}}` {
		t.Errorf("response: %s", line)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"tick"}`+"\n")
	if g := <-got; g != "tick id= params=" {
		t.Errorf("notification: %s", g)
	}
	p.send(t, `{"jsonrpc":"2.0","id":"x"}`+"\n")
	d.wait(t, "neither a request, a notification nor a response")
}

// Malformed lines are dropped and reported; the connection goes on.
func TestTransportMalformedLines(t *testing.T) {
	d := newDrops()
	c, p := pipeConn(&dshproto.ConnOptions{OnDropped: d.hook, NewID: func() json.RawMessage { return json.RawMessage(`1`) }})
	c.Start(nil)
	defer c.Close()
	for _, bad := range []string{"not json", "[1,2]", `{"jsonrpc":"2.0","method":5}`} {
		p.send(t, bad+"\n")
		d.wait(t, bad)
	}
	p.send(t, "\n") // an empty line is nothing
	res := make(chan error, 1)
	go func() { _, err := c.Call(context.Background(), "m", nil); res <- err }()
	if line, _ := p.next(t); line != `{"jsonrpc":"2.0","id":1,"method":"m"}` {
		t.Errorf("call after malformed lines: %s", line)
	}
	p.send(t, `{"jsonrpc":"2.0","id":1,"result":null}`+"\n")
	if err := <-res; err != nil {
		t.Error(err)
	}
}

// No handler: -32601 "method not found: <method>"; a failing handler:
// -32603 carrying its message; a *ResponseError is sent as it is.
func TestTransportErrorResponses(t *testing.T) {
	c, p := pipeConn(nil)
	c.Start(func(ctx context.Context, in *dshproto.Incoming) (any, error) {
		switch in.Method {
		case "fail":
			return nil, errors.New("disk on fire")
		case "custom":
			return nil, &dshproto.ResponseError{Code: -32000, Message: "busy", Data: json.RawMessage(`{"retry":1}`)}
		}
		return nil, dshproto.ErrMethodNotFound
	})
	defer c.Close()
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"nope"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope"}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"fail"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"disk on fire"}}`},
		{`{"jsonrpc":"2.0","id":"c","method":"custom"}`, `{"jsonrpc":"2.0","id":"c","error":{"code":-32000,"message":"busy","data":{"retry":1}}}`},
	} {
		p.send(t, tc.in+"\n")
		if line, _ := p.next(t); line != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, line, tc.want)
		}
	}
	c2, p2 := pipeConn(nil)
	c2.Start(nil) // no handler at all
	defer c2.Close()
	p2.send(t, `{"jsonrpc":"2.0","id":9,"method":"x/y"}`+"\n")
	if line, _ := p2.next(t); line != `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method not found: x/y"}}` {
		t.Errorf("no handler: %s", line)
	}
}

// An error response reaches the caller as a *ResponseError with code,
// message and data.
func TestTransportErrorResponseToCaller(t *testing.T) {
	c, p := pipeConn(nil)
	c.Start(nil)
	defer c.Close()
	res := make(chan error, 1)
	go func() { _, err := c.Call(context.Background(), "m", nil); res <- err }()
	_, m := p.next(t)
	p.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"error":{"code":-32603,"message":"bad","data":[1]}}`+"\n")
	var re *dshproto.ResponseError
	if err := <-res; !errors.As(err, &re) || re.Code != -32603 || re.Message != "bad" || string(re.Data) != "[1]" {
		t.Errorf("error response: %#v", err)
	}
}

// Cancelling a call removes it: the caller gets ctx.Err() at once, and a
// late response is dropped and reported as answering an unknown id.
func TestTransportCancelRemovesPending(t *testing.T) {
	d := newDrops()
	c, p := pipeConn(&dshproto.ConnOptions{OnDropped: d.hook})
	c.Start(nil)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { _, err := c.Call(ctx, "slow", nil); res <- err }()
	_, m := p.next(t)
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	p.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"result":1}`+"\n")
	d.wait(t, "which no call is waiting for")
}

// Closing rejects every pending call with an error wrapping ErrClosed, and
// later calls fail at once.
func TestTransportCloseRejectsPending(t *testing.T) {
	c, p := pipeConn(nil)
	c.Start(nil)
	const n = 5
	res := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() { _, err := c.Call(context.Background(), "m", nil); res <- err }()
	}
	for i := 0; i < n; i++ {
		p.next(t)
	}
	c.Close()
	for i := 0; i < n; i++ {
		if err := <-res; !errors.Is(err, dshproto.ErrClosed) {
			t.Errorf("pending call after Close: %v", err)
		}
	}
	if _, err := c.Call(context.Background(), "m", nil); !errors.Is(err, dshproto.ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
	if err := c.Notify(context.Background(), "n", nil); !errors.Is(err, dshproto.ErrClosed) {
		t.Errorf("notify after Close: %v", err)
	}
}

// A line over the cap is dropped (and reported with its first bytes) and
// the next line is read; no other limit applies (a 3 MiB line under a 4 MiB
// cap is delivered).
func TestTransportLineCap(t *testing.T) {
	d := newDrops()
	c, p := pipeConn(&dshproto.ConnOptions{MaxLineBytes: 4 << 20, OnDropped: d.hook})
	got := make(chan int, 2)
	c.Start(func(ctx context.Context, in *dshproto.Incoming) (any, error) {
		got <- len(in.Params)
		return nil, nil
	})
	defer c.Close()
	big := strings.Repeat("x", 3<<20)
	go p.sendAsync(`{"jsonrpc":"2.0","method":"a","params":"` + big + `"}` + "\n")
	if n := <-got; n != len(big)+2 {
		t.Errorf("3 MiB line: params of %d bytes", n)
	}
	huge := strings.Repeat("y", 5<<20)
	go p.sendAsync(`{"jsonrpc":"2.0","method":"b","params":"` + huge + `"}` + "\n" + `{"jsonrpc":"2.0","method":"c","params":1}` + "\n")
	d.wait(t, "line longer than 4194304 bytes")
	if n := <-got; n != 1 {
		t.Errorf("line after the long one: params of %d bytes", n)
	}
}

// Writes are serialized: many goroutines sending at once give whole lines.
func TestTransportSerializedWrites(t *testing.T) {
	c, p := pipeConn(nil)
	c.Start(nil)
	defer c.Close()
	const n = 200
	var wg sync.WaitGroup
	payload := strings.Repeat("z", 10000)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Notify(context.Background(), "n", map[string]any{"i": i, "p": payload}); err != nil {
				t.Error(err)
			}
		}()
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		_, m := p.next(t)
		var params struct{ I int }
		if err := json.Unmarshal(m["params"], &params); err != nil {
			t.Fatal(err)
		}
		seen[fmt.Sprint(params.I)] = true
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d distinct frames, want %d", len(seen), n)
	}
}

// Bad peers: garbage, a close mid-frame, an answer to an unknown id, and
// silence are each reported and never hang a caller that has a deadline.
func TestTransportBadPeers(t *testing.T) {
	t.Run("garbage", func(t *testing.T) {
		d := newDrops()
		c, p := pipeConn(&dshproto.ConnOptions{OnDropped: d.hook})
		c.Start(nil)
		defer c.Close()
		p.send(t, "\x00\xff{{{\n")
		d.wait(t, "not a JSON object")
	})
	t.Run("closes mid-frame", func(t *testing.T) {
		d := newDrops()
		c, p := pipeConn(&dshproto.ConnOptions{OnDropped: d.hook})
		c.Start(nil)
		res := make(chan error, 1)
		go func() { _, err := c.Call(context.Background(), "m", nil); res <- err }()
		_, m := p.next(t)
		p.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"res`)
		p.w.Close()
		d.wait(t, "unterminated last line")
		if err := <-res; !errors.Is(err, dshproto.ErrClosed) || !errors.Is(err, io.EOF) {
			t.Errorf("pending call when the peer closed mid-frame: %v", err)
		}
		// Pending calls fail at the end of input; the Conn closes (and Err
		// says why) once what was read is answered, just after.
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the Conn did not close after its input ended")
		}
		if !errors.Is(c.Err(), io.EOF) {
			t.Errorf("Err: %v", c.Err())
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		d := newDrops()
		c, p := pipeConn(&dshproto.ConnOptions{OnDropped: d.hook})
		c.Start(nil)
		defer c.Close()
		p.send(t, `{"jsonrpc":"2.0","id":"req_nobody","result":{}}`+"\n")
		d.wait(t, `response to id "req_nobody", which no call is waiting for`)
	})
	t.Run("never answers", func(t *testing.T) {
		c, p := pipeConn(nil)
		c.Start(nil)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		go func() { _, _ = p.lines.ReadString('\n') }()
		if _, err := c.Call(ctx, "m", nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("silent peer: %v", err)
		}
	})
}

// A server that writes and exits at once: what it wrote is still read
// after the process has been waited for (StartCommand's writer Close waits
// for it), the unterminated last line is reported, and the end of input is
// io.EOF, never a closed file.
func TestStartCommandReadsAfterExit(t *testing.T) {
	const out = "not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{"
	r, w, err := dshproto.StartCommand(exec.Command("sh", "-c", `printf '%s' "$0"`, out), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("server exit: %v", err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != out {
		t.Fatalf("read %q (%v) after the server exited, want %q", got, err, out)
	}
	r.Close()
}

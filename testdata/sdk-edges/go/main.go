// Command peer is a server ("peer server", on stdio) and a client ("peer
// client CMD ARGS...", spawning the server command) of the Todo Protocol
// (../todo.schema.json) written against the Go SDK dshgen generates; gen/emit
// TestSDKEdgeCases drives it (see ../README.md).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"example.com/sdkedges/todo"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 2 && os.Args[1] == "server":
		err = todo.NewServerConn(os.Stdin, os.Stdout, nil).Serve(server{})
	case len(os.Args) >= 3 && os.Args[1] == "client":
		err = client(os.Args[2:])
	default:
		err = errors.New("usage: peer server | peer client CMD [ARG...]")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go peer:", err)
		os.Exit(1)
	}
}

// server answers todo/add after 200 ms (a response still being made when
// the input ends) and fails todo/fail.
type server struct{ todo.UnimplementedServer }

func (server) TodoAdd(ctx context.Context, p *todo.AddParams) (*todo.AddResult, error) {
	select {
	case <-time.After(200 * time.Millisecond):
		return &todo.AddResult{Title: p.Title}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (server) TodoFail(context.Context, *todo.FailParams) (*todo.AddResult, error) {
	return nil, errors.New("todo/fail always fails")
}

// client calls todo/add with nil params (refused before anything is sent),
// then with params, on a server that reads one line and exits without an
// answer: the call fails with the closed transport.
func client(argv []string) error {
	c, err := todo.StartClient(exec.Command(argv[0], argv[1:]...), nil, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.TodoAdd(ctx, nil)
	step(map[string]any{"step": "nil-params", "refused": errors.Is(err, todo.ErrParamsRequired)})
	_, err = c.TodoAdd(ctx, &todo.AddParams{Title: "sent"})
	fmt.Fprintln(os.Stderr, "go client: todo/add:", err)
	step(map[string]any{"step": "eof", "closed": errors.Is(err, todo.ErrClosed) && errors.Is(err, io.EOF)})
	return nil
}

func step(v map[string]any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

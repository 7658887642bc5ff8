package emit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/ir"
)

// sdkEdgePeers builds the peers of testdata/sdk-edges (a server and a client
// of its Todo Protocol in each language) against the SDK generated from
// todo.schema.json into work (see buildPeers). The Python peer imports
// Client, ServerConn and UnimplementedServer from the package root.
func sdkEdgePeers(t *testing.T, work string) (map[string][]string, []string) {
	t.Helper()
	src := filepath.Join(root, "testdata", "sdk-edges")
	m, err := ir.LoadSource(ir.Source{Path: filepath.Join(src, "todo.schema.json")})
	if err != nil {
		t.Fatal(err)
	}
	return buildPeers(t, m, "todo", "example.com/sdkedges", src, work)
}

// sdkEdgeRequests are the lines piped into each server at once, its input
// ending right after them. Requests 1 and 8 are answered after 200 ms, so
// their responses are still being made when the input ends.
var sdkEdgeRequests = strings.Join([]string{
	`{"jsonrpc":"2.0","id":1,"method":"todo/add","params":{"title":"first"}}`,
	`{"jsonrpc":"2.0","id":2,"method":"todo/add","params":{"title":5}}`,
	`{"jsonrpc":"2.0","id":3,"method":"todo/add"}`,
	`{"jsonrpc":"2.0","id":4,"method":"todo/add","params":{"title":"x","done":"yes"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"todo/add","params":[1]}`,
	`{"jsonrpc":"2.0","id":6,"method":"todo/fail"}`,
	`{"jsonrpc":"2.0","id":7,"method":"todo/nope","params":{}}`,
	`{"jsonrpc":"2.0","id":8,"method":"todo/add","params":{"title":"last"}}`,
}, "\n") + "\n"

// sdkEdgeWant is each request's answer: a result's title, or an error's code
// and the start of its message (the rest is each language's own wording
// of what is wrong).
var sdkEdgeWant = map[int]struct {
	title, message string
	code           int
}{
	1: {title: "first"},
	2: {code: -32602, message: "invalid params of todo/add: /params/title: "},
	3: {code: -32602, message: "invalid params of todo/add: /params: "},
	4: {code: -32602, message: "invalid params of todo/add: /params/done: "},
	5: {code: -32602, message: "invalid params of todo/add: /params: "},
	6: {code: -32603, message: "todo/fail always fails"},
	7: {code: -32601, message: "method not found: todo/nope"},
	8: {title: "last"},
}

// TestSDKEdgeCases drives the generated servers and clients of all three
// languages through what a newcomer hit (testdata/sdk-edges):
//   - each server, its input ending right after eight requests (two still
//     being answered then), writes all eight responses before it exits,
//     with stdout a pipe and with stdin and stdout regular files;
//   - params that do not fit the method (a member of the wrong type, none
//     though required, an array) are answered -32602 naming the method and
//     the JSON pointer, a failing handler -32603, an unknown method -32601;
//   - each client refuses nil/None/undefined params of a method that
//     requires them before sending anything (the server's first line is
//     the next call), its pending call fails with the closed transport when
//     the server exits without an answer, and the server's stderr reaches
//     the client's (inherited).
func TestSDKEdgeCases(t *testing.T) {
	work := t.TempDir()
	peers, env := sdkEdgePeers(t, work)
	for _, lang := range []string{"go", "python", "ts"} {
		for _, files := range []bool{false, true} {
			name := lang + "-server-pipe"
			if files {
				name = lang + "-server-files"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				out := runServer(t, append(append([]string{}, peers[lang]...), "server"), env, files)
				checkEdgeAnswers(t, out)
			})
		}
		t.Run(lang+"-client", func(t *testing.T) {
			t.Parallel()
			server := []string{"sh", "-c", `read -r line; printf 'server got: %s\n' "$line" >&2; echo server-stderr-marker >&2`}
			argv := append(append(append([]string{}, peers[lang]...), "client"), server...)
			lines, stderr := runPeerStderr(t, argv, env)
			want := `{"refused":true,"step":"nil-params"}` + "\n" + `{"closed":true,"step":"eof"}`
			if got := strings.Join(lines, "\n"); got != want {
				t.Errorf("transcript:\n%s\nwant:\n%s\nstderr:\n%s", got, want, stderr)
			}
			if !strings.Contains(stderr, "server-stderr-marker\n") {
				t.Errorf("the server's stderr did not reach the client's:\n%s", stderr)
			}
			// The first line the server read is the call with params: the
			// nil call sent nothing.
			if !strings.Contains(stderr, `server got: {"jsonrpc":"2.0","id":`) ||
				!strings.Contains(stderr, `"method":"todo/add","params":{"title":"sent"}}`) {
				t.Errorf("the server's first line is not the todo/add with params:\n%s", stderr)
			}
		})
	}
}

// runServer runs a server peer on sdkEdgeRequests (two minutes at most) and
// returns what it wrote to stdout: through pipes, or (files) with stdin and
// stdout regular files.
func runServer(t *testing.T, argv, env []string, files bool) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var stderr, stdout bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin, cmd.Stdout = strings.NewReader(sdkEdgeRequests), &stdout
	if files {
		dir := t.TempDir()
		in, outPath := filepath.Join(dir, "in.ndjson"), filepath.Join(dir, "out.ndjson")
		writeFile(t, in, []byte(sdkEdgeRequests))
		fin, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer fin.Close()
		fout, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		defer fout.Close()
		cmd.Stdin, cmd.Stdout = fin, fout
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v (%v)\nstderr:\n%s", err, ctx.Err(), stderr.String())
		}
		out, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v (%v)\nstdout:\n%s\nstderr:\n%s", err, ctx.Err(), stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// checkEdgeAnswers checks a server's output: one response per request of
// sdkEdgeRequests, each as sdkEdgeWant says.
func checkEdgeAnswers(t *testing.T, out []byte) {
	t.Helper()
	seen := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		var resp struct {
			ID     int `json:"id"`
			Result *struct {
				Title string `json:"title"`
			} `json:"result"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		want, ok := sdkEdgeWant[resp.ID]
		switch {
		case !ok || seen[resp.ID]:
			t.Errorf("unexpected response %s", line)
		case want.code == 0 && (resp.Result == nil || resp.Result.Title != want.title):
			t.Errorf("response %d: %s, want the result titled %q", resp.ID, line, want.title)
		case want.code != 0 && (resp.Error == nil || resp.Error.Code != want.code || !strings.HasPrefix(resp.Error.Message, want.message)):
			t.Errorf("response %d: %s, want error %d %q...", resp.ID, line, want.code, want.message)
		}
		seen[resp.ID] = true
	}
	if len(seen) != len(sdkEdgeWant) {
		t.Errorf("%d responses, want %d:\n%s", len(seen), len(sdkEdgeWant), out)
	}
}

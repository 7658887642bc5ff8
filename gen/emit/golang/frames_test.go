package golang_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// TestFrameDecoderOnRealCaptures: every frame the published client and the
// real runtime exchanged (../shared/fixtures/real-captures) decodes into a
// typed frame, and every response is paired with its request's method and
// decoded into that method's result type.
func TestFrameDecoderOnRealCaptures(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "fixtures", "real-captures")
	counts := map[string]int{}
	for _, scenario := range []string{"text-turn", "bash-tool", "subagent", "parallel-sessions", "unknown-method", "invalid-max-tokens"} {
		d := dshproto.NewFrameDecoder()
		for _, file := range []string{"client-to-server.jsonl", "server-to-client.jsonl"} {
			raw, err := os.ReadFile(filepath.Join(dir, scenario, file))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
				f, err := d.Decode(line)
				if err != nil {
					var de *dshproto.DecodeError
					if errors.As(err, &de) && scenario == "invalid-max-tokens" {
						counts["refused"]++ // maxTokens 1.5 and "10" are not an InitializeParams
						continue
					}
					t.Fatalf("%s %s: %s: %v", scenario, file, line, err)
				}
				switch f := f.(type) {
				case *dshproto.RequestFrame:
					counts["request"]++
				case *dshproto.NotificationFrame:
					if _, ok := f.Params.(dshproto.SessionEventNotification); f.Method == dshproto.MethodSessionEvent && !ok {
						t.Errorf("session.event params: %T", f.Params)
					}
					counts["notification"]++
				case *dshproto.ResultFrame:
					if f.Method == "" {
						t.Errorf("%s: result %s not paired with its request", scenario, f.ID)
					}
					if _, raw := f.Result.(json.RawMessage); raw {
						t.Errorf("%s: result of %s left raw", scenario, f.Method)
					}
					if init, ok := f.Result.(dshproto.InitializeResult); f.Method == dshproto.MethodInitialize && (!ok || init.ServerInfo.Name == "") {
						t.Errorf("initialize result: %#v", f.Result)
					}
					counts["result"]++
				case *dshproto.ErrorFrame:
					if f.Method == "" || f.Error.Code != -32603 {
						t.Errorf("%s: error frame %+v", scenario, f)
					}
					counts["error"]++
				}
			}
		}
	}
	for _, k := range []string{"request", "notification", "result", "error", "refused"} {
		if counts[k] == 0 {
			t.Errorf("no %s frame decoded: %v", k, counts)
		}
	}
	t.Logf("decoded: %v", counts)
	if _, err := dshproto.NewFrameDecoder().Decode([]byte(`{"jsonrpc":"2.0","id":1}`)); err == nil {
		t.Error("a frame of no kind decoded")
	}
}

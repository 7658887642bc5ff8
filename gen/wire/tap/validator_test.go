package tap

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

func shippedValidator(t *testing.T) *validate.Validator {
	t.Helper()
	m, err := ir.LoadBytes(schema.FileName, schema.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(m, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// liveVsFile runs client/server bytes through the tap with a
// ValidatorSink and a capture, then validates the capture file, and
// requires the two sets of findings to be equal field for field. out is
// what the tap wrote to its stdout (the server's bytes).
func liveVsFile(t *testing.T, v *validate.Validator, name string, client []byte, argv, env []string, decimals int) (res validate.Result, out []byte) {
	t.Helper()
	capPath := filepath.Join(t.TempDir(), "capture.log")
	f, err := os.Create(capPath)
	if err != nil {
		t.Fatal(err)
	}
	var live []validate.Finding
	sink := NewValidatorSink(v, ValidatorConfig{Name: "cap", Keep: -1, CaptureMsDecimals: decimals, OnFinding: func(f validate.Finding) { live = append(live, f) }})
	var stdout bytes.Buffer
	tr := runTap(t, Config{Command: argv, Env: env, Stdin: bytes.NewReader(client), Stdout: &stdout, Capture: f, CaptureMsDecimals: decimals, Sink: sink})
	f.Close()
	if tr.ExitCode != 0 || !tr.ValidationComplete {
		t.Fatalf("%s: exit %d, complete %v", name, tr.ExitCode, tr.ValidationComplete)
	}
	got := sink.Result()
	if len(live) != len(got.Findings) {
		t.Errorf("%s: OnFinding saw %d findings, Result has %d", name, len(live), len(got.Findings))
	}
	want, err := v.ValidateFile(capPath, validate.Input{Name: "cap"})
	if err != nil {
		t.Fatal(err)
	}
	if !want.Capture {
		t.Fatalf("%s: the capture was not read as a capture", name)
	}
	if got.Frames != want.Frames || !reflect.DeepEqual(got.Findings, want.Findings) {
		t.Errorf("%s: live validation differs from validating the capture (%d vs %d frames)", name, got.Frames, want.Frames)
		for i := 0; i < len(got.Findings) || i < len(want.Findings); i++ {
			var g, w string
			if i < len(got.Findings) {
				g = validate.TextLine(&got.Findings[i])
			}
			if i < len(want.Findings) {
				w = validate.TextLine(&want.Findings[i])
			}
			if g != w {
				t.Logf("  live: %s\n  file: %s", g, w)
			}
		}
	}
	t.Logf("%s: %d frames, %d findings (%d errors), live == capture", name, got.Frames, len(got.Findings), got.Errors())
	return got, stdout.Bytes()
}

// TestTapValidatorMatchesCaptureValidation: the real captures replayed
// through the tap (client side from the tap's stdin, server side from a
// server that writes the recorded bytes after the requests that preceded
// them) give the same findings live as
// `dshgen validate` gives on the tap's capture; the legitimate scenarios
// give no errors.
func TestTapValidatorMatchesCaptureValidation(t *testing.T) {
	v := shippedValidator(t)
	fx := filepath.Join("..", "..", "..", "shared", "fixtures", "real-captures")
	dirs, _ := filepath.Glob(filepath.Join(fx, "*", "client-to-server.jsonl"))
	if len(dirs) == 0 {
		t.Skip("real-capture fixtures not present")
	}
	legit := map[string]bool{"text-turn": true, "bash-tool": true, "subagent": true, "parallel-sessions": true, "stdin-eof-idle": true}
	for _, c2s := range dirs {
		dir := filepath.Dir(c2s)
		name := filepath.Base(dir)
		client, _ := os.ReadFile(c2s)
		argv, env := helperCmd("replay-log", "TAP_FILE="+filepath.Join(dir, "interleaved.log"))
		for _, dec := range []int{0, 3} {
			res, _ := liveVsFile(t, v, name, client, argv, env, dec)
			if legit[name] && res.Errors() != 0 {
				t.Errorf("%s: %d errors on legitimate traffic", name, res.Errors())
				for _, f := range res.Findings {
					t.Log(validate.TextLine(&f))
				}
			}
		}
	}
}

// TestTapValidatorHostileStreams: the same equality on hostile byte
// streams (BOM, CR, invalid UTF-8, empty lines, no final newline, long
// lines) in both directions, and on the case 14/15 files.
func TestTapValidatorHostileStreams(t *testing.T) {
	v := shippedValidator(t)
	for seed := uint64(20); seed < 24; seed++ {
		client := randomStream(seed, 40, false)
		srvFile := filepath.Join(t.TempDir(), "server")
		os.WriteFile(srvFile, randomStream(seed+50, 40, false), 0o644)
		argv, env := helperCmd("emit-file", "TAP_FILE="+srvFile)
		res, _ := liveVsFile(t, v, "random", client, argv, env, 0)
		if len(res.Findings) == 0 {
			t.Errorf("seed %d: hostile stream gave no findings", seed)
		}
	}
	for _, f := range caseFiles(t) {
		liveVsFile(t, v, filepath.Base(f), nil, []string{"cat", f}, nil, 0)
	}
}

// TestTapHostileLines: lines that broke the validator's byte path or its
// reading of numbers, and the framing edge cases, through the tap with cat
// as the server (so both directions carry them): the tap's stdout is its
// stdin byte for byte, and live validation equals validating the capture.
// The inputs: ids and strings that are not UTF-8 or lone surrogates
// (raw and escaped, in values and member names), duplicate members, ids
// spelled 1.0/1e0/-0/1e400, a Python float seq, deep nesting, batches,
// CRLF, BOM (of the stream and of a later line), blank and
// whitespace-only lines, NUL bytes, 2 MiB lines (the last one cut in
// half, without newline), and a truncated last frame without newline.
func TestTapHostileLines(t *testing.T) {
	v := shippedValidator(t)
	big := `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"` + strings.Repeat("x", 2<<20) + `","status":"idle"}}` + "\n"
	for _, in := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"error\":{\"code\":-32603,\"message\":\"x\"}}\n",
		`{"jsonrpc":"2.0","id":"\ud800","method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"\udc00","status":"idle","\ud800":1}}` + "\n",
		"\xed\xa0\x80{\"jsonrpc\":\"2.0\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"session.status\",\"params\":{\"sessionId\":\"a\xc0\",\"status\":\"idle\"}}\n",
		`{"jsonrpc":"2.0","id":1,"method":"shutdown","method":"initialize"}` + "\n" + `{"jsonrpc":"2.0","id":1.0,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":-0,"method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","id":1e400,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"turn/end","seq":1.0,"time":1,"data":{"turn":1E0,"reason":{"kind":"completed"}}}}}` + "\n",
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n" + `{"jsonrpc":"2.0","method":"session.status","params":` + strings.Repeat(`{"a":`, 3000) + "1" + strings.Repeat("}", 3000) + "}\n",
		"[]\n[" + `{"jsonrpc":"2.0","id":1,"method":"shutdown"}` + "]\n",
		"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\r\n\r\n \t\n\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":5}\r\n\x00\n",
		big + big[:len(big)/2],
		`{"jsonrpc":"2.0","id":1,"method":"shut`,
	} {
		res, out := liveVsFile(t, v, "hostile", []byte(in), []string{"cat"}, nil, 0)
		if !bytes.Equal(out, []byte(in)) {
			t.Errorf("%.60q: the tap wrote %d bytes for %d", in, len(out), len(in))
		}
		if len(res.Findings) == 0 {
			t.Errorf("%.60q: no findings", in)
		}
	}
}

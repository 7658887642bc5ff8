package validate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// expectedReal lists every finding the real captures give: "file:line rule
// severity". Everything else the real client and runtime wrote is clean.
//
//   - malformed-lines: exactly the ten injected lines (RULES.md says why).
//   - invalid-max-tokens and unknown-method, client-to-server.jsonl read
//     alone: the client really sent invalid initialize params and unknown
//     methods, and a one-direction stream cannot show that the runtime
//     rejected them, so they are errors; in interleaved.log the -32603
//     response is visible and they are warnings (the peer did its job).
var expectedReal = []string{
	"invalid-max-tokens/client-to-server.jsonl:1 params.schema error",
	"invalid-max-tokens/client-to-server.jsonl:2 params.schema error",
	"invalid-max-tokens/client-to-server.jsonl:3 params.schema error",
	"invalid-max-tokens/client-to-server.jsonl:4 params.schema error",
	"invalid-max-tokens/interleaved.log:1 params.schema error",
	"invalid-max-tokens/interleaved.log:3 params.schema error",
	"invalid-max-tokens/interleaved.log:5 params.schema error",
	"invalid-max-tokens/interleaved.log:7 params.schema error",
	"malformed-lines/client-to-server.jsonl:2 frame.json error",
	"malformed-lines/client-to-server.jsonl:3 frame.json error",
	"malformed-lines/client-to-server.jsonl:4 frame.blank warning",
	"malformed-lines/client-to-server.jsonl:5 frame.blank warning",
	"malformed-lines/client-to-server.jsonl:6 frame.not-object error",
	"malformed-lines/client-to-server.jsonl:7 frame.not-object error",
	"malformed-lines/client-to-server.jsonl:8 frame.not-object error",
	"malformed-lines/client-to-server.jsonl:9 frame.not-object error",
	"malformed-lines/client-to-server.jsonl:10 envelope.jsonrpc error",
	"malformed-lines/client-to-server.jsonl:10 envelope.kind error",
	"malformed-lines/client-to-server.jsonl:11 frame.json error",
	"malformed-lines/interleaved.log:3 frame.json error",
	"malformed-lines/interleaved.log:4 frame.json error",
	"malformed-lines/interleaved.log:5 frame.blank warning",
	"malformed-lines/interleaved.log:6 frame.blank warning",
	"malformed-lines/interleaved.log:7 frame.not-object error",
	"malformed-lines/interleaved.log:8 frame.not-object error",
	"malformed-lines/interleaved.log:9 frame.not-object error",
	"malformed-lines/interleaved.log:10 frame.not-object error",
	"malformed-lines/interleaved.log:11 envelope.jsonrpc error",
	"malformed-lines/interleaved.log:11 envelope.kind error",
	"malformed-lines/interleaved.log:12 frame.json error",
	"unknown-method/client-to-server.jsonl:2 method.unknown warning",
	"unknown-method/client-to-server.jsonl:3 method.unknown warning",
	"unknown-method/interleaved.log:3 method.unknown warning",
	"unknown-method/interleaved.log:5 method.unknown warning",
}

func realCaptureFiles(t *testing.T) (string, []string) {
	root := filepath.Join(sharedDir(t), "fixtures", "real-captures")
	var files []string
	for _, pat := range []string{"*/client-to-server.jsonl", "*/server-to-client.jsonl", "*/interleaved.log"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) != 24 {
		t.Fatalf("found %d capture files, want 24 (8 scenarios × 3)", len(files))
	}
	return root, files
}

func TestRealCaptures(t *testing.T) {
	v := shipped(t, Options{})
	root, files := realCaptureFiles(t)
	var got []string
	frames := 0
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		res, err := v.ValidateFile(p, Input{Name: rel})
		if err != nil {
			t.Fatal(err)
		}
		frames += res.Frames
		if strings.HasSuffix(p, ".log") != res.Capture {
			t.Errorf("%s: capture detected %v", rel, res.Capture)
		}
		for _, f := range res.Findings {
			got = append(got, fmt.Sprintf("%s:%d %s %s", rel, f.Line, f.Rule, f.Severity))
		}
	}
	if strings.Join(got, "\n") != strings.Join(expectedReal, "\n") {
		t.Errorf("real captures:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(expectedReal, "\n"))
	}
	t.Logf("%d files, %d frames, %d findings", len(files), frames, len(got))
}

// TestRealCapturesDirection: with the right --direction the one-direction
// files give the same; with the wrong one every request and notification
// is a method.direction error.
func TestRealCapturesDirection(t *testing.T) {
	v := shipped(t, Options{})
	root := filepath.Join(sharedDir(t), "fixtures", "real-captures", "text-turn")
	for _, c := range []struct {
		file string
		dir  string
	}{{"client-to-server.jsonl", "client-to-server"}, {"server-to-client.jsonl", "server-to-client"}} {
		res, err := v.ValidateFile(filepath.Join(root, c.file), Input{Direction: dirOf(c.dir)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Errorf("%s as %s:\n%s", c.file, c.dir, dumpFindings(res.Findings))
		}
		wrong := dirOf("client-to-server")
		if c.dir == "client-to-server" {
			wrong = dirOf("server-to-client")
		}
		res, _ = v.ValidateFile(filepath.Join(root, c.file), Input{Direction: wrong})
		n := 0
		for _, f := range res.Findings {
			if f.Rule == RuleMethodDirection {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s with the wrong direction: no method.direction findings", c.file)
		}
	}
}

// TestSnapshots: the upstream's normalized snapshot fixtures give no
// finding at all with --snapshot, and do give errors without it (so the
// mode is needed, and relaxes only what the normalizer changed).
func TestSnapshots(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedDir(t), "fixtures", "upstream-snapshots", "*", "notifications.expected.jsonl"))
	if len(files) != 4 {
		t.Fatalf("%d snapshot files", len(files))
	}
	snap := shipped(t, Options{Snapshot: true})
	strict := shipped(t, Options{})
	for _, p := range files {
		res, err := snap.ValidateFile(p, Input{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Errorf("%s with --snapshot:\n%s", p, dumpFindings(res.Findings))
		}
		sres, _ := strict.ValidateFile(p, Input{})
		rules := map[string]int{}
		for _, f := range errorsOf(sres.Findings) {
			rules[f.Rule]++
		}
		if rules[RuleEnvJSONRPC] != sres.Frames || rules[RuleParams] == 0 {
			t.Errorf("%s without --snapshot: %v (frames %d)", p, rules, sres.Frames)
		}
		if strings.Contains(p, "subagent") && rules[RuleSeq] != 2 {
			t.Errorf("%s without --snapshot: %d state.seq errors, want 2 (child merged into the parent's id)", p, rules[RuleSeq])
		}
	}
}

func dirOf(s string) ir.Direction { return ir.Direction(s) }

// TestWorkersSameFindings: decoding and schema checks on several workers
// give exactly the findings of one goroutine (real captures, snapshots,
// and a mutated capture with findings on many lines).
func TestWorkersSameFindings(t *testing.T) {
	v := shipped(t, Options{})
	_, files := realCaptureFiles(t)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		one := run(t, v, p, data, Input{Workers: 1})
		many := run(t, v, p, data, Input{Workers: 3})
		if !reflect.DeepEqual(one, many) {
			t.Errorf("%s: 1 worker and 3 workers differ:\n%s\n--\n%s", p, dumpFindings(one.Findings), dumpFindings(many.Findings))
		}
	}
	recs := loadCapture(t, "bash-tool")
	for i := range recs {
		if i%3 == 0 {
			recs[i].payload = recs[i].payload[:len(recs[i].payload)/2]
		}
	}
	data := bytes.Repeat(buildCapture(recs), 20)
	one := run(t, v, "m", data, Input{Workers: 1})
	many := run(t, v, "m", data, Input{Workers: 4})
	if !reflect.DeepEqual(one, many) || len(one.Findings) < 100 {
		t.Errorf("mutated capture: %d findings with 1 worker, %d with 4, equal %v", len(one.Findings), len(many.Findings), reflect.DeepEqual(one, many))
	}
}

// TestRealCapturesMixedNDJSON: the two directions of each real capture
// concatenated in capture order into one NDJSON file, as a logger writes
// them, are recognized by --direction auto as a mixed file: the findings
// are exactly those of the capture (no false direction errors, responses
// paired: the rejected requests' findings are warnings), and the
// one-direction files are still one-direction.
func TestRealCapturesMixedNDJSON(t *testing.T) {
	v := shipped(t, Options{})
	norm := regexp.MustCompile(`line \d+`)
	key := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			// Not the direction: a frame without a known method (a line
			// that is not JSON) has none in a mixed file.
			out = append(out, fmt.Sprintf("%s %s %s %s %s", f.Rule, f.Severity, f.Method, f.Pointer, norm.ReplaceAllString(f.Message, "line N")))
		}
		sort.Strings(out)
		return out
	}
	root := filepath.Join(sharedDir(t), "fixtures", "real-captures")
	for _, sc := range []string{"text-turn", "bash-tool", "subagent", "parallel-sessions", "stdin-eof-idle", "unknown-method", "invalid-max-tokens", "malformed-lines"} {
		capRes, err := v.ValidateFile(filepath.Join(root, sc, "interleaved.log"), Input{})
		if err != nil {
			t.Fatal(err)
		}
		var mixed bytes.Buffer
		for _, r := range loadCapture(t, sc) {
			mixed.Write(r.payload)
			mixed.WriteByte('\n')
		}
		res := run(t, v, sc+".jsonl", mixed.Bytes(), Input{})
		if !res.Mixed {
			t.Errorf("%s: not recognized as mixed", sc)
		}
		if got, want := key(res.Findings), key(capRes.Findings); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: mixed NDJSON gives\n  %s\nthe capture\n  %s", sc, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		for _, one := range []string{"client-to-server.jsonl", "server-to-client.jsonl"} {
			r, err := v.ValidateFile(filepath.Join(root, sc, one), Input{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Mixed {
				t.Errorf("%s/%s taken for a mixed file", sc, one)
			}
		}
	}
}

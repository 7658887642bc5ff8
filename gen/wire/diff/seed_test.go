package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// The real pair: the shipped schema (revision of seed 000 and the npm
// packages) and the seed-001 revision, with paths as `dshgen diff` prints
// them when run from the repository root.
const (
	shippedLabel = "schema/0.0.1/dsh-sdk-protocol.schema.json"
	seed001Label = "testdata/diff/seed-001/dsh-sdk-protocol.seed-001.schema.json"
	seed001Dir   = corpusDir + "/seed-001"
	pypiCaptures = seed001Dir + "/captures/pypi-0.2.1rc2"
)

// TestSeed001Report keeps testdata/diff/seed-001/expected.txt equal to the
// report of shipped → seed-001 and checks the findings that matter.
func TestSeed001Report(t *testing.T) {
	old := load(t, filepath.Join("../../..", shippedLabel))
	nw := load(t, filepath.Join("../../..", seed001Label))
	r := Compare(old, nw, shippedLabel, seed001Label)
	golden(t, filepath.Join(seed001Dir, "expected.txt"), r.Text())
	want := []struct {
		rule, subject string
		cat           Category
	}{
		{"notification-removed", "method session.status", WireBreakingS2C},
		{"required-member-removed", "SessionPromptResult.messageId", WireBreakingS2C},
		{"notification-added", "method session.finished", StrictReceivers},
		{"type-removed", "SessionStatusNotification", CodeBreaking},
		{"type-added", "SessionFinishedNotification", Compatible},
	}
	for _, w := range want {
		found := false
		for _, f := range r.Findings {
			found = found || f.Rule == w.rule && f.Subject == w.subject && f.Category == w.cat
		}
		if !found {
			t.Errorf("missing %s %s (%s) in:\n%s", w.rule, w.subject, w.cat, r.Text())
		}
	}
	if !r.Fails(FailWire) {
		t.Error("the seed-001 revision must fail --fail-on wire")
	}
}

// frame is one captured JSON-RPC line.
type frame struct {
	line int
	obj  map[string]any
}

func readFrames(t *testing.T, path string) []frame {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []frame
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, frame{n, obj})
	}
	return out
}

// TestPyPICapturesSpeakShippedRevision checks, on the sessions captured
// from the PyPI deepseek-harness-runtime-bin 0.2.1rc2 runtime (a plain pipe,
// and the deepseek-harness-sdk 0.2.1rc2 client through a tee), which
// revision the packages speak: the shipped one (session.status, and a
// session/prompt result that is an enqueue receipt written before the turn
// ends), not seed-001 (no session.finished, prompt answered before
// settlement).
func TestPyPICapturesSpeakShippedRevision(t *testing.T) {
	shipped := load(t, filepath.Join("../../..", shippedLabel))
	seed := load(t, filepath.Join("../../..", seed001Label))
	for _, run := range []string{"pipe", "sdk"} {
		t.Run(run, func(t *testing.T) {
			c2s := readFrames(t, filepath.Join(pypiCaptures, run, "client-to-server.jsonl"))
			s2c := readFrames(t, filepath.Join(pypiCaptures, run, "server-to-client.jsonl"))
			// The request id of session/prompt.
			var promptID any
			for _, f := range c2s {
				if f.obj["method"] == "session/prompt" {
					promptID = f.obj["id"]
				}
			}
			if promptID == nil {
				t.Fatal("no session/prompt request captured")
			}
			notif := map[string]int{}
			responseAt, turnEndAt, idleAt := -1, -1, -1
			for i, f := range s2c {
				m, _ := f.obj["method"].(string)
				if m == "" {
					if f.obj["id"] == promptID {
						responseAt = i
						res, _ := f.obj["result"].(map[string]any)
						validate(t, shipped, "#/$defs/SessionPromptResult", res, "shipped SessionPromptResult", true)
						if _, ok := res["messageId"].(string); !ok {
							t.Errorf("line %d: session/prompt result has no messageId: %v", f.line, res)
						}
					}
					continue
				}
				notif[m]++
				p, _ := f.obj["params"].(map[string]any)
				if ev, ok := p["event"].(map[string]any); ok && ev["type"] == "turn/end" && turnEndAt < 0 {
					turnEndAt = i
				}
				if m == "session.status" && p["status"] == "idle" && idleAt < 0 {
					idleAt = i
				}
				if shipped.Method(m) == nil {
					t.Errorf("line %d: notification %s is not in the shipped revision", f.line, m)
				}
			}
			if notif["session.status"] == 0 {
				t.Error("no session.status: not the shipped revision")
			}
			if notif["session.finished"] != 0 || seed.Method("session.finished") == nil {
				t.Error("session.finished captured: the seed-001 revision")
			}
			if shipped.Method("session.finished") != nil || seed.Method("session.status") != nil {
				t.Fatal("the two schemas no longer tell the revisions apart")
			}
			// Receipt semantics: the response comes before the turn ends.
			if responseAt < 0 || turnEndAt < 0 || idleAt < 0 || !(responseAt < turnEndAt && turnEndAt < idleAt) {
				t.Errorf("order: prompt response at %d, turn/end at %d, idle at %d; want response < turn/end < idle (an enqueue receipt)", responseAt, turnEndAt, idleAt)
			}
		})
	}
}

// validate checks v against the schema at ptr of m; want says whether it
// must be valid.
func validate(t *testing.T, m *ir.Model, ptr string, v any, what string, want bool) {
	t.Helper()
	s, err := m.Source().Compile(ptr)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); (err == nil) != want {
		t.Errorf("%s: valid=%v, want %v (%v)", what, err == nil, want, err)
	}
}

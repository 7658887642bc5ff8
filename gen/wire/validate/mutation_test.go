package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/wire/frame"
)

// The mutation suite: take the real, clean captures, break one frame in one
// way, and check that the validator reports it with the expected rule at
// that line (and, for the frame-local mutations, nothing else at an
// unrelated line is required).

type record struct {
	dir     string
	payload []byte
}

// cleanScenarios validate with no finding at all as captured.
var cleanScenarios = []string{"text-turn", "bash-tool", "subagent", "parallel-sessions", "stdin-eof-idle"}

func loadCapture(t testing.TB, scenario string) []record {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedDir(t), "fixtures", "real-captures", scenario, "interleaved.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := frame.NewCaptureReader(f, 0)
	var out []record
	for {
		rec, err := cr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.EOF {
			continue
		}
		out = append(out, record{rec.Dir, append([]byte(nil), rec.Payload...)})
	}
}

func buildCapture(recs []record) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		b.WriteString(r.dir)
		b.WriteString("\t0\t")
		b.Write(r.payload)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func decodeObj(b []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

func encode(m map[string]any) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// at returns the parent container and key of a pointer inside m.
func setAt(m map[string]any, ptr string, val any, del, create bool) bool {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var cur any = m
	for i, tok := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok && !(last && create) {
				return false
			}
			if last {
				if del {
					delete(c, tok)
				} else {
					c[tok] = val
				}
				return true
			}
			cur = x
		case []any:
			var n int
			if _, err := fmt.Sscan(tok, &n); err != nil || n >= len(c) {
				return false
			}
			if last {
				if del {
					return false
				}
				c[n] = val
				return true
			}
			cur = c[n]
		default:
			return false
		}
	}
	return false
}

type mutation struct {
	name string
	// apply mutates the frame at index i of recs (in place on a copy) and
	// returns the 1-based line where the finding is expected; 0 when the
	// mutation does not apply to this frame.
	apply func(recs []record, i int) ([]record, int)
	rule  string
}

// field mutations: set or delete one member of a decoded frame.
func fieldMutation(name, rule, method, ptr string, val any, del bool) mutation {
	return memberMutation(name, rule, method, ptr, val, del, false)
}

// addMutation adds a member the frame does not have.
func addMutation(name, rule, method, ptr string, val any) mutation {
	return memberMutation(name, rule, method, ptr, val, false, true)
}

func memberMutation(name, rule, method, ptr string, val any, del, create bool) mutation {
	return mutation{name: name, rule: rule, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || (method != "" && m["method"] != method) || (method == "" && m["method"] != nil) {
			return nil, 0
		}
		if method == "" {
			if _, ok := m[strings.Split(strings.TrimPrefix(ptr, "/"), "/")[0]]; !ok {
				return nil, 0
			}
		}
		if !setAt(m, ptr, val, del, create) {
			return nil, 0
		}
		out := append([]record(nil), recs...)
		out[i] = record{recs[i].dir, encode(m)}
		return out, i + 1
	}}
}

func eventTypeIs(recs []record, i int, typ string) bool {
	m := decodeObj(recs[i].payload)
	if m == nil || m["method"] != "session.event" {
		return false
	}
	ev, _ := m["params"].(map[string]any)["event"].(map[string]any)
	return ev != nil && ev["type"] == typ
}

func onEvent(typ string, mu mutation) mutation {
	inner := mu.apply
	mu.name = typ + ": " + mu.name
	mu.apply = func(recs []record, i int) ([]record, int) {
		if !eventTypeIs(recs, i, typ) {
			return nil, 0
		}
		return inner(recs, i)
	}
	return mu
}

var mutations = []mutation{
	// Wrong types.
	fieldMutation("seq as string", RuleParams, "session.event", "/params/event/seq", "7", false),
	fieldMutation("time as string", RuleParams, "session.event", "/params/event/time", "now", false),
	fieldMutation("sessionId as number", RuleParams, "session.event", "/params/sessionId", json.Number("5"), false),
	fieldMutation("status not an enum value", RuleParams, "session.status", "/params/status", "paused", false),
	fieldMutation("cwd as number", RuleParams, "initialize", "/params/cwd", json.Number("1"), false),
	fieldMutation("contentBlocks as object", RuleParams, "session/prompt", "/params/contentBlocks", map[string]any{}, false),
	fieldMutation("childSessionId as null", RuleParams, "subagent.started", "/params/childSessionId", nil, false),
	fieldMutation("messageId as number", RuleResult, "", "/result/messageId", json.Number("3"), false),
	fieldMutation("serverInfo.name as bool", RuleResult, "", "/result/serverInfo/name", true, false),
	onEvent("turn/start", fieldMutation("turn as string", RuleParams, "session.event", "/params/event/data/turn", "1", false)),
	onEvent("step/start", fieldMutation("step 0", RuleParams, "session.event", "/params/event/data/step", json.Number("0"), false)),
	onEvent("tool/call", fieldMutation("arguments as object", RuleParams, "session.event", "/params/event/data/arguments", map[string]any{}, false)),
	onEvent("assistant/chunk", fieldMutation("chunk index as string", RuleParams, "session.event", "/params/event/data/chunk/index", "0", false)),
	onEvent("user/message", fieldMutation("role assistant", RuleParams, "session.event", "/params/event/data/role", "assistant", false)),
	onEvent("assistant/message", fieldMutation("surfaceOp unknown", RuleParams, "session.event", "/params/event/surfaceOp", "prepend", false)),
	onEvent("turn/start", addMutation("surfaceOp on a non-surface event", RuleParams, "session.event", "/params/event/surfaceOp", "append")),
	// Missing required members.
	fieldMutation("event.data missing", RuleParams, "session.event", "/params/event/data", nil, true),
	fieldMutation("sessionId missing", RuleParams, "session.status", "/params/sessionId", nil, true),
	fieldMutation("model missing", RuleParams, "initialize", "/params/model", nil, true),
	fieldMutation("stopReason missing", RuleParams, "subagent.finished", "/params/stopReason", nil, true),
	fieldMutation("result.messageId missing", RuleResult, "", "/result/messageId", nil, true),
	fieldMutation("event.type missing", RuleUnionMissingTag, "session.event", "/params/event/type", nil, true),
	onEvent("tool/result", fieldMutation("surfaceOp missing", RuleParams, "session.event", "/params/event/surfaceOp", nil, true)),
	onEvent("tool/call", fieldMutation("callId missing", RuleParams, "session.event", "/params/event/data/callId", nil, true)),
	// Unknown methods.
	fieldMutation("unknown notification method", RuleMethodUnknown, "session.status", "/method", "session.bogus", false),
	fieldMutation("unknown request method", RuleMethodUnknown, "session/prompt", "/method", "session/bogus", false),
	// Bad tags.
	fieldMutation("unknown event type (open union)", RuleUnionUnknownTag, "session.event", "/params/event/type", "bogus/type", false),
	onEvent("assistant/chunk", fieldMutation("unknown chunk type (closed union)", RuleUnionUnknownTag, "session.event", "/params/event/data/chunk/type", "bogus-delta", false)),
	onEvent("turn/end", fieldMutation("reason kind as number", RuleUnionMissingTag, "session.event", "/params/event/data/reason/kind", json.Number("1"), false)),
	// Envelope.
	fieldMutation("jsonrpc missing", RuleEnvJSONRPC, "session.event", "/jsonrpc", nil, true),
	fieldMutation("jsonrpc 1.0", RuleEnvJSONRPC, "session.status", "/jsonrpc", "1.0", false),
	fieldMutation("fractional request id", RuleEnvID, "session/prompt", "/id", json.Number("1.5"), false),
	// Broken pairing.
	{name: "response id changed", rule: RuleResponseUnknownID, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || m["method"] != nil || m["id"] == nil {
			return nil, 0
		}
		m["id"] = "req_00000000000000000000000000000000"
		out := append([]record(nil), recs...)
		out[i] = record{recs[i].dir, encode(m)}
		return out, i + 1
	}},
	{name: "response duplicated", rule: RuleResponseDuplicate, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || m["method"] != nil || m["id"] == nil {
			return nil, 0
		}
		out := append(append(append([]record(nil), recs[:i+1]...), recs[i]), recs[i+1:]...)
		return out, i + 2
	}},
	{name: "request repeated while in flight", rule: RuleRequestDuplicate, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || m["method"] == nil || m["id"] == nil {
			return nil, 0
		}
		out := append(append(append([]record(nil), recs[:i+1]...), recs[i]), recs[i+1:]...)
		return out, i + 2
	}},
	{name: "response sent by the client", rule: RuleResponseUnknownID, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || m["method"] != nil || m["id"] == nil {
			return nil, 0
		}
		out := append([]record(nil), recs...)
		out[i] = record{frame.CaptureClientToServer, recs[i].payload}
		return out, i + 1
	}},
	// Wrong side.
	{name: "notification sent by the client", rule: RuleMethodDirection, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || m["method"] != "session.status" {
			return nil, 0
		}
		out := append([]record(nil), recs...)
		out[i] = record{frame.CaptureClientToServer, recs[i].payload}
		return out, i + 1
	}},
	// State: a lost event makes the next one of its session a seq error.
	{name: "event dropped", rule: RuleSeq, apply: func(recs []record, i int) ([]record, int) {
		m := decodeObj(recs[i].payload)
		if m == nil || m["method"] != "session.event" {
			return nil, 0
		}
		p := m["params"].(map[string]any)
		sid := p["sessionId"]
		if p["event"].(map[string]any)["seq"] == json.Number("0") {
			// A session's first event may have any seq (a resumed session
			// starts above 0), so losing event 0 cannot be told.
			return nil, 0
		}
		for j := i + 1; j < len(recs); j++ {
			n := decodeObj(recs[j].payload)
			if n != nil && n["method"] == "session.event" && n["params"].(map[string]any)["sessionId"] == sid {
				out := append(append([]record(nil), recs[:i]...), recs[i+1:]...)
				return out, j // line j+1 moved up by one
			}
		}
		return nil, 0
	}},
	onEvent("turn/start", fieldMutation("turn number skipped", RuleTurn, "session.event", "/params/event/data/turn", json.Number("2"), false)),
	onEvent("step/start", fieldMutation("step number skipped", RuleStep, "session.event", "/params/event/data/step", json.Number("5"), false)),
	onEvent("tool/result", fieldMutation("tool/result for another call", RuleToolResult, "session.event", "/params/event/data/message/source/callId", "call_nobody", false)),
	onEvent("tool/result", fieldMutation("sourceEventSeqs after seq", RuleSurfaceOp, "session.event", "/params/event/sourceEventSeqs", []any{json.Number("100000")}, false)),
	fieldMutation("subagent.finished for another child", RuleSubagent, "subagent.finished", "/params/childSessionId", "someone-else", false),
	// Framing.
	{name: "truncated frame", rule: RuleFrameJSON, apply: func(recs []record, i int) ([]record, int) {
		out := append([]record(nil), recs...)
		out[i] = record{recs[i].dir, recs[i].payload[:len(recs[i].payload)/2]}
		return out, i + 1
	}},
	{name: "invalid UTF-8", rule: RuleFrameUTF8, apply: func(recs []record, i int) ([]record, int) {
		p := recs[i].payload
		k := bytes.Index(p, []byte(`":"`))
		if k < 0 {
			return nil, 0
		}
		q := append(append(append([]byte(nil), p[:k+3]...), 0xff), p[k+3:]...)
		out := append([]record(nil), recs...)
		out[i] = record{recs[i].dir, q}
		return out, i + 1
	}},
}

func TestMutations(t *testing.T) {
	v := shipped(t, Options{})
	applied := map[string]int{}
	total := 0
	for _, sc := range cleanScenarios {
		recs := loadCapture(t, sc)
		base := run(t, v, sc, buildCapture(recs), Input{})
		if len(base.Findings) != 0 {
			t.Fatalf("%s is not clean:\n%s", sc, dumpFindings(base.Findings))
		}
		for _, mu := range mutations {
			for i := range recs {
				mrecs, line := mu.apply(recs, i)
				if line == 0 {
					continue
				}
				applied[mu.name]++
				total++
				res := run(t, v, sc, buildCapture(mrecs), Input{})
				found := false
				for _, f := range res.Findings {
					if f.Line == line && f.Rule == mu.rule && (f.Severity == Error || mu.rule == RuleUnionUnknownTag || mu.rule == RuleMethodUnknown) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s line %d, %s: no %s finding; got:\n%s", sc, line, mu.name, mu.rule, dumpFindings(res.Findings))
				}
			}
		}
	}
	for _, mu := range mutations {
		if applied[mu.name] == 0 {
			t.Errorf("mutation %q applied to no frame", mu.name)
		}
	}
	t.Logf("%d mutations of %d kinds, each caught", total, len(mutations))
}

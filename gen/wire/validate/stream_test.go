package validate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

const (
	c2s = ir.ClientToServer
	s2c = ir.ServerToClient
)

// Hand-made frames of the shipped protocol.

func initReq(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m"}}`
}
func initRes(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"serverInfo":{"name":"deepseek-harness-sdk-runtime","version":"0.0.1"}}}`
}
func promptReq(id, sid string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{"sessionId":"` + sid + `","contentBlocks":[{"type":"text","text":"hi"}]}}`
}
func promptRes(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"messageId":"m-1"}}`
}
func errRes(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"boom"}}`
}
func status(sid, st string) string {
	return `{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"` + sid + `","status":"` + st + `"}}`
}
func event(sid string, seq int, typ, data string, extra ...string) string {
	x := ""
	for _, e := range extra {
		x += "," + e
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":%q,"event":{"type":%q,"seq":%d,"time":1795975338140,"data":%s%s}}}`, sid, typ, seq, data, x)
}
func turnStart(sid string, seq, turn int) string {
	return event(sid, seq, "turn/start", fmt.Sprintf(`{"turn":%d}`, turn))
}
func turnEnd(sid string, seq, turn int) string {
	return event(sid, seq, "turn/end", fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
}
func stepStart(sid string, seq, turn, step int) string {
	return event(sid, seq, "step/start", fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
}
func stepEnd(sid string, seq, turn, step int) string {
	return event(sid, seq, "step/end", fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step))
}
func chunk(sid string, seq, turn, step int) string {
	return event(sid, seq, "assistant/chunk", fmt.Sprintf(`{"turn":%d,"step":%d,"chunk":{"type":"text-delta","index":0,"text":"x"}}`, turn, step))
}
func toolCallEv(sid string, seq, turn, step int, call string) string {
	return event(sid, seq, "tool/call", fmt.Sprintf(`{"turn":%d,"step":%d,"callId":%q,"name":"bash","arguments":"{}"}`, turn, step, call))
}
func toolResult(sid string, seq, turn, step int, call string, sources string) string {
	return event(sid, seq, "tool/result", fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"source":{"kind":"tool","callId":%q},"content":[{"type":"tool-result","toolCallId":%q,"content":[{"type":"text","text":"hi\n"}],"isError":false}],"role":"user","id":"u-1"}}`, turn, step, call, call),
		`"sourceEventSeqs":`+sources, `"surfaceOp":"append"`)
}

type step struct {
	dir  ir.Direction
	line string
}

// rulesOf returns "line:rule:severity" for each finding.
func rulesOf(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%d:%s:%s", f.Line, f.Rule, f.Severity))
	}
	return strings.Join(out, " ")
}

func feedSteps(v *Validator, both bool, steps []step) []Finding {
	s := v.NewStream(StreamConfig{Name: "t", Both: both})
	var dirs []ir.Direction
	var lines []string
	for _, st := range steps {
		dirs = append(dirs, st.dir)
		lines = append(lines, st.line)
	}
	return feedLines(s, dirs, lines...)
}

func TestStreamRules(t *testing.T) {
	v := shipped(t, Options{})
	sid := "s1"
	cases := []struct {
		name  string
		both  bool
		steps []step
		want  string
	}{
		{"clean session", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, sid)},
			{s2c, status(sid, "running")}, {s2c, turnStart(sid, 0, 1)}, {s2c, promptRes(`"r2"`)},
			{s2c, stepStart(sid, 1, 1, 1)}, {s2c, chunk(sid, 2, 1, 1)}, {s2c, toolCallEv(sid, 3, 1, 1, "c1")},
			{s2c, toolResult(sid, 4, 1, 1, "c1", "[3]")}, {s2c, stepEnd(sid, 5, 1, 1)}, {s2c, stepStart(sid, 6, 1, 2)},
			{s2c, stepEnd(sid, 7, 1, 2)}, {s2c, turnEnd(sid, 8, 1)}, {s2c, status(sid, "idle")},
			{c2s, promptReq(`"r3"`, sid)}, {s2c, promptRes(`"r3"`)}, {s2c, turnStart(sid, 9, 2)},
		}, ""},
		{"initialize first", true, []step{{c2s, promptReq(`"r1"`, sid)}, {s2c, promptRes(`"r1"`)}},
			"1:state.initialize-first:error"},
		{"initialize first, one direction", false, []step{{"", promptReq(`"r1"`, sid)}},
			"1:state.initialize-first:error"},
		{"duplicate in-flight id", true, []step{{c2s, initReq(`"r1"`)}, {c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}},
			"2:request.duplicate-id:error"},
		{"integer ids pair", true, []step{{c2s, initReq(`7`)}, {s2c, initRes(`7`)}}, ""},
		{"string and integer ids differ", true, []step{{c2s, initReq(`7`)}, {s2c, initRes(`"7"`)}},
			"1:request.unanswered:info 2:response.unknown-id:error"},
		{"response to unknown id", true, []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {s2c, initRes(`"zz"`)}},
			"3:response.unknown-id:error"},
		{"second response", true, []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {s2c, initRes(`"r1"`)}},
			"3:response.duplicate:error"},
		{"response from the requesting side", true, []step{{c2s, initReq(`"r1"`)}, {c2s, initRes(`"r1"`)}},
			"1:request.unanswered:info 2:response.unknown-id:error"},
		{"unanswered", true, []step{{c2s, initReq(`"r1"`)}}, "1:request.unanswered:info"},
		{"result checked against the method's result type", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, `{"jsonrpc":"2.0","id":"r1","result":{"serverInfo":{"name":"x"}}}`}},
			"2:result.schema:error"},
		{"error checked against JsonRpcError", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, `{"jsonrpc":"2.0","id":"r1","error":{"code":"x","message":"m"}}`}},
			"2:error.schema:error"},
		{"bad params answered with an error: still an error", true, []step{
			{c2s, `{"jsonrpc":"2.0","id":"r1","method":"initialize","params":{"cwd":"/w","provider":"p","model":"m","maxTokens":0}}`},
			{s2c, errRes(`"r1"`)}},
			"1:params.schema:error"},
		{"bad params answered with a result: error", true, []step{
			{c2s, `{"jsonrpc":"2.0","id":"r1","method":"initialize","params":{"cwd":"/w","provider":"p","model":"m","maxTokens":0}}`},
			{s2c, initRes(`"r1"`)}},
			"1:params.schema:error"},
		{"bad params unanswered: error", true, []step{
			{c2s, `{"jsonrpc":"2.0","id":"r1","method":"initialize","params":{"cwd":"/w","provider":"p","model":"m","maxTokens":0}}`}},
			"1:params.schema:error 1:request.unanswered:info"},
		{"unknown method answered with an error", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)},
			{c2s, `{"jsonrpc":"2.0","id":"r2","method":"no/such","params":{}}`}, {s2c, errRes(`"r2"`)}},
			"3:method.unknown:warning"},
		{"unknown notification", false, []step{{"", `{"jsonrpc":"2.0","method":"session.bogus","params":{}}`}},
			"1:method.unknown:warning"},
		{"prompt overlap", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, sid)}, {s2c, promptRes(`"r2"`)},
			{c2s, promptReq(`"r3"`, sid)}, {s2c, promptRes(`"r3"`)}},
			"5:state.prompt-overlap:error"},
		{"prompt overlap before the response", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, sid)}, {c2s, promptReq(`"r3"`, sid)},
			{s2c, promptRes(`"r2"`)}, {s2c, promptRes(`"r3"`)}},
			"4:state.prompt-overlap:error"},
		{"prompts on two sessions", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, "a")}, {c2s, promptReq(`"r3"`, "b")},
			{s2c, promptRes(`"r2"`)}, {s2c, promptRes(`"r3"`)}}, ""},
		{"prompt after a rejected prompt", true, []step{
			{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, sid)}, {s2c, errRes(`"r2"`)},
			{c2s, promptReq(`"r3"`, sid)}, {s2c, promptRes(`"r3"`)}}, ""},
		{"seq gap", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 2, 1, 1)}},
			"2:state.seq:error"},
		{"seq repeated", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 0, 1, 1)}},
			"2:state.seq:error"},
		{"resumed session starts above 0", false, []step{{"", stepStart(sid, 40, 3, 2)}, {"", stepEnd(sid, 41, 3, 2)}, {"", turnEnd(sid, 42, 3)}, {"", turnStart(sid, 43, 4)}}, ""},
		{"seq per session", false, []step{{"", turnStart("a", 0, 1)}, {"", turnStart("b", 0, 1)}, {"", stepStart("a", 1, 1, 1)}}, ""},
		{"turn numbering", false, []step{{"", turnStart(sid, 0, 1)}, {"", turnEnd(sid, 1, 1)}, {"", turnStart(sid, 2, 3)}},
			"3:state.turn:error"},
		{"first turn is 1", false, []step{{"", turnStart(sid, 0, 2)}}, "1:state.turn:error"},
		{"turn/start while open", false, []step{{"", turnStart(sid, 0, 1)}, {"", turnStart(sid, 1, 2)}},
			"2:state.turn:error"},
		{"turn/end of another turn", false, []step{{"", turnStart(sid, 0, 1)}, {"", turnEnd(sid, 1, 2)}},
			"2:state.turn:error"},
		{"event outside a turn", false, []step{{"", turnStart(sid, 0, 1)}, {"", turnEnd(sid, 1, 1)}, {"", chunk(sid, 2, 1, 1)}},
			"3:state.turn:error"},
		{"one finding, then resync", false, []step{{"", turnStart(sid, 0, 1)}, {"", turnEnd(sid, 1, 1)},
			{"", chunk(sid, 2, 1, 1)}, {"", chunk(sid, 3, 1, 1)}, {"", chunk(sid, 4, 1, 1)}},
			"3:state.turn:error"},
		{"step numbering", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 2)}},
			"2:state.step:error"},
		{"step restarts per turn", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", stepEnd(sid, 2, 1, 1)},
			{"", turnEnd(sid, 3, 1)}, {"", turnStart(sid, 4, 2)}, {"", stepStart(sid, 5, 2, 1)}}, ""},
		{"step/start while open", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", stepStart(sid, 2, 1, 2)}},
			"3:state.step:error"},
		{"chunk names another step", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", chunk(sid, 2, 1, 2)}},
			"3:state.step:error"},
		{"turn/end with a step open", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", turnEnd(sid, 2, 1)}},
			"3:state.step:error"},
		{"tool/result without tool/call", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)},
			{"", toolResult(sid, 2, 1, 1, "c9", "[1]")}}, "3:state.tool-result:error"},
		{"second tool/result", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", toolCallEv(sid, 2, 1, 1, "c1")},
			{"", toolResult(sid, 3, 1, 1, "c1", "[2]")}, {"", toolResult(sid, 4, 1, 1, "c1", "[2]")}}, "5:state.tool-result:error"},
		{"tool/result in another step", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", toolCallEv(sid, 2, 1, 1, "c1")},
			{"", stepEnd(sid, 3, 1, 1)}, {"", stepStart(sid, 4, 1, 2)}, {"", toolResult(sid, 5, 1, 2, "c1", "[2]")}}, "6:state.tool-result:error"},
		{"sourceEventSeqs not before seq", false, []step{{"", turnStart(sid, 0, 1)}, {"", stepStart(sid, 1, 1, 1)}, {"", toolCallEv(sid, 2, 1, 1, "c1")},
			{"", toolResult(sid, 3, 1, 1, "c1", "[3]")}}, "4:state.surface-op:error"},
		{"subagent finished without started", false, []step{
			{"", `{"jsonrpc":"2.0","method":"subagent.finished","params":{"provider":"spawn","agentId":"c","parentSessionId":"p","childSessionId":"c","status":"ok","stopReason":"completed"}}`}},
			"1:state.subagent:error"},
		{"subagent started then finished", false, []step{
			{"", `{"jsonrpc":"2.0","method":"subagent.started","params":{"parentSessionId":"p","childSessionId":"c"}}`},
			{"", `{"jsonrpc":"2.0","method":"subagent.finished","params":{"provider":"spawn","agentId":"c","parentSessionId":"p","childSessionId":"c","status":"ok","stopReason":"completed"}}`}}, ""},
		{"subagent parent mismatch", false, []step{
			{"", `{"jsonrpc":"2.0","method":"subagent.started","params":{"parentSessionId":"p","childSessionId":"c"}}`},
			{"", `{"jsonrpc":"2.0","method":"subagent.finished","params":{"provider":"spawn","agentId":"c","parentSessionId":"q","childSessionId":"c","status":"ok","stopReason":"completed"}}`}},
			"2:state.subagent:error"},
		{"unknown event type: warning only", false, []step{{"", turnStart(sid, 0, 1)}, {"", event(sid, 1, "plugin/custom", `{"x":1}`)}, {"", turnEnd(sid, 2, 1)}},
			"2:union.unknown-tag:warning"},
		{"unknown content block: warning", true, []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)},
			{c2s, `{"jsonrpc":"2.0","id":"r2","method":"session/prompt","params":{"sessionId":"s","contentBlocks":[{"type":"hologram"}]}}`}, {s2c, promptRes(`"r2"`)}},
			"3:union.unknown-tag:warning"},
		{"bad frame: one finding, state untouched", false, []step{{"", turnStart(sid, 0, 1)}, {"", event(sid, 1, "turn/end", `{"turn":"1","reason":{"kind":"completed"}}`)},
			{"", turnEnd(sid, 2, 1)}}, "2:params.schema:error"},
		// Envelope and method table.
		{"jsonrpc 1.0", false, []step{{"", `{"jsonrpc":"1.0","method":"session.status","params":{"sessionId":"s","status":"idle"}}`}}, "1:envelope.jsonrpc:error"},
		{"fractional id", true, []step{{c2s, `{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"cwd":"/w","provider":"p","model":"m"}}`}, {s2c, initRes(`1.5`)}},
			"1:envelope.id:error 2:envelope.id:error"},
		{"notification with id null", false, []step{{"", `{"jsonrpc":"2.0","id":null,"method":"session.status","params":{"sessionId":"s","status":"idle"}}`}}, "1:envelope.id:error"},
		{"boolean id", false, []step{{"", `{"jsonrpc":"2.0","id":true,"method":"session.status","params":{"sessionId":"s","status":"idle"}}`}}, "1:envelope.id:error"},
		{"neither request nor response", false, []step{{"", `{"jsonrpc":"2.0","params":{}}`}}, "1:envelope.kind:error"},
		{"result and error", true, []step{{c2s, initReq(`"r1"`)}, {s2c, `{"jsonrpc":"2.0","id":"r1","result":{},"error":{"code":1,"message":"m"}}`}},
			"2:envelope.response:error"},
		{"neither result nor error", true, []step{{c2s, initReq(`"r1"`)}, {s2c, `{"jsonrpc":"2.0","id":"r1"}`}},
			"2:envelope.response:error"},
		{"notification sent as a request", true, []step{{s2c, `{"jsonrpc":"2.0","id":"x","method":"session.status","params":{"sessionId":"s","status":"idle"}}`}},
			"1:method.kind:error 1:request.unanswered:info"},
		{"request sent as a notification", false, []step{{"", `{"jsonrpc":"2.0","method":"initialize","params":{"cwd":"/w","provider":"p","model":"m"}}`}},
			"1:method.kind:error"},
		{"wrong side", true, []step{{c2s, status("s", "idle")}}, "1:method.direction:error"},
		{"params missing", false, []step{{"", `{"jsonrpc":"2.0","method":"session.status"}`}}, "1:params.schema:error"},
		{"optional params absent", true, []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)},
			{c2s, `{"jsonrpc":"2.0","id":"r2","method":"shutdown"}`}, {s2c, `{"jsonrpc":"2.0","id":"r2","result":{}}`}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := feedSteps(v, c.both, c.steps)
			if g := rulesOf(got); g != c.want {
				t.Errorf("got  %q\nwant %q\n%s", g, c.want, dumpFindings(got))
			}
		})
	}
}

func TestPromptOverlapSeverity(t *testing.T) {
	steps := []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, "s")}, {c2s, promptReq(`"r3"`, "s")},
		{s2c, promptRes(`"r2"`)}, {s2c, promptRes(`"r3"`)}}
	for sev, want := range map[Severity]string{
		Error: "4:state.prompt-overlap:error", Warning: "4:state.prompt-overlap:warning", Off: "",
	} {
		v := shipped(t, Options{PromptOverlap: sev})
		if g := rulesOf(feedSteps(v, true, steps)); g != want {
			t.Errorf("%s: got %q want %q", sev, g, want)
		}
	}
	// Settled by the session's idle after the response.
	v := shipped(t, Options{})
	ok := []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, "s")}, {s2c, promptRes(`"r2"`)},
		{s2c, status("s", "idle")}, {c2s, promptReq(`"r3"`, "s")}, {s2c, promptRes(`"r3"`)}}
	if g := rulesOf(feedSteps(v, true, ok)); g != "" {
		t.Errorf("settled prompt: %q", g)
	}
	// One-direction streams cannot see settlement: the rule does not run.
	one := []step{{"", initReq(`"r1"`)}, {"", promptReq(`"r2"`, "s")}, {"", promptReq(`"r3"`, "s")}}
	if g := rulesOf(feedSteps(v, false, one)); g != "" {
		t.Errorf("one direction: %q", g)
	}
}

// TestPromptOverlapByRevision: revision 0.2.1's runtime queues a second
// prompt on a busy session, and its schema turns state.prompt-overlap off
// (x-dshgen-rule-severity): the same overlap that is an error under 0.0.1
// is clean under 0.2.1, unless the caller asks for the rule (--rule wins).
func TestPromptOverlapByRevision(t *testing.T) {
	steps := []step{{c2s, initReq(`"r1"`)}, {s2c, initRes(`"r1"`)}, {c2s, promptReq(`"r2"`, "s")}, {c2s, promptReq(`"r3"`, "s")},
		{s2c, promptRes(`"r2"`)}, {s2c, promptRes(`"r3"`)}}
	p021 := filepath.Join(moduleRoot(t), "schema", "0.2.1", "dsh-sdk-protocol.schema.json")
	for _, c := range []struct {
		name string
		v    *Validator
		want string
	}{
		{"0.0.1", shipped(t, Options{}), "4:state.prompt-overlap:error"},
		{"0.2.1", newValidator(t, p021, Options{}), ""},
		{"0.2.1 --rule state.prompt-overlap=warning", newValidator(t, p021, Options{Rules: map[string]Severity{RulePromptOverlap: Warning}}), "4:state.prompt-overlap:warning"},
		{"0.2.1 --prompt-overlap error", newValidator(t, p021, Options{PromptOverlap: Error}), "4:state.prompt-overlap:error"},
	} {
		if g := rulesOf(feedSteps(c.v, true, steps)); g != c.want {
			t.Errorf("%s: got %q want %q", c.name, g, c.want)
		}
	}
}

// TestFeedRaw: the live proxy's entry point strips CR and a leading BOM.
func TestFeedRaw(t *testing.T) {
	v := shipped(t, Options{})
	s := v.NewStream(StreamConfig{Name: "tap", Both: true})
	var got []Finding
	got = append(got, s.FeedRaw(c2s, 1, 0, []byte("\xef\xbb\xbf"+initReq(`"r1"`)+"\r"), true)...)
	got = append(got, s.FeedRaw(s2c, 1, 0, []byte(initRes(`"r1"`)), false)...)
	got = append(got, s.FeedOversize(s2c, 2, 100, 1<<30, true)...)
	got = append(got, s.Close()...)
	if g := rulesOf(got); g != "1:frame.bom:warning 1:frame.crlf:warning 1:frame.no-final-newline:warning 2:frame.too-large:error" {
		t.Errorf("got %q\n%s", g, dumpFindings(got))
	}
	if got[0].Direction != c2s || got[2].Direction != s2c {
		t.Errorf("directions %q %q", got[0].Direction, got[2].Direction)
	}
}

// TestMixedDirection: --direction both pairs responses inside one NDJSON file.
func TestMixedDirection(t *testing.T) {
	v := shipped(t, Options{})
	data := strings.Join([]string{initReq(`"r1"`), initRes(`"r1"`), initRes(`"r9"`), status("s", "idle")}, "\n") + "\n"
	res := run(t, v, "mixed", []byte(data), Input{Both: true})
	if g := rulesOf(res.Findings); g != "3:response.unknown-id:error" {
		t.Errorf("got %q\n%s", g, dumpFindings(res.Findings))
	}
	// An unpaired response in a mixed file could come from either side.
	if res.Findings[0].Direction != "" {
		t.Errorf("direction of an unpaired response: %q", res.Findings[0].Direction)
	}
}

// TestDeepInvalidFrame: a small frame with 1000 nested arrays and an error
// elsewhere gets one finding at once (the library alone would take tens of
// seconds on it).
func TestDeepInvalidFrame(t *testing.T) {
	v := shipped(t, Options{})
	deep := strings.Repeat("[", 1000) + "1" + strings.Repeat("]", 1000)
	bad := event("s", 0, "tool/call", `{"turn":"x","step":1,"callId":"c","name":"n","arguments":"{}","extra":`+deep+`}`)
	ok := event("s", 0, "tool/result", `{"turn":1,"step":1,"meta":`+deep+`,"message":{"source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"x"}],"isError":false}],"role":"user","id":"u"}}`, `"sourceEventSeqs":[0]`, `"surfaceOp":"append"`)
	res := run(t, v, "deep", []byte(bad+"\n"), Input{})
	if len(res.Findings) != 1 || res.Findings[0].Rule != RuleParams || !strings.Contains(res.Findings[0].Message, "more than 128 levels") {
		t.Errorf("deep invalid frame:\n%s", dumpFindings(res.Findings))
	}
	// Valid at any depth: the fast check accepts it (meta is a JsonValue).
	res = run(t, v, "deep", []byte(ok+"\n"), Input{})
	for _, f := range res.Findings {
		if strings.Contains(f.Message, "levels deep") {
			t.Errorf("deep valid value not accepted: %s", TextLine(&f))
		}
	}
}

package validate

import (
	"encoding/json"
	"fmt"

	"github.com/dshgen/dshgen/gen/ir"
)

// protocol says which stateful rules the schema supports. A rule only runs
// when the schema defines what it is about (the methods, the event types),
// so a cut-down schema (the cases' mini protocol) gets only the rules it can
// mean: with no step/start event type there is no step numbering to check.
type protocol struct {
	hasInitialize bool
	events        bool            // session.event with params.event
	tags          map[string]bool // SessionEvent tags
	turn          bool            // turn/start + turn/end
	step          bool            // + step/start + step/end
	tool          bool            // tool/call + tool/result
	surface       bool            // any surface event type
	subagent      bool            // subagent.started + subagent.finished
	prompt        bool            // session/prompt + session.status
}

// Wire names the stateful rules are about (WIRE-FACTS §2–§5).
const (
	evTurnStart = "turn/start"
	evTurnEnd   = "turn/end"
	evStepStart = "step/start"
	evStepEnd   = "step/end"
	evToolCall  = "tool/call"
	evToolRes   = "tool/result"
)

// surfaceTypes carry surfaceOp (required) and may carry sourceEventSeqs.
var surfaceTypes = map[string]bool{"user/message": true, "assistant/message": true, "tool/result": true}

// stepScoped events name the open turn and step in data.turn / data.step.
var stepScoped = map[string]bool{"assistant/chunk": true, "assistant/message": true, evToolCall: true, evToolRes: true}

// turnScoped events must be inside an open turn.
var turnScoped = map[string]bool{"todo/write": true, "request/header": true, "request/context": true}

func newProtocol(m *ir.Model) protocol {
	p := protocol{tags: map[string]bool{}}
	p.hasInitialize = m.Method("initialize") != nil
	if me := m.Method("session.event"); me != nil && me.Kind == ir.Notification && me.Params != nil {
		p.events = true
		for _, f := range me.Params.Fields {
			if f.Wire != "event" {
				continue
			}
			if t := namedOf(&f.Type); t != nil && t.Kind == ir.KindUnion && t.Union != nil && t.Union.By == ir.ByTag && t.Union.Tag == "type" {
				for _, v := range t.Union.Variants {
					p.tags[v.TagValue] = true
				}
			}
		}
	}
	p.turn = p.tags[evTurnStart] && p.tags[evTurnEnd]
	p.step = p.turn && p.tags[evStepStart] && p.tags[evStepEnd]
	p.tool = p.tags[evToolCall] && p.tags[evToolRes]
	for t := range surfaceTypes {
		p.surface = p.surface || p.tags[t]
	}
	p.subagent = m.Method("subagent.started") != nil && m.Method("subagent.finished") != nil
	p.prompt = m.Method("session/prompt") != nil && m.Method("session.status") != nil
	return p
}

// namedOf follows aliases to the named type a reference ends at.
func namedOf(r *ir.TypeRef) *ir.Type {
	for i := 0; r != nil && i < 32; i++ {
		if r.Kind != ir.RefNamed || r.Named == nil {
			return nil
		}
		if r.Named.Kind == ir.KindAlias && r.Named.Alias != nil {
			r = r.Named.Alias
			continue
		}
		return r.Named
	}
	return nil
}

// state is the protocol state of one stream.
type state struct {
	sessions map[string]*sessionGroup
	started  map[string]subagentStart // by child session id
	finished map[string]int           // child → line of subagent.finished
	prompts  map[string][]*prompt     // unsettled session/prompt requests by session id
}

type subagentStart struct {
	parent string
	line   int
}

type prompt struct {
	req       *request
	responded bool
	idle      bool
}

// sessionGroup holds the sessions seen under one session id: one, except
// in --snapshot mode, where the normalizer gave a parent and its children
// the same placeholder id; there each event goes to the session whose seq
// it continues (and seq 0 starts a new one).
type sessionGroup struct {
	list []*session
	last int
}

type session struct {
	seqKnown  bool
	nextSeq   int64
	turnKnown bool // the stream has shown where this session's turns stand
	turn      int64
	lastTurn  int64
	step      int64
	lastStep  int64
	calls     map[string]*toolCall
}

// suspend forgets where the session's turns stand (after a finding that
// shows events are missing), so that one fault gives one finding; checking
// resumes at the next turn/start.
func (ss *session) suspend() {
	ss.turnKnown = false
	ss.turn, ss.step = 0, 0
	ss.calls = nil
}

type toolCall struct {
	step    int64
	line    int
	results int
}

func newState() *state {
	return &state{sessions: map[string]*sessionGroup{}, started: map[string]subagentStart{}, finished: map[string]int{}, prompts: map[string][]*prompt{}}
}

// intOf returns a JSON integer's value.
func intOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func (s *Stream) session(id string, seq int64, seqOK bool) *session {
	g := s.st.sessions[id]
	if g == nil {
		g = &sessionGroup{list: []*session{{}}}
		s.st.sessions[id] = g
	}
	if !s.v.opts.Snapshot || !isPlaceholder(id) || !seqOK {
		return g.list[g.last]
	}
	for i, ss := range g.list {
		if !ss.seqKnown || ss.nextSeq == seq {
			g.last = i
			return ss
		}
	}
	if seq == 0 {
		g.list = append(g.list, &session{})
		g.last = len(g.list) - 1
	}
	return g.list[g.last]
}

// onNotification runs the stateful rules for a notification; valid is
// false when the frame had errors, and then only the seq bookkeeping runs
// (one finding per bad frame: its schema error).
func (s *Stream) onNotification(c *frameCtx, name string, p map[string]any, valid bool) {
	switch name {
	case "session.event":
		if s.v.proto.events {
			s.onEvent(c, p, valid)
		}
	case "session.status":
		if valid {
			if sid, ok := p["sessionId"].(string); ok && p["status"] == "idle" {
				s.sessionIdle(sid)
			}
		}
	case "subagent.started", "subagent.finished":
		if valid && s.v.proto.subagent {
			s.onSubagent(c, name, p)
		}
	}
}

func (s *Stream) onEvent(c *frameCtx, p map[string]any, valid bool) {
	sid, ok := p["sessionId"].(string)
	ev, ok2 := p["event"].(map[string]any)
	if !ok || !ok2 {
		return
	}
	seq, seqOK := intOf(ev["seq"])
	seqOK = seqOK && seq >= 0
	ss := s.session(sid, seq, seqOK)
	if seqOK {
		switch {
		case !ss.seqKnown:
			ss.seqKnown = true
			ss.turnKnown = seq == 0
		case seq != ss.nextSeq:
			if valid {
				c.add(RuleSeq, "", "/params/event/seq", fmt.Sprintf("session %q: seq %d after %d (expected %d; seq is contiguous per session)", sid, seq, ss.nextSeq-1, ss.nextSeq))
			}
			// Events were lost or mixed in: where the turns stand is
			// unknown until the next turn/start (no cascade of findings).
			ss.suspend()
		}
		ss.nextSeq = seq + 1
	}
	if !valid {
		return
	}
	typ, _ := ev["type"].(string)
	proto := &s.v.proto
	if !proto.tags[typ] {
		return // an unknown (fallback) event type: nothing to check
	}
	data, _ := ev["data"].(map[string]any)
	turn, hasTurn := intOf(data["turn"])
	step, hasStep := intOf(data["step"])
	tp := "/params/event/data/turn"
	sp := "/params/event/data/step"
	pre := fmt.Sprintf("session %q: ", sid)
	checkTurn := func() {
		if !proto.turn || !ss.turnKnown || !hasTurn {
			return
		}
		if ss.turn == 0 {
			c.add(RuleTurn, "", tp, pre+fmt.Sprintf("%s names turn %d but no turn is open", typ, turn))
			ss.suspend()
		} else if turn != ss.turn {
			c.add(RuleTurn, "", tp, pre+fmt.Sprintf("%s names turn %d but the open turn is %d", typ, turn, ss.turn))
			ss.suspend()
		}
	}
	checkStep := func() {
		if !proto.step || !ss.turnKnown || !hasStep || ss.turn == 0 || (hasTurn && turn != ss.turn) {
			return
		}
		if ss.step == 0 {
			c.add(RuleStep, "", sp, pre+fmt.Sprintf("%s names step %d but no step is open", typ, step))
		} else if step != ss.step {
			c.add(RuleStep, "", sp, pre+fmt.Sprintf("%s names step %d but the open step is %d", typ, step, ss.step))
		} else {
			return
		}
		ss.step, ss.lastStep = step, step // resync: one finding, not one per event
	}
	switch {
	case typ == evTurnStart && proto.turn && hasTurn:
		if ss.turnKnown {
			if ss.turn != 0 {
				c.add(RuleTurn, "", tp, pre+fmt.Sprintf("turn/start %d while turn %d is open", turn, ss.turn))
			} else if turn != ss.lastTurn+1 {
				c.add(RuleTurn, "", tp, pre+fmt.Sprintf("turn/start %d after turn %d (turns are numbered 1, 2, 3 … per session; expected %d)", turn, ss.lastTurn, ss.lastTurn+1))
			}
		}
		ss.turnKnown = true
		ss.turn, ss.lastTurn, ss.step, ss.lastStep = turn, turn, 0, 0
		ss.calls = nil
	case typ == evTurnEnd && proto.turn && hasTurn:
		if ss.turnKnown {
			if ss.turn == 0 {
				c.add(RuleTurn, "", tp, pre+fmt.Sprintf("turn/end %d but no turn is open", turn))
			} else if turn != ss.turn {
				c.add(RuleTurn, "", tp, pre+fmt.Sprintf("turn/end %d but the open turn is %d", turn, ss.turn))
			} else if proto.step && ss.step != 0 {
				c.add(RuleStep, "", tp, pre+fmt.Sprintf("turn/end %d while step %d is open", turn, ss.step))
			}
		}
		ss.turn, ss.step = 0, 0
	case typ == evStepStart && proto.step && hasStep:
		checkTurn()
		if ss.turnKnown && ss.turn != 0 && (!hasTurn || turn == ss.turn) {
			if ss.step != 0 {
				c.add(RuleStep, "", sp, pre+fmt.Sprintf("step/start %d while step %d is open", step, ss.step))
			} else if step != ss.lastStep+1 {
				c.add(RuleStep, "", sp, pre+fmt.Sprintf("step/start %d after step %d of turn %d (steps restart at 1 in each turn and increase by 1; expected %d)", step, ss.lastStep, ss.turn, ss.lastStep+1))
			}
		}
		ss.step, ss.lastStep = step, step
	case typ == evStepEnd && proto.step && hasStep:
		checkTurn()
		if ss.turnKnown && ss.turn != 0 && (!hasTurn || turn == ss.turn) {
			if ss.step == 0 {
				c.add(RuleStep, "", sp, pre+fmt.Sprintf("step/end %d but no step is open", step))
			} else if step != ss.step {
				c.add(RuleStep, "", sp, pre+fmt.Sprintf("step/end %d but the open step is %d", step, ss.step))
			}
		}
		ss.step = 0
	case stepScoped[typ]:
		checkTurn()
		checkStep()
	case turnScoped[typ]:
		if proto.turn && ss.turnKnown && ss.turn == 0 {
			c.add(RuleTurn, "", "/params/event/type", pre+fmt.Sprintf("%s outside an open turn", typ))
		}
	}
	if proto.tool {
		s.toolRules(c, ss, pre, typ, ev, data, step)
	}
	if proto.surface {
		s.surfaceRules(c, pre, typ, ev, seq, seqOK)
	}
}

func (s *Stream) toolRules(c *frameCtx, ss *session, pre, typ string, ev, data map[string]any, step int64) {
	switch typ {
	case evToolCall:
		id, ok := data["callId"].(string)
		if !ok {
			return
		}
		if ss.calls == nil {
			ss.calls = map[string]*toolCall{}
		}
		ss.calls[id] = &toolCall{step: step, line: c.line.Num}
	case evToolRes:
		if _, replace := ev["surfaceOp"].(map[string]any); replace {
			return // a replace op rewrites an earlier result
		}
		if e, ok := data["error"].(map[string]any); ok && e["code"] == "TOOL_NOT_STARTED" {
			return // synthetic repair of a call that never started
		}
		id := toolResultCallID(data)
		if id == "" || !ss.turnKnown {
			return
		}
		tc := ss.calls[id]
		switch {
		case tc == nil:
			c.add(RuleToolResult, "", "/params/event/data/message/source/callId", pre+fmt.Sprintf("tool/result for call %q without a preceding tool/call in this turn", id))
		case s.v.proto.step && tc.step != step:
			c.add(RuleToolResult, "", "/params/event/data/step", pre+fmt.Sprintf("tool/result for call %q in step %d, but its tool/call (line %d) was in step %d", id, step, tc.line, tc.step))
		case tc.results > 0:
			c.add(RuleToolResult, "", "/params/event/data/message/source/callId", pre+fmt.Sprintf("second tool/result for call %q (tool/call at line %d)", id, tc.line))
		}
		if tc != nil {
			tc.results++
		}
	}
}

// toolResultCallID is data.message.source.callId, else the toolCallId of
// the message's first tool-result block.
func toolResultCallID(data map[string]any) string {
	msg, _ := data["message"].(map[string]any)
	if src, ok := msg["source"].(map[string]any); ok {
		if id, ok := src["callId"].(string); ok {
			return id
		}
	}
	if blocks, ok := msg["content"].([]any); ok {
		for _, b := range blocks {
			if bo, ok := b.(map[string]any); ok {
				if id, ok := bo["toolCallId"].(string); ok {
					return id
				}
			}
		}
	}
	return ""
}

func (s *Stream) surfaceRules(c *frameCtx, pre, typ string, ev map[string]any, seq int64, seqOK bool) {
	surface := surfaceTypes[typ]
	_, hasOp := ev["surfaceOp"]
	seqs, hasSeqs := ev["sourceEventSeqs"]
	switch {
	case surface && !hasOp:
		c.add(RuleSurfaceOp, "", "/params/event", pre+fmt.Sprintf("%s without surfaceOp (the runtime requires it on user/message, assistant/message and tool/result)", typ))
	case !surface && hasOp:
		c.add(RuleSurfaceOp, "", "/params/event/surfaceOp", pre+fmt.Sprintf("%s carries surfaceOp (only user/message, assistant/message and tool/result may)", typ))
	}
	if !hasSeqs {
		return
	}
	if !surface {
		c.add(RuleSurfaceOp, "", "/params/event/sourceEventSeqs", pre+fmt.Sprintf("%s carries sourceEventSeqs (only user/message, assistant/message and tool/result may)", typ))
		return
	}
	arr, ok := seqs.([]any)
	if !ok {
		return
	}
	if len(arr) == 0 && typ != "assistant/message" {
		c.add(RuleSurfaceOp, "", "/params/event/sourceEventSeqs", pre+fmt.Sprintf("%s has an empty sourceEventSeqs (only assistant/message may)", typ))
	}
	seen := map[int64]bool{}
	for i, x := range arr {
		n, ok := intOf(x)
		if !ok {
			continue
		}
		ptr := fmt.Sprintf("/params/event/sourceEventSeqs/%d", i)
		if seqOK && n >= seq {
			c.add(RuleSurfaceOp, "", ptr, pre+fmt.Sprintf("sourceEventSeqs lists %d, not before the event's own seq %d", n, seq))
		}
		if seen[n] {
			c.add(RuleSurfaceOp, "", ptr, pre+fmt.Sprintf("sourceEventSeqs lists %d twice", n))
		}
		seen[n] = true
	}
}

func (s *Stream) onSubagent(c *frameCtx, name string, p map[string]any) {
	child, ok := p["childSessionId"].(string)
	parent, _ := p["parentSessionId"].(string)
	if !ok {
		return
	}
	ptr := "/params/childSessionId"
	if name == "subagent.started" {
		if prev, dup := s.st.started[child]; dup && !(s.v.opts.Snapshot && isPlaceholder(child)) {
			c.add(RuleSubagent, "", ptr, fmt.Sprintf("second subagent.started for child %q (first at line %d)", child, prev.line))
			return
		}
		s.st.started[child] = subagentStart{parent: parent, line: c.line.Num}
		delete(s.st.finished, child)
		return
	}
	st, ok := s.st.started[child]
	switch {
	case !ok:
		c.add(RuleSubagent, "", ptr, fmt.Sprintf("subagent.finished for child %q without a preceding subagent.started", child))
	case st.parent != parent:
		c.add(RuleSubagent, "", "/params/parentSessionId", fmt.Sprintf("subagent.finished names parent %q but subagent.started (line %d) named %q", parent, st.line, st.parent))
	case s.st.finished[child] > 0:
		c.add(RuleSubagent, "", ptr, fmt.Sprintf("second subagent.finished for child %q (first at line %d)", child, s.st.finished[child]))
	}
	s.st.finished[child] = c.line.Num
}

// promptSent records a session/prompt request and reports an overlap.
func (s *Stream) promptSent(c *frameCtx, r *request) {
	sev := s.v.opts.PromptOverlap
	if !s.v.proto.prompt || sev == Off {
		return
	}
	if open := s.st.prompts[r.session]; len(open) > 0 {
		prev := open[0].req
		c.add(RulePromptOverlap, sev, "/params/sessionId", fmt.Sprintf(
			"session %q: session/prompt while the prompt at line %d (id %s) has not settled (one in-flight prompt per session: the seeds say an overlap fails at once; the 0.0.1-rc.5 runtime queues it)",
			r.session, prev.line, prev.idText))
	}
	s.st.prompts[r.session] = append(s.st.prompts[r.session], &prompt{req: r})
}

// promptAnswered settles a prompt on an error response, or marks it
// answered (it settles at the session's next idle).
func (s *Stream) promptAnswered(r *request, isErr bool) {
	list := s.st.prompts[r.session]
	for i, p := range list {
		if p.req != r {
			continue
		}
		if isErr || p.idle {
			s.st.prompts[r.session] = append(list[:i:i], list[i+1:]...)
		} else {
			p.responded = true
		}
		return
	}
}

func (s *Stream) sessionIdle(sid string) {
	list := s.st.prompts[sid]
	out := list[:0]
	for _, p := range list {
		p.idle = true
		if !p.responded {
			out = append(out, p)
		}
	}
	s.st.prompts[sid] = out
}

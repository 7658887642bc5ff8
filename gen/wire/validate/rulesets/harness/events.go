package harness

import (
	"fmt"
	"slices"

	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
)

// pre is the start of a finding's message about session sid.
func pre(sid string) string { return fmt.Sprintf("session %q: ", sid) }

// The members onEvent reads of the params, the event and its data, each
// object read once (ruleset.Value.Members), by their index in these lists.
var (
	paramsMembers = []string{"sessionId", "event"}
	eventMembers  = []string{"seq", "type", "data", "surfaceOp", "sourceEventSeqs"}
	dataMembers   = []string{"turn", "step", "callId", "error", "message"}
)

const (
	pSessionID = iota
	pEvent
)

const (
	eSeq = iota
	eType
	eData
	eSurfaceOp
	eSourceSeqs
)

const (
	dTurn = iota
	dStep
	dCallID
	dError
	dMessage
)

func (s *stream) onEvent(c ruleset.Frame, p ruleset.Value, valid bool) {
	var pm [2]ruleset.Value
	p.Members(paramsMembers, pm[:])
	ev := pm[pEvent]
	if !ev.IsObject() {
		return
	}
	sid, ok := s.sessionID(pm[pSessionID])
	if !ok {
		return
	}
	var em [5]ruleset.Value
	ev.Members(eventMembers, em[:])
	seq, seqOK := em[eSeq].Int()
	seqOK = seqOK && seq >= 0
	ss := s.session(sid, seq, seqOK)
	if seqOK {
		switch {
		case !ss.seqKnown:
			ss.seqKnown = true
			ss.turnKnown = seq == 0
		case seq != ss.nextSeq:
			if valid {
				c.Report(RuleSeq, "", "/params/event/seq", fmt.Sprintf("session %q: seq %d after %d (expected %d; seq is contiguous per session)", sid, seq, ss.nextSeq-1, ss.nextSeq))
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
	typ, _ := em[eType].Str()
	proto := s.p
	if !proto.tags[typ] {
		return // an unknown (fallback) event type: nothing to check
	}
	var dm [5]ruleset.Value
	em[eData].Members(dataMembers, dm[:])
	turn, hasTurn := dm[dTurn].Int()
	step, hasStep := dm[dStep].Int()
	tp := "/params/event/data/turn"
	sp := "/params/event/data/step"
	checkTurn := func() {
		if !proto.turn || !ss.turnKnown || !hasTurn {
			return
		}
		if ss.turn == 0 {
			c.Report(RuleTurn, "", tp, pre(sid)+fmt.Sprintf("%s names turn %d but no turn is open", typ, turn))
			ss.suspend()
		} else if turn != ss.turn {
			c.Report(RuleTurn, "", tp, pre(sid)+fmt.Sprintf("%s names turn %d but the open turn is %d", typ, turn, ss.turn))
			ss.suspend()
		}
	}
	checkStep := func() {
		if !proto.step || !ss.turnKnown || !hasStep || ss.turn == 0 || (hasTurn && turn != ss.turn) {
			return
		}
		if ss.step == 0 {
			c.Report(RuleStep, "", sp, pre(sid)+fmt.Sprintf("%s names step %d but no step is open", typ, step))
		} else if step != ss.step {
			c.Report(RuleStep, "", sp, pre(sid)+fmt.Sprintf("%s names step %d but the open step is %d", typ, step, ss.step))
		} else {
			return
		}
		ss.step, ss.lastStep = step, step // resync: one finding, not one per event
	}
	switch {
	case typ == evTurnStart && proto.turn && hasTurn:
		if ss.turnKnown {
			if ss.turn != 0 {
				c.Report(RuleTurn, "", tp, pre(sid)+fmt.Sprintf("turn/start %d while turn %d is open", turn, ss.turn))
			} else if turn != ss.lastTurn+1 {
				c.Report(RuleTurn, "", tp, pre(sid)+fmt.Sprintf("turn/start %d after turn %d (turns are numbered 1, 2, 3 … per session; expected %d)", turn, ss.lastTurn, ss.lastTurn+1))
			}
		}
		ss.turnKnown = true
		ss.turn, ss.lastTurn, ss.step, ss.lastStep = turn, turn, 0, 0
		ss.calls = nil
	case typ == evTurnEnd && proto.turn && hasTurn:
		if ss.turnKnown {
			if ss.turn == 0 {
				c.Report(RuleTurn, "", tp, pre(sid)+fmt.Sprintf("turn/end %d but no turn is open", turn))
			} else if turn != ss.turn {
				c.Report(RuleTurn, "", tp, pre(sid)+fmt.Sprintf("turn/end %d but the open turn is %d", turn, ss.turn))
			} else if proto.step && ss.step != 0 {
				c.Report(RuleStep, "", tp, pre(sid)+fmt.Sprintf("turn/end %d while step %d is open", turn, ss.step))
			}
		}
		ss.turn, ss.step = 0, 0
	case typ == evStepStart && proto.step && hasStep:
		checkTurn()
		if ss.turnKnown && ss.turn != 0 && (!hasTurn || turn == ss.turn) {
			if ss.step != 0 {
				c.Report(RuleStep, "", sp, pre(sid)+fmt.Sprintf("step/start %d while step %d is open", step, ss.step))
			} else if step != ss.lastStep+1 {
				c.Report(RuleStep, "", sp, pre(sid)+fmt.Sprintf("step/start %d after step %d of turn %d (steps restart at 1 in each turn and increase by 1; expected %d)", step, ss.lastStep, ss.turn, ss.lastStep+1))
			}
		}
		ss.step, ss.lastStep = step, step
	case typ == evStepEnd && proto.step && hasStep:
		checkTurn()
		if ss.turnKnown && ss.turn != 0 && (!hasTurn || turn == ss.turn) {
			if ss.step == 0 {
				c.Report(RuleStep, "", sp, pre(sid)+fmt.Sprintf("step/end %d but no step is open", step))
			} else if step != ss.step {
				c.Report(RuleStep, "", sp, pre(sid)+fmt.Sprintf("step/end %d but the open step is %d", step, ss.step))
			}
		}
		ss.step = 0
	case proto.stepScoped[typ]:
		checkTurn()
		checkStep()
	case turnScoped[typ]:
		if proto.turn && ss.turnKnown && ss.turn == 0 {
			c.Report(RuleTurn, "", "/params/event/type", pre(sid)+fmt.Sprintf("%s outside an open turn", typ))
		}
	}
	if proto.tool {
		s.toolRules(c, ss, sid, typ, &em, &dm, step)
	}
	if proto.surface {
		s.surfaceRules(c, sid, typ, &em, seq, seqOK)
	}
}

// toolRules checks tool/call and tool/result; em and dm are the event's
// and its data's members (eventMembers, dataMembers).
func (s *stream) toolRules(c ruleset.Frame, ss *session, sid, typ string, em, dm *[5]ruleset.Value, step int64) {
	switch typ {
	case evToolCall:
		id, ok := dm[dCallID].Str()
		if !ok {
			return
		}
		if ss.calls == nil {
			ss.calls = map[string]*toolCall{}
		}
		ss.calls[id] = &toolCall{step: step, line: c.Line()}
	case evToolRes:
		if em[eSurfaceOp].IsObject() {
			return // a replace op rewrites an earlier result
		}
		if dm[dError].Get("code").Is("TOOL_NOT_STARTED") {
			return // synthetic repair of a call that never started
		}
		s.buf, _ = toolResultCallID(dm[dMessage]).AppendText(s.buf[:0])
		if len(s.buf) == 0 || !ss.turnKnown {
			return
		}
		tc := ss.calls[string(s.buf)]
		switch {
		case tc == nil:
			c.Report(RuleToolResult, "", "/params/event/data/message/source/callId", pre(sid)+fmt.Sprintf("tool/result for call %q without a preceding tool/call in this turn", s.buf))
		case s.p.step && tc.step != step:
			c.Report(RuleToolResult, "", "/params/event/data/step", pre(sid)+fmt.Sprintf("tool/result for call %q in step %d, but its tool/call (line %d) was in step %d", s.buf, step, tc.line, tc.step))
		case tc.results > 0:
			c.Report(RuleToolResult, "", "/params/event/data/message/source/callId", pre(sid)+fmt.Sprintf("second tool/result for call %q (tool/call at line %d)", s.buf, tc.line))
		}
		if tc != nil {
			tc.results++
		}
	}
}

// toolResultCallID is a tool/result's data.message.source.callId, else
// the toolCallId of the message's first tool-result block (Absent when
// neither is a string).
func toolResultCallID(msg ruleset.Value) ruleset.Value {
	if src := msg.Get("source"); src.IsObject() {
		if id := src.Get("callId"); id.Kind() == ruleset.String {
			return id
		}
	}
	for it := msg.Get("content").Elems(); it.Next(); {
		if b := it.Value(); b.IsObject() {
			if id := b.Get("toolCallId"); id.Kind() == ruleset.String {
				return id
			}
		}
	}
	return ruleset.Value{}
}

// surfaceRules checks surfaceOp and sourceEventSeqs; em are the event's
// members (eventMembers).
func (s *stream) surfaceRules(c ruleset.Frame, sid, typ string, em *[5]ruleset.Value, seq int64, seqOK bool) {
	surface := s.p.surfaceTypes[typ]
	hasOp := em[eSurfaceOp].Exists()
	seqs := em[eSourceSeqs]
	switch {
	case surface && !hasOp:
		c.Report(RuleSurfaceOp, "", "/params/event", pre(sid)+fmt.Sprintf("%s without surfaceOp (the runtime requires it on %s)", typ, names(s.p.surfaceTypes)))
	case !surface && hasOp:
		c.Report(RuleSurfaceOp, "", "/params/event/surfaceOp", pre(sid)+fmt.Sprintf("%s carries surfaceOp (only %s may)", typ, names(s.p.surfaceTypes)))
	}
	if !seqs.Exists() {
		return
	}
	if !s.p.seqTypes[typ] {
		c.Report(RuleSurfaceOp, "", "/params/event/sourceEventSeqs", pre(sid)+fmt.Sprintf("%s carries sourceEventSeqs (only %s may)", typ, names(s.p.seqTypes)))
		return
	}
	if seqs.Kind() != ruleset.Array {
		return
	}
	it := seqs.Elems()
	if !it.Next() {
		if typ != "assistant/message" {
			c.Report(RuleSurfaceOp, "", "/params/event/sourceEventSeqs", pre(sid)+fmt.Sprintf("%s has an empty sourceEventSeqs (only assistant/message may)", typ))
		}
		return
	}
	// The seqs seen so far: a few, so a linear search (no allocation).
	var small [16]int64
	seen := small[:0]
	for more := true; more; more = it.Next() {
		n, ok := it.Value().Int()
		if !ok {
			continue
		}
		i := it.Index()
		if seqOK && n >= seq {
			c.Report(RuleSurfaceOp, "", seqPtr(i), pre(sid)+fmt.Sprintf("sourceEventSeqs lists %d, not before the event's own seq %d", n, seq))
		}
		if slices.Contains(seen, n) {
			c.Report(RuleSurfaceOp, "", seqPtr(i), pre(sid)+fmt.Sprintf("sourceEventSeqs lists %d twice", n))
		} else {
			seen = append(seen, n)
		}
	}
}

func seqPtr(i int) string { return fmt.Sprintf("/params/event/sourceEventSeqs/%d", i) }

func (s *stream) onSubagent(c ruleset.Frame, name string, p ruleset.Value) {
	child, ok := p.Get("childSessionId").Str()
	parent, _ := p.Get("parentSessionId").Str()
	if !ok {
		return
	}
	ptr := "/params/childSessionId"
	st := s.state(child, true)
	if name == "subagent.started" {
		if prev := st.started; prev != nil && !(s.c.snapshot && isPlaceholder(child)) {
			c.Report(RuleSubagent, "", ptr, fmt.Sprintf("second subagent.started for child %q (first at line %d)", child, prev.line))
			return
		}
		st.started = &subagentStart{parent: parent, line: c.Line()}
		st.finished = 0
		return
	}
	switch {
	case st.started == nil:
		if !s.forgot {
			c.Report(RuleSubagent, "", ptr, fmt.Sprintf("subagent.finished for child %q without a preceding subagent.started", child))
		}
	case st.started.parent != parent:
		c.Report(RuleSubagent, "", "/params/parentSessionId", fmt.Sprintf("subagent.finished names parent %q but subagent.started (line %d) named %q", parent, st.started.line, st.started.parent))
	case st.finished > 0:
		c.Report(RuleSubagent, "", ptr, fmt.Sprintf("second subagent.finished for child %q (first at line %d)", child, st.finished))
	}
	st.finished = c.Line()
}

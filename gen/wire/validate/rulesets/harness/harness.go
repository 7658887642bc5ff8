// Package harness is the rule set "deepseek-harness": the stateful wire
// rules of the DeepSeek Harness SDK runtime protocol
// (`@deepseek-ai/dsh-sdk-protocol` 0.0.1-rc.1, the runtime's server and
// transport) that a JSON Schema cannot say: session.event seq/turn/step
// numbering, tool/call–tool/result pairing, surfaceOp and
// sourceEventSeqs, subagent start/finish, one in-flight session/prompt per
// session. A schema opts in with "x-dshgen-rules": ["deepseek-harness"]
// (the shipped schema does, with "initialize-first", see
// rulesets/lifecycle); each rule runs only where the schema defines
// its subject (step numbering needs step/start and step/end event types,
// and so on), so a cut-down schema gets only the rules it can mean.
//
// Memory: the state of at most MaxSessions sessions is kept (the least
// recently seen is forgotten first; a forgotten session's next event is
// checked as a resumed session's, so forgetting only loses checks, never
// adds a finding). Prompts are forgotten when they settle (and past 1024
// unsettled ones per session, the oldest).
package harness

import (
	"container/list"
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
)

// Name is the rule set's name in x-dshgen-rules.
const Name = "deepseek-harness"

// Rule ids (stable; they were the validator's own before the rule set).
const (
	RuleSeq           = "state.seq"
	RuleTurn          = "state.turn"
	RuleStep          = "state.step"
	RuleToolResult    = "state.tool-result"
	RuleSurfaceOp     = "state.surface-op"
	RuleSubagent      = "state.subagent"
	RulePromptOverlap = "state.prompt-overlap"
)

// MaxSessions bounds the sessions whose state one stream keeps (about
// 300 bytes each).
const MaxSessions = 1 << 16

func init() { ruleset.Register(set{}) }

type set struct{}

func (set) Name() string { return Name }

func rule(id, sev, stage, doc, example string) ruleset.Rule {
	return ruleset.Rule{ID: id, Severity: sev, Stage: stage, Doc: doc, Example: example}
}

func (set) Rules() []ruleset.Rule {
	return []ruleset.Rule{
		rule(RuleSeq, ruleset.Error, "state", "session.event seq is not contiguous per session (seq = previous + 1; the first seq seen may be > 0 for a resumed session)", `session "s1": seq 5 after 3 (expected 4; seq is contiguous per session)`),
		rule(RuleTurn, ruleset.Error, "state", "turn numbering: turns are 1, 2, 3 … per session, one open at a time; step-scoped events name the open turn; todo/write, request/header, request/context inside an open turn", `session "s1": turn/start 3 after turn 1 (turns are numbered 1, 2, 3 … per session; expected 2)`),
		rule(RuleStep, ruleset.Error, "state", "step numbering: steps restart at 1 in each turn and increase by 1, one open at a time; step-scoped events name the open step", `session "s1": assistant/chunk names step 2 but the open step is 1`),
		rule(RuleToolResult, ruleset.Error, "state", "a tool/result (append) must follow a tool/call with the same callId in the same step, once", `session "s1": tool/result for call "call_1" without a preceding tool/call in this turn`),
		rule(RuleSurfaceOp, ruleset.Error, "state", "surfaceOp is required on the surface event types (those whose schema declares surfaceOp: user/message, assistant/message and tool/result in 0.0.1) and forbidden elsewhere; sourceEventSeqs only on the types that declare it, each < seq, unique, non-empty except on assistant/message", `session "s1": turn/start carries surfaceOp (only user/message, assistant/message and tool/result may)`),
		rule(RuleSubagent, ruleset.Error, "state", "subagent.finished must follow the subagent.started of the same child (and parent), once", `subagent.finished for child "c1" without a preceding subagent.started`),
		rule(RulePromptOverlap, ruleset.Error, "state", "a session/prompt for a session whose previous prompt has not settled (error response, or success response and then session.status idle); severity set by --prompt-overlap (error|warning|off); the 0.0.1-rc.5 runtime queues such a prompt instead of failing it", `session "s1": session/prompt while the prompt at line 4 (id "req_1") has not settled (one in-flight prompt per session: the protocol says an overlap fails at once; the 0.0.1-rc.5 runtime queues it)`),
	}
}

// protocol says which rules the schema supports.
type protocol struct {
	events  bool            // session.event with params.event
	tags    map[string]bool // SessionEvent tags
	turn    bool            // turn/start + turn/end
	step    bool            // + step/start + step/end
	tool    bool            // tool/call + tool/result
	surface bool            // any surface event type
	// surfaceTypes are the event types whose schema declares surfaceOp;
	// seqTypes those that declare sourceEventSeqs; stepScoped those whose
	// data requires both turn and step (they name the open turn and step).
	surfaceTypes, seqTypes, stepScoped map[string]bool
	subagent                           bool // subagent.started + subagent.finished
	prompt                             bool // session/prompt + session.status
}

// Wire names the rules are about.
const (
	evTurnStart = "turn/start"
	evTurnEnd   = "turn/end"
	evStepStart = "step/start"
	evStepEnd   = "step/end"
	evToolCall  = "tool/call"
	evToolRes   = "tool/result"
)

// turnScoped events must be inside an open turn (a fact of the runtime's
// order that their schemas cannot say: their data names no turn).
var turnScoped = map[string]bool{"todo/write": true, "request/header": true, "request/context": true}

type checker struct {
	p        protocol
	snapshot bool
	overlap  string // severity of state.prompt-overlap
}

func (set) Compile(m *ir.Model, cfg ruleset.Config) (ruleset.Checker, error) {
	p := protocol{tags: map[string]bool{}, surfaceTypes: map[string]bool{}, seqTypes: map[string]bool{}, stepScoped: map[string]bool{}}
	if me := m.Method("session.event"); me != nil && me.Kind == ir.Notification && me.Params != nil {
		p.events = true
		if f := fieldOf(me.Params, "event"); f != nil {
			if t := namedOf(&f.Type); t != nil && t.Kind == ir.KindUnion && t.Union != nil && t.Union.By == ir.ByTag && t.Union.Tag == "type" {
				for _, v := range t.Union.Variants {
					p.tags[v.TagValue] = true
					p.classify(v.TagValue, v.Type)
				}
			}
		}
	}
	p.turn = p.tags[evTurnStart] && p.tags[evTurnEnd]
	p.step = p.turn && p.tags[evStepStart] && p.tags[evStepEnd]
	p.tool = p.tags[evToolCall] && p.tags[evToolRes]
	p.surface = len(p.surfaceTypes) > 0
	p.subagent = m.Method("subagent.started") != nil && m.Method("subagent.finished") != nil
	p.prompt = m.Method("session/prompt") != nil && m.Method("session.status") != nil
	c := &checker{p: p, snapshot: cfg.Snapshot, overlap: ruleset.Error}
	if s, ok := cfg.Severity[RulePromptOverlap]; ok && s != "" {
		c.overlap = s
	}
	return c, nil
}

// classify records what an event variant's schema says about the rules:
// a declared surfaceOp or sourceEventSeqs member, and data that requires
// both turn and step (step/start and step/end are checked on their own).
func (p *protocol) classify(tag string, t *ir.Type) {
	if fieldOf(t, "surfaceOp") != nil {
		p.surfaceTypes[tag] = true
	}
	if fieldOf(t, "sourceEventSeqs") != nil {
		p.seqTypes[tag] = true
	}
	if tag == evStepStart || tag == evStepEnd {
		return
	}
	if d := fieldOf(t, "data"); d != nil {
		data := namedOf(&d.Type)
		if turn, step := fieldOf(data, "turn"), fieldOf(data, "step"); turn != nil && step != nil && turn.Required && step.Required {
			p.stepScoped[tag] = true
		}
	}
}

// fieldOf returns the declared member wire of an object type (nil when t
// is nil or has no such member).
func fieldOf(t *ir.Type, wire string) *ir.Field {
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if f.Wire == wire {
			return f
		}
	}
	return nil
}

// names lists a set's members, sorted, joined for a message ("a, b and c").
func names(set map[string]bool) string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	switch len(out) {
	case 0:
		return "none"
	case 1:
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
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

// Reads implements ruleset.Reader: the params members the streams read
// (Request, Notification and events.go; TestReadsCoverWhatIsRead in
// gen/wire/validate checks them against the whole params).
func (c *checker) Reads(method string) []string {
	switch method {
	case "session/prompt", "session.status":
		return []string{"/sessionId", "/status"}
	case "session.event":
		return []string{"/sessionId", "/event/seq", "/event/type", "/event/surfaceOp", "/event/sourceEventSeqs",
			"/event/data/turn", "/event/data/step", "/event/data/callId", "/event/data/error/code",
			"/event/data/message/source/callId", "/event/data/message/content/*/toolCallId"}
	case "subagent.started", "subagent.finished":
		return []string{"/childSessionId", "/parentSessionId"}
	}
	return nil
}

func (c *checker) NewStream() ruleset.Stream {
	return &stream{c: c, p: &c.p, sessions: map[string]*list.Element{}, lru: list.New()}
}

// stream is the protocol state of one stream.
type stream struct {
	c *checker
	p *protocol
	// sessions by session id, least recently seen at the back of lru.
	sessions map[string]*list.Element
	lru      *list.List
	// forgot: some session's state was dropped (MaxSessions); from then on
	// a subagent.finished whose start is unknown is not reported.
	forgot bool
	buf    []byte // scratch for map lookups by a string's text
}

// sessionID returns the session id v holds (false when v is not a
// string): the known session's own string when there is one, so that a
// frame of a known session allocates nothing.
func (s *stream) sessionID(v ruleset.Value) (string, bool) {
	var ok bool
	if s.buf, ok = v.AppendText(s.buf[:0]); !ok {
		return "", false
	}
	if e, known := s.sessions[string(s.buf)]; known {
		return e.Value.(*sessionState).id, true
	}
	return string(s.buf), true
}

// sessionState is everything kept about one session id.
type sessionState struct {
	id    string
	group sessionGroup
	// prompts are the unsettled session/prompt requests of the session.
	prompts []*prompt
	// the session as a subagent's child: its start and finish.
	started  *subagentStart
	finished int // line of subagent.finished
}

type subagentStart struct {
	parent string
	line   int
}

// prompt is one session/prompt request (the token of its Response).
type prompt struct {
	session   string
	line      int
	idText    string
	responded bool
	idle      bool
}

// sessionGroup holds the sessions seen under one session id: one, except
// in snapshot mode, where the normalizer gave a parent and its children
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

// state returns the state of session id, creating it (and forgetting the
// least recently seen session beyond MaxSessions) when create is set.
func (s *stream) state(id string, create bool) *sessionState {
	if e, ok := s.sessions[id]; ok {
		s.lru.MoveToFront(e)
		return e.Value.(*sessionState)
	}
	if !create {
		return nil
	}
	st := &sessionState{id: id}
	s.sessions[id] = s.lru.PushFront(st)
	if s.lru.Len() > MaxSessions {
		old := s.lru.Back()
		s.lru.Remove(old)
		delete(s.sessions, old.Value.(*sessionState).id)
		s.forgot = true
	}
	return st
}

// isPlaceholder reports whether val is a whole-string normalizer token such
// as "{{sessionId}}".
func isPlaceholder(val any) bool {
	s, ok := val.(string)
	return ok && len(s) > 4 && strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}") &&
		!strings.Contains(s[2:len(s)-2], "{{") && !strings.Contains(s[2:len(s)-2], "}}")
}

func (s *stream) session(id string, seq int64, seqOK bool) *session {
	g := &s.state(id, true).group
	if g.list == nil {
		g.list = []*session{{}}
	}
	if !s.c.snapshot || !isPlaceholder(id) || !seqOK {
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

// Request implements ruleset.Stream: a session/prompt's overlap (when
// responses are visible).
func (s *stream) Request(f ruleset.Frame, valid bool) any {
	name := f.Method()
	params := f.Params()
	if !valid || name != "session/prompt" || !params.IsObject() || !paired(f) {
		return nil
	}
	sid, ok := params.Get("sessionId").Str()
	if !ok {
		return nil
	}
	pr := &prompt{session: sid, line: f.Line(), idText: f.ID()}
	if !s.p.prompt || s.c.overlap == ruleset.Off {
		return nil
	}
	st := s.state(sid, true)
	if len(st.prompts) > 0 {
		prev := st.prompts[0]
		f.Report(RulePromptOverlap, s.c.overlap, "/params/sessionId", fmt.Sprintf(
			"session %q: session/prompt while the prompt at line %d (id %s) has not settled (one in-flight prompt per session: the protocol says an overlap fails at once; the 0.0.1-rc.5 runtime queues it)",
			sid, prev.line, prev.idText))
	}
	st.prompts = append(st.prompts, pr)
	if len(st.prompts) > maxPrompts {
		// A session flooded with prompts that never settle: the oldest
		// is forgotten (its overlap was reported already).
		clear(st.prompts[:1])
		st.prompts = st.prompts[1:]
	}
	return pr
}

// maxPrompts bounds the unsettled prompts kept per session.
const maxPrompts = 1024

// paired reports whether the frame's response will be seen (both
// directions visible, the request tracked).
func paired(f ruleset.Frame) bool {
	p, ok := f.(interface{ Paired() bool })
	return ok && p.Paired()
}

// Response implements ruleset.Stream: a prompt settles on an error
// response, or on its success response and the session's next idle.
func (s *stream) Response(f ruleset.Frame, token any, isErr bool) {
	pr, ok := token.(*prompt)
	if !ok {
		return
	}
	st := s.state(pr.session, false)
	if st == nil {
		return // forgotten (MaxSessions)
	}
	for i, p := range st.prompts {
		if p != pr {
			continue
		}
		if isErr || p.idle {
			st.prompts = append(st.prompts[:i:i], st.prompts[i+1:]...)
		} else {
			p.responded = true
		}
		return
	}
}

func (s *stream) sessionIdle(sid string) {
	st := s.state(sid, false)
	if st == nil {
		return
	}
	out := st.prompts[:0]
	for _, p := range st.prompts {
		p.idle = true
		if !p.responded {
			out = append(out, p)
		}
	}
	clear(st.prompts[len(out):])
	st.prompts = out
}

// Notification implements ruleset.Stream; valid is false when the frame
// had errors, and then only the seq bookkeeping runs (one finding per bad
// frame: its schema error).
func (s *stream) Notification(f ruleset.Frame, valid bool) {
	p := f.Params()
	if !p.IsObject() {
		return
	}
	switch name := f.Method(); name {
	case "session.event":
		if s.p.events {
			s.onEvent(f, p, valid)
		}
	case "session.status":
		if valid {
			if p.Get("status").Is("idle") {
				if sid, ok := s.sessionID(p.Get("sessionId")); ok {
					s.sessionIdle(sid)
				}
			}
		}
	case "subagent.started", "subagent.finished":
		if valid && s.p.subagent {
			s.onSubagent(f, name, p)
		}
	}
}

package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen"
	"github.com/dshgen/dshgen/gen/frame"
)

// StreamConfig describes one stream of frames.
type StreamConfig struct {
	// Name is the stream's name in findings (a file name, "-" for stdin).
	Name string
	// Both says that frames of both directions arrive on this stream, in
	// the order they were sent (an interleaved capture, the live proxy, or
	// a mixed NDJSON file): responses are then paired with their requests
	// by id, and the rules that need both sides (response.*, deferred
	// request findings, state.prompt-overlap) run.
	Both bool
	// Direction is, for a one-direction stream, the side that wrote it; ""
	// infers it from the first request or notification whose method is
	// known. Feed's dir argument overrides it per frame.
	Direction gen.Direction
	// MaxFrameBytes is the limit the frame reader applied (only for the
	// frame.too-large message; 0 means frame.DefaultMaxFrameBytes).
	MaxFrameBytes int64
}

// Stream validates the frames of one connection or file in order. It is not
// safe for concurrent use: feed it from one goroutine.
type Stream struct {
	v   *Validator
	cfg StreamConfig
	dir gen.Direction // one-direction stream: given or inferred

	frames   int
	crlf     map[gen.Direction]bool
	pending  map[gen.Direction]map[string]*request
	answered map[gen.Direction]map[string]int
	initSeen bool
	st       *state
	closed   bool
}

// request is a request waiting for its response.
type request struct {
	key      string
	idText   string
	method   string
	m        *gen.Method
	dir      gen.Direction
	line     int
	offset   int64
	frame    int
	deferred []Finding // held until the response says whether the peer rejected the request
	session  string    // session/prompt: params.sessionId
}

// NewStream starts a stream.
func (v *Validator) NewStream(cfg StreamConfig) *Stream {
	return &Stream{
		v: v, cfg: cfg, dir: cfg.Direction,
		crlf:     map[gen.Direction]bool{},
		pending:  map[gen.Direction]map[string]*request{},
		answered: map[gen.Direction]map[string]int{},
		st:       newState(),
	}
}

// Frames returns the number of frames (non-blank lines) fed so far.
func (s *Stream) Frames() int { return s.frames }

// frameCtx is one frame being checked.
type frameCtx struct {
	s      *Stream
	line   *frame.Line
	dir    gen.Direction
	index  int
	method string
	id     string
	out    []Finding
	errors int
}

func (c *frameCtx) finding(rule string, sev Severity, ptr, schema, branch, msg string) Finding {
	if sev == "" {
		sev = defaultSeverity(rule)
	}
	return Finding{
		Stream: c.s.cfg.Name, Line: c.line.Num, Offset: c.line.Offset, Frame: c.index,
		Direction: c.dir, Method: c.method, ID: c.id,
		Pointer: ptr, Schema: schema, Branch: branch, Rule: rule, Severity: sev, Message: msg,
	}
}

func (c *frameCtx) add(rule string, sev Severity, ptr, msg string) {
	c.emit(c.finding(rule, sev, ptr, "", "", msg))
}

func (c *frameCtx) emit(f Finding) {
	if f.Severity == Error {
		c.errors++
	}
	c.out = append(c.out, f)
}

// issues converts schema issues found in the value at prefix into findings.
func (c *frameCtx) issues(rule, prefix string, is []issue) []Finding {
	var out []Finding
	for _, x := range is {
		r := rule
		if x.rule != "" {
			r = x.rule
		}
		sev := x.sev
		if sev == "" {
			sev = defaultSeverity(r)
			if r == RuleUnionUnknownTag {
				sev = Error // a closed union's unknown tag comes through the library
			}
		}
		out = append(out, c.finding(r, sev, prefix+x.ptr, x.schema, strings.Join(x.branch, ", "), x.msg))
	}
	return out
}

// Feed validates one line of the stream sent by dir ("" when unknown: a
// one-direction stream's given or inferred direction is used, and in a
// Both stream a request's or notification's side comes from its method).
// It returns the findings it can already tell; some come later (a
// request's params findings wait for its response) or from Close.
func (s *Stream) Feed(dir gen.Direction, l *frame.Line) []Finding {
	if dir == "" && !s.cfg.Both {
		dir = s.dir
	}
	c := &frameCtx{s: s, line: l, dir: dir}
	val, ok := s.framing(c)
	if !ok {
		return c.out
	}
	obj, ok := val.(map[string]any)
	if !ok {
		c.add(RuleFrameNotObject, "", "", fmt.Sprintf("frame is a JSON %s, not an object (receivers drop it)", jsonType(val)))
		return c.out
	}
	s.object(c, obj)
	return c.out
}

// framing runs the framing checks of one line and decodes it. It returns
// false when nothing more can be checked.
func (s *Stream) framing(c *frameCtx) (any, bool) {
	l := c.line
	if l.Blank() {
		c.add(RuleFrameBlank, "", "", "blank line (receivers skip it; no writer emits one)")
		return nil, false
	}
	s.frames++
	c.index = s.frames
	data := l.Bytes
	if l.BOM {
		c.add(RuleFrameBOM, "", "", "byte order mark (EF BB BF) before the frame: the TS runtime ignores it, Python's json.loads rejects it")
	} else if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		c.add(RuleFrameBOM, "", "", "byte order mark (EF BB BF) at the start of the line, not of the stream: the TS runtime ignores it, Python's json.loads rejects it")
		data = data[3:]
	}
	crKey := gen.Direction("")
	if s.cfg.Both {
		crKey = c.dir
	}
	if l.CR && !s.crlf[crKey] {
		s.crlf[crKey] = true
		c.add(RuleFrameCRLF, "", "", "CRLF line end (writers end frames with LF only; the CR is ignored); further CRLF lines in this stream are not reported")
	}
	if !l.LF {
		c.add(RuleFrameNoNewline, "", "", "last line not terminated by LF (validated anyway)")
	}
	if l.TooLarge {
		c.add(RuleFrameTooLarge, "", "", fmt.Sprintf("frame of %d bytes exceeds the limit of %d bytes (--max-frame-bytes); frame skipped", l.Size, s.maxFrame()))
		return nil, false
	}
	if !utf8.Valid(data) {
		col := 0
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				col = i + 1
				break
			}
			i += n
		}
		c.add(RuleFrameUTF8, "", "", fmt.Sprintf("frame is not valid UTF-8 (first bad byte at column %d); checked with U+FFFD in its place", col))
	}
	val, err := decodeJSON(data)
	if err != nil {
		c.add(RuleFrameJSON, "", "", "not JSON: "+err.Error()+" (receivers drop the line)")
		return nil, false
	}
	return val, true
}

// maxFrame is only used for the message; the reader applied the limit.
func (s *Stream) maxFrame() int64 {
	if s.cfg.MaxFrameBytes > 0 {
		return s.cfg.MaxFrameBytes
	}
	return frame.DefaultMaxFrameBytes
}

// decodeJSON decodes exactly one JSON value with numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, describeJSONError(err, int64(len(data)))
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value at column %d", d.InputOffset()+1)
	}
	return v, nil
}

func describeJSONError(err error, off int64) error {
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Errorf("%s at column %d", e.Error(), e.Offset)
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return fmt.Errorf("unexpected end of JSON input after column %d (truncated frame)", off)
	}
	return err
}

// object checks a decoded frame object: envelope, classification, method,
// params, pairing, state.
func (s *Stream) object(c *frameCtx, obj map[string]any) {
	v := s.v
	if jr, has := obj["jsonrpc"]; !has {
		if !v.opts.Snapshot {
			c.add(RuleEnvJSONRPC, "", "", `"jsonrpc" member missing (every writer sends "jsonrpc":"2.0")`)
		}
	} else if jr != "2.0" {
		c.add(RuleEnvJSONRPC, "", "/jsonrpc", fmt.Sprintf(`"jsonrpc" is %s, must be "2.0"`, jsonText(jr)))
	}
	idv, hasID := obj["id"]
	idOK := false
	switch idv.(type) {
	case string, json.Number:
		idOK = true
	}
	if hasID {
		c.id = jsonText(idv)
	}
	mv, hasM := obj["method"]
	name, mStr := mv.(string)
	if mStr {
		c.method = name
	}
	switch {
	case idOK && mStr:
		s.checkID(c, idv)
		s.request(c, obj, name, idv)
	case idOK:
		s.checkID(c, idv)
		if hasM {
			c.add(RuleEnvKind, "", "/method", fmt.Sprintf(`"method" is a JSON %s, not a string; receivers treat the frame as a response`, jsonType(mv)))
		}
		s.response(c, obj, idv)
	case mStr:
		if hasID {
			if idv == nil {
				c.add(RuleEnvID, "", "/id", `notification carries "id": null (an id of null makes the frame a notification); drop the member or send a string or integer id`)
			} else {
				c.add(RuleEnvID, "", "/id", fmt.Sprintf("id must be a string or integer, but got %s; receivers treat the frame as a notification", jsonType(idv)))
			}
		}
		s.notification(c, obj, name)
	default:
		msg := "frame is neither a request (id and method), a response (id) nor a notification (method); receivers drop it"
		if hasID && !idOK {
			msg += fmt.Sprintf(" (its id is %s, not a string or number)", jsonType(idv))
		} else if hasM && !mStr {
			msg += fmt.Sprintf(" (its method is %s, not a string)", jsonType(mv))
		}
		c.add(RuleEnvKind, "", "", msg)
	}
}

func (s *Stream) checkID(c *frameCtx, idv any) {
	v := s.v
	if v.idSchema != nil {
		if v.idType != nil && v.fastAccepts(v.idType, idv) {
			return
		}
		if err := v.idSchema.Validate(idv); err != nil {
			c.add(RuleEnvID, "", "/id", fmt.Sprintf("id %s is not a valid JsonRpcId (a string or an integer)", jsonText(idv)))
		}
		return
	}
	if n, ok := idv.(json.Number); ok && !isInteger(n) {
		c.add(RuleEnvID, "", "/id", fmt.Sprintf("id %s is not a string or an integer", n))
	}
}

func idKey(idv any) string {
	switch x := idv.(type) {
	case string:
		return "s" + x
	case json.Number:
		return "n" + x.String()
	}
	return "?" + jsonText(idv)
}

func opposite(d gen.Direction) gen.Direction {
	switch d {
	case gen.ClientToServer:
		return gen.ServerToClient
	case gen.ServerToClient:
		return gen.ClientToServer
	}
	return ""
}

// method resolves and checks the method of a request or notification.
func (s *Stream) method(c *frameCtx, name string, isRequest bool) (*gen.Method, []Finding) {
	v := s.v
	m := v.model.Method(name)
	if m == nil {
		return nil, []Finding{c.finding(RuleMethodUnknown, "", "/method", "", "", fmt.Sprintf("unknown method %q (known: %s)", name, v.methodNames))}
	}
	if c.dir == "" && m.Direction != "" {
		c.dir = m.Direction
		if !s.cfg.Both && s.dir == "" {
			s.dir = m.Direction
		}
	}
	switch {
	case isRequest && m.Kind == gen.Notification:
		c.add(RuleMethodKind, "", "/id", fmt.Sprintf("%q is a notification but was sent as a request (with an id)", name))
	case !isRequest && m.Kind == gen.Request:
		c.add(RuleMethodKind, "", "", fmt.Sprintf("%q is a request but was sent as a notification (without an id)", name))
	}
	if c.dir != "" && m.Direction != "" && c.dir != m.Direction {
		c.add(RuleMethodDirection, "", "/method", fmt.Sprintf("%q is sent %s but this frame went %s", name, m.Direction, c.dir))
	}
	return m, nil
}

// params checks the params member against the method's params type.
func (s *Stream) params(c *frameCtx, obj map[string]any, m *gen.Method) []Finding {
	if m == nil || m.Params == nil {
		return nil
	}
	p, has := obj["params"]
	if !has {
		if m.ParamsOptional {
			return nil
		}
		return []Finding{c.finding(RuleParams, "", "/params", m.Params.Pointer, "", fmt.Sprintf("params missing (required by %s: %s)", m.Name, m.Params.Name))}
	}
	sch, err := s.v.schemaAt(m.Params.Pointer)
	if err != nil {
		return []Finding{c.finding(RuleParams, "", "/params", m.Params.Pointer, "", err.Error())}
	}
	return c.issues(RuleParams, "/params", s.v.checkValue(sch, m.Params, p))
}

func hasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

func (s *Stream) request(c *frameCtx, obj map[string]any, name string, idv any) {
	m, unknown := s.method(c, name, true)
	held := append(unknown, s.params(c, obj, m)...)
	paramsOK := !hasErrors(held)
	p, _ := obj["params"].(map[string]any)

	if s.v.proto.hasInitialize && c.dir != gen.ServerToClient {
		if name == "initialize" {
			s.initSeen = true
		} else if !s.initSeen {
			c.add(RuleInitializeFirst, "", "/method", fmt.Sprintf("%q sent before \"initialize\"", name))
		}
	}
	if !s.cfg.Both {
		for _, f := range held {
			c.emit(f)
		}
		return
	}
	key := idKey(idv)
	if s.pending[c.dir] == nil {
		s.pending[c.dir] = map[string]*request{}
	}
	if prev, dup := s.pending[c.dir][key]; dup {
		c.add(RuleRequestDuplicate, "", "/id", fmt.Sprintf("id %s is already in flight (request at line %d)", c.id, prev.line))
		for _, f := range held {
			c.emit(f)
		}
		return
	}
	r := &request{key: key, idText: c.id, method: name, m: m, dir: c.dir, line: c.line.Num, offset: c.line.Offset, frame: c.index, deferred: held}
	if paramsOK && name == "session/prompt" && p != nil {
		if sid, ok := p["sessionId"].(string); ok {
			r.session = sid
			s.promptSent(c, r)
		}
	}
	s.pending[c.dir][key] = r
}

func (s *Stream) notification(c *frameCtx, obj map[string]any, name string) {
	m, unknown := s.method(c, name, false)
	for _, f := range unknown {
		c.emit(f)
	}
	fs := s.params(c, obj, m)
	for _, f := range fs {
		c.emit(f)
	}
	p, _ := obj["params"].(map[string]any)
	if m != nil && p != nil {
		// State rules run on frames whose params are valid; a frame with a
		// params error gets that one finding (only its seq is tracked).
		s.onNotification(c, name, p, !hasErrors(fs))
	}
}

func (s *Stream) response(c *frameCtx, obj map[string]any, idv any) {
	v := s.v
	res, hasRes := obj["result"]
	errv, hasErr := obj["error"]
	switch {
	case hasRes && hasErr:
		c.add(RuleEnvResponse, "", "", `response has both "result" and "error"`)
	case !hasRes && !hasErr:
		c.add(RuleEnvResponse, "", "", `response has neither "result" nor "error"`)
	}
	var req *request
	if s.cfg.Both {
		key := idKey(idv)
		dirs := []gen.Direction{opposite(c.dir)}
		if c.dir == "" {
			dirs = []gen.Direction{gen.ClientToServer, "", gen.ServerToClient}
		}
		for _, d := range dirs {
			if r := s.pending[d][key]; r != nil {
				req = r
				delete(s.pending[d], key)
				if s.answered[d] == nil {
					s.answered[d] = map[string]int{}
				}
				s.answered[d][key] = c.line.Num
				break
			}
		}
		if req == nil {
			answeredAt := 0
			for _, d := range dirs {
				if n := s.answered[d][key]; n > 0 {
					answeredAt = n
				}
			}
			if answeredAt > 0 {
				c.add(RuleResponseDuplicate, "", "/id", fmt.Sprintf("second response to id %s (answered at line %d)", c.id, answeredAt))
			} else {
				c.add(RuleResponseUnknownID, "", "/id", fmt.Sprintf("response to id %s: no request with this id was sent", c.id))
			}
		} else {
			c.method = req.method
			if c.dir == "" {
				c.dir = opposite(req.dir)
			}
		}
	}
	if hasErr {
		if v.errSchema != nil {
			for _, f := range c.issues(RuleError, "/error", v.checkValue(v.errSchema, v.errType, errv)) {
				c.emit(f)
			}
		} else if _, ok := errv.(map[string]any); !ok {
			c.add(RuleError, "", "/error", fmt.Sprintf(`"error" is a JSON %s, not an object`, jsonType(errv)))
		}
	} else if hasRes && req != nil && req.m != nil && req.m.Result != nil {
		sch, err := v.schemaAt(req.m.Result.Pointer)
		if err == nil {
			for _, f := range c.issues(RuleResult, "/result", v.checkValue(sch, req.m.Result, res)) {
				c.emit(f)
			}
		}
	}
	if req == nil {
		return
	}
	code := ""
	if e, ok := errv.(map[string]any); ok {
		code = jsonText(e["code"])
	}
	for _, f := range req.deferred {
		if hasErr && f.Severity == Error {
			f.Severity = Warning
			f.Message += fmt.Sprintf(" (the peer rejected the request with error %s at line %d)", code, c.line.Num)
		}
		c.emit(f)
	}
	if req.session != "" {
		s.promptAnswered(req, hasErr)
	}
}

// Close ends the stream and returns the findings that only its end can
// tell: the held findings of requests that got no response, and (when both
// directions are visible) one info per unanswered request.
func (s *Stream) Close() []Finding {
	if s.closed {
		return nil
	}
	s.closed = true
	var rs []*request
	for _, m := range s.pending {
		for _, r := range m {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool {
		return rs[i].line < rs[j].line || (rs[i].line == rs[j].line && rs[i].key < rs[j].key)
	})
	var out []Finding
	for _, r := range rs {
		out = append(out, r.deferred...)
		out = append(out, Finding{
			Stream: s.cfg.Name, Line: r.line, Offset: r.offset, Frame: r.frame, Direction: r.dir, Method: r.method, ID: r.idText,
			Rule: RuleRequestUnanswered, Severity: Info,
			Message: fmt.Sprintf("no response to %q (id %s) before the end of the stream", r.method, r.idText),
		})
	}
	return out
}

// FeedRaw is Feed for a caller that splits lines itself (the live proxy):
// raw is the line without its "\n" ("\r" kept, removed here), num and
// offset are the line's number and byte offset in dir's stream, terminated
// is false for a final fragment without "\n". A byte order mark at the
// start of a direction's first line is recognized as at the start of a
// stream.
func (s *Stream) FeedRaw(dir gen.Direction, num int, offset int64, raw []byte, terminated bool) []Finding {
	l := frame.Line{Num: num, Offset: offset, Bytes: raw, LF: terminated}
	if terminated && len(raw) > 0 && raw[len(raw)-1] == '\r' {
		l.CR = true
		l.Bytes = raw[:len(raw)-1]
	}
	if offset == 0 && bytes.HasPrefix(l.Bytes, []byte("\xef\xbb\xbf")) {
		l.BOM = true
		l.Bytes = l.Bytes[3:]
	}
	l.Size = int64(len(l.Bytes))
	return s.Feed(dir, &l)
}

// FeedOversize reports a line of dir's stream that was longer than the
// caller's limit and was not kept (size bytes without "\n").
func (s *Stream) FeedOversize(dir gen.Direction, num int, offset, size int64, terminated bool) []Finding {
	l := frame.Line{Num: num, Offset: offset, Size: size, LF: terminated, TooLarge: true}
	return s.Feed(dir, &l)
}

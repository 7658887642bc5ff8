package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
	"github.com/santhosh-tekuri/jsonschema/v5"
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
	Direction ir.Direction
	// MaxFrameBytes is the limit the frame reader applied (only for the
	// frame.too-large message; 0 means frame.DefaultMaxFrameBytes).
	MaxFrameBytes int64
}

// Stream validates the frames of one connection or file in order. It is not
// safe for concurrent use: feed it from one goroutine.
type Stream struct {
	v   *Validator
	cfg StreamConfig
	dir ir.Direction // one-direction stream: given or inferred

	frames   int
	crlf     map[ir.Direction]bool
	pending  map[ir.Direction]map[string]*request
	answered map[ir.Direction]*recentIDs
	// waiting holds the pending requests in line order (answered ones are
	// dropped lazily), for the order of findings (order.go).
	waiting  []*request
	npending int
	// limited: more than MaxPending requests were in flight; requests from
	// that side are no longer paired (pairing.limit).
	limited map[ir.Direction]bool
	rs      []ruleset.Stream // the schema's rule sets
	closed  bool

	// Reused from frame to frame: Feed's prepared frame, the frame the
	// rule sets see, an id's pairing key being built.
	scratch prepared
	rsf     rsFrame
	keyBuf  []byte

	// --type mode: each line is a value of this type, not a frame.
	valueType   *ir.Type
	valueSchema *jsonschema.Schema
}

// request is a request waiting for its response.
type request struct {
	key      string
	idText   string
	method   string
	m        *ir.Method
	dir      ir.Direction
	line     int
	offset   int64
	frame    int
	deferred []Finding // held until the response says whether the peer rejected the request
	// cancelled: the requester cancelled it (cancelNotifications), so no
	// response has to follow.
	cancelled bool
	tokens    []any // what each rule set's Request returned (nil: none)
	done      bool  // answered (or the stream closed)
	released  bool  // no longer holds back the findings after it (order.go)
}

// Bounds of the pairing state of one stream (both directions visible):
// memory stays bounded however long the stream, and a stream within them
// is checked exactly.
const (
	// MaxPending is the most requests waiting for their response at once
	// (about 300 bytes each, plus their held findings). Beyond it the
	// stream reports pairing.limit once, and requests from then on are
	// not paired: their held findings are reported at once, and a
	// response whose request may be one of them is not reported as
	// response.unknown-id.
	MaxPending = 1 << 16
	// RecentAnswers is how many answered ids per side are remembered for
	// response.duplicate; an older duplicate is reported as
	// response.unknown-id.
	RecentAnswers = 1 << 12
)

// recentIDs remembers the last RecentAnswers answered ids of one side, with
// the line of their answer.
type recentIDs struct {
	line map[string]int
	ring []string
	next int
	lost bool // some were forgotten
}

func (r *recentIDs) add(key string, line int) {
	if r.line == nil {
		r.line = map[string]int{}
	}
	if _, ok := r.line[key]; !ok {
		if len(r.ring) < RecentAnswers {
			r.ring = append(r.ring, key)
		} else {
			delete(r.line, r.ring[r.next])
			r.ring[r.next] = key
			r.next = (r.next + 1) % RecentAnswers
			r.lost = true
		}
	}
	r.line[key] = line
}

// oldestWaiting returns the line of the oldest request that still waits
// for its response and holds back the findings after it, 0 if none.
func (s *Stream) oldestWaiting() int {
	for len(s.waiting) > 0 && (s.waiting[0].done || s.waiting[0].released) {
		s.waiting[0] = nil
		s.waiting = s.waiting[1:]
	}
	if len(s.waiting) == 0 {
		return 0
	}
	return s.waiting[0].line
}

// stopWaiting makes the oldest waiting request stop holding back the
// findings after it; false if there is none.
func (s *Stream) stopWaiting() bool {
	if s.oldestWaiting() == 0 {
		return false
	}
	s.waiting[0].released = true
	return true
}

// NewStream starts a stream.
func (v *Validator) NewStream(cfg StreamConfig) *Stream {
	s := &Stream{
		v: v, cfg: cfg, dir: cfg.Direction,
		crlf:     map[ir.Direction]bool{},
		pending:  map[ir.Direction]map[string]*request{},
		answered: map[ir.Direction]*recentIDs{},
		limited:  map[ir.Direction]bool{},
	}
	for _, c := range v.checkers {
		s.rs = append(s.rs, c.NewStream())
	}
	return s
}

// Frames returns the number of frames (non-blank lines) fed so far.
func (s *Stream) Frames() int { return s.frames }

// frameCtx is one frame being checked.
type frameCtx struct {
	s      *Stream
	line   *frame.Line
	dir    ir.Direction
	index  int
	method string
	id     string
	// idRaw: the id's JSON text, when id is still to be rendered from it
	// (a frame checked by quick).
	idRaw []byte
	out   []Finding
}

// idText is the frame's id as JSON text ("" without one).
func (c *frameCtx) idText() string {
	if c.idRaw != nil {
		if v, ok := fastDecode(c.idRaw); ok {
			c.id = jsonText(v)
		}
		c.idRaw = nil
	}
	return c.id
}

func (c *frameCtx) finding(rule string, sev Severity, ptr, schema, branch, msg string) Finding {
	if sev == "" {
		sev = defaultSeverity(rule)
	}
	return Finding{
		Stream: c.s.cfg.Name, Line: c.line.Num, Offset: c.line.Offset, Frame: c.index,
		Direction: c.dir, Method: c.method, ID: c.idText(),
		Pointer: ptr, Schema: schema, Branch: branch, Rule: rule, Severity: sev, Message: msg,
	}
}

func (c *frameCtx) add(rule string, sev Severity, ptr, msg string) {
	c.out = append(c.out, c.finding(rule, sev, ptr, "", "", msg))
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
func (s *Stream) Feed(dir ir.Direction, l *frame.Line) []Finding {
	p := &s.scratch
	s.prep(p, dir, l)
	return s.commit(p)
}

// internalError turns a panic while checking the frame of l into an
// internal.error finding (the caller's recover value is r), so that a bug
// costs one frame's checks and never the stream.
func (s *Stream) internalError(r any, dir ir.Direction, l *frame.Line) Finding {
	msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return Finding{Stream: s.cfg.Name, Line: l.Num, Offset: l.Offset, Direction: dir, Rule: RuleInternal, Severity: Error,
		Message: "the validator failed on this frame: " + msg}
}

type frameKind int8

const (
	kindNone frameKind = iota
	kindRequest
	kindResponse
	kindNotification
)

// prepared is a frame after the checks that depend on nothing but the
// frame itself (framing, envelope, method table, params, error shape):
// prep may run on several frames at once (ValidateReader's workers);
// commit then runs the rest — frame index, direction, pairing, state — in
// stream order.
type prepared struct {
	c     frameCtx
	line  frame.Line
	blank bool
	crlf  bool
	kind  frameKind
	obj   map[string]any
	// params: what the rule sets read of the params (project.go);
	// cancel: the params of a cancellation notification, decoded.
	params ruleset.Value
	cancel map[string]any
	// paramsOK: params kept as bytes were read by the plan or decoded
	// (they are JSON); redo: they or the result are not, and the frame
	// is prepared again, decoded in full.
	paramsOK, redo bool
	name           string
	idv            any
	m              *ir.Method
	// badID: the frame has an id member that is not an id (its
	// envelope.id finding says so; it is not also a kind error).
	badID bool
	// held: method.unknown and params findings of a request or
	// notification (a request's wait for its response).
	held []Finding
	// quick: the frame was checked from its bytes alone (quick.go): obj
	// is nil, idRaw and resRaw hold the id's and the result's text.
	quick         bool
	idRaw, resRaw rawJSON
	// planRejected: the quick path found the params plain and the byte
	// plan did not accept them (they go to the decoder at once).
	planRejected bool
}

// prep runs the frame-local checks of l into p (whatever p held before
// is dropped). It only reads the Stream's configuration and the
// Validator, so it is safe to call concurrently on distinct p.
func (s *Stream) prep(p *prepared, dir ir.Direction, l *frame.Line) {
	s.prepWith(p, dir, l, !s.v.noPlan)
	if p.redo {
		// The frame's params or result are not JSON: decoded in full,
		// for the decoder's message about the frame.
		s.prepWith(p, dir, l, false)
	}
}

// prepWith is prep, with the byte plan (params and result kept as bytes)
// or without.
func (s *Stream) prepWith(p *prepared, dir ir.Direction, l *frame.Line, plan bool) {
	*p = prepared{line: *l}
	p.c = frameCtx{s: s, line: &p.line, dir: dir}
	c := &p.c
	defer func() {
		if r := recover(); r != nil {
			// Keep what is known: the frame still counts and is committed.
			*p = prepared{line: *l}
			p.c = frameCtx{s: s, line: &p.line, dir: dir}
			p.c.out = []Finding{s.internalError(r, dir, l)}
		}
	}()
	if l.Blank() {
		p.blank = true
		c.add(RuleFrameBlank, "", "", "blank line (receivers skip it; no writer emits one)")
		return
	}
	data, lineBOM := frameBytes(l)
	if l.BOM {
		c.add(RuleFrameBOM, "", "", "byte order mark (EF BB BF) before the frame: the TS runtime ignores it, Python's json.loads rejects it")
	} else if lineBOM {
		c.add(RuleFrameBOM, "", "", "byte order mark (EF BB BF) at the start of the line, not of the stream: the TS runtime ignores it, Python's json.loads rejects it")
	}
	p.crlf = l.CR
	if !l.LF {
		c.add(RuleFrameNoNewline, "", "", "last line not terminated by LF (validated anyway)")
	}
	if l.TooLarge {
		c.add(RuleFrameTooLarge, "", "", fmt.Sprintf("frame of %s exceeds the limit of %s (--max-frame-bytes); frame skipped", Count(int(l.Size), "byte"), Count(int(s.maxFrame()), "byte")))
		return
	}
	utf8ok := utf8.Valid(data)
	if !utf8ok {
		c.add(RuleFrameUTF8, "", "", utf8Message("frame", data))
	}
	var val any
	if s.valueType == nil && !s.v.opts.Snapshot && utf8ok && plan {
		// The common case: a valid frame checked from its bytes (quick.go).
		if s.quick(p, data) {
			return
		}
		// Else params and result stay bytes (project.go).
		if obj, ok := decodeEnvelope(data, s.v.intern); ok {
			val = obj
		}
	}
	if val == nil {
		var err error
		if val, err = decodeJSONIntern(data, s.v.intern); err != nil {
			c.add(RuleFrameJSON, "", "", "not JSON: "+err.Error()+" (receivers drop the line)")
			return
		}
	}
	if s.valueType != nil {
		c.out = append(c.out, c.issues(RuleValue, "", s.v.checkValue(s.valueSchema, s.valueType, val))...)
		return
	}
	obj, ok := val.(map[string]any)
	if !ok {
		c.add(RuleFrameNotObject, "", "", fmt.Sprintf("frame is a JSON %s, not an object (receivers drop it)", jsonType(val)))
		return
	}
	p.obj = obj
	s.envelope(p)
	if p.redo {
		return
	}
	// Members kept as bytes were found, not checked (decodeEnvelope):
	// what the plan or the decoder did not read is checked here.
	if raw, ok := obj["params"].(rawJSON); ok && !p.paramsOK && skip(raw, 0, 1) != len(raw) {
		p.redo = true
		return
	}
	if raw, ok := obj["result"].(rawJSON); ok && skip(raw, 0, 1) != len(raw) {
		p.redo = true
		return
	}
	if p.kind == kindRequest || p.kind == kindNotification {
		_, cancel := cancelNotifications[p.name]
		switch x := obj["params"].(type) {
		case rawJSON:
			if cancel {
				// The pairing reads the cancelled request's id.
				if val, ok := fastDecode(x); ok {
					p.cancel, _ = val.(map[string]any)
				}
			}
			if len(s.rs) > 0 {
				p.params = s.v.paramsFor(p.name, x)
			}
		case map[string]any:
			if cancel {
				p.cancel = x
			}
			if sel, ok := s.v.selection(p.name); ok {
				p.params = ruleset.DecodedValue(x, sel)
			}
		}
	}
}

// frameBytes returns the frame of the (non-blank) line l: its bytes
// without a byte order mark at the start of the line (the reader already
// took off the stream's own, l.BOM); lineBOM says one was taken off here.
func frameBytes(l *frame.Line) (data []byte, lineBOM bool) {
	if !l.BOM && bytes.HasPrefix(l.Bytes, []byte("\xef\xbb\xbf")) {
		return l.Bytes[3:], true
	}
	return l.Bytes, false
}

// commit runs the checks that depend on the frames before: it must see the
// stream's frames in order, one at a time.
func (s *Stream) commit(p *prepared) []Finding { return s.v.policy(s.commitRaw(p)) }

func (s *Stream) commitRaw(p *prepared) (out []Finding) {
	c := &p.c
	defer func() {
		if r := recover(); r != nil {
			out = append(c.out, s.internalError(r, c.dir, c.line))
			for i := range out {
				out[i].Frame = c.index
			}
		}
	}()
	if p.blank {
		return c.out
	}
	s.frames++
	c.index = s.frames
	if c.dir == "" && !s.cfg.Both {
		c.dir = s.dir
	}
	if m := p.m; m != nil && m.Direction != "" && m.Direction != ir.Both {
		if c.dir == "" {
			c.dir = m.Direction
			if !s.cfg.Both && s.dir == "" {
				s.dir = m.Direction
			}
		} else if c.dir != m.Direction {
			c.add(RuleMethodDirection, "", "/method", fmt.Sprintf("%q is sent %s but this frame went %s", p.name, m.Direction, c.dir))
		}
	}
	crKey := ir.Direction("")
	if s.cfg.Both {
		crKey = c.dir
	}
	if p.crlf && !s.crlf[crKey] {
		s.crlf[crKey] = true
		c.add(RuleFrameCRLF, "", "", "CRLF line end (writers end frames with LF only; the CR is ignored); further CRLF lines in this stream are not reported")
	}
	switch p.kind {
	case kindRequest:
		s.request(p)
	case kindResponse:
		s.response(p)
	case kindNotification:
		s.notification(p)
	}
	for _, fs := range [][]Finding{c.out, p.held} {
		for i := range fs {
			fs[i].Frame = c.index
			if fs[i].Direction == "" {
				fs[i].Direction = c.dir
			}
		}
	}
	return c.out
}

// utf8Message is the frame.utf8 finding's message about data (a frame or
// a document's line, what names it), which is not valid UTF-8.
func utf8Message(what string, data []byte) string {
	col := 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			col = i + 1
			break
		}
		i += n
	}
	return fmt.Sprintf("%s is not valid UTF-8 (first bad byte at column %d); checked with U+FFFD in its place", what, col)
}

// maxFrame is only used for the message; the reader applied the limit.
func (s *Stream) maxFrame() int64 {
	if s.cfg.MaxFrameBytes > 0 {
		return s.cfg.MaxFrameBytes
	}
	return frame.DefaultMaxFrameBytes
}

// decodeJSON decodes exactly one JSON value with numbers as json.Number.
func decodeJSON(data []byte) (any, error) { return decodeJSONIntern(data, nil) }

func decodeJSONIntern(data []byte, intern map[string]string) (any, error) {
	if v, ok := fastDecodeIntern(data, intern); ok {
		return v, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, describeJSONError(err, data)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value at column %d", d.InputOffset()+1)
	}
	return v, nil
}

// describeJSONError is encoding/json's error about data as a message
// naming the column (1-based byte offset). encoding/json names an
// unexpected byte as the character of that code point ('í' for the byte
// 0xED, 'Ã' for the first byte of é): a byte of a non-ASCII character is
// named by the whole character, a byte that is not UTF-8 by its value.
func describeJSONError(err error, data []byte) error {
	switch e := err.(type) {
	case *json.SyntaxError:
		msg := e.Error()
		if i := e.Offset - 1; i >= 0 && i < int64(len(data)) && data[i] >= utf8.RuneSelf {
			byByte := "'" + strings.Trim(strconv.Quote(string(rune(data[i]))), `"`) + "'"
			if r, n := utf8.DecodeRune(data[i:]); r != utf8.RuneError || n > 1 {
				msg = strings.Replace(msg, "character "+byByte, "character "+strconv.QuoteRune(r), 1)
			} else {
				msg = strings.Replace(msg, "character "+byByte, fmt.Sprintf("byte 0x%02X (not UTF-8)", data[i]), 1)
			}
		}
		return fmt.Errorf("%s at column %d", msg, e.Offset)
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return fmt.Errorf("unexpected end of JSON input after column %d (truncated frame)", len(data))
	}
	return err
}

// envelope runs the frame-local checks of a decoded object: jsonrpc, id,
// classification, method table, params, error shape.
func (s *Stream) envelope(p *prepared) {
	v := s.v
	c, obj := &p.c, p.obj
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
	p.name, p.idv = name, idv
	switch {
	case idOK && mStr:
		p.kind = kindRequest
		s.checkID(c, idv)
		s.method(p, true)
	case idOK:
		p.kind = kindResponse
		s.checkID(c, idv)
		if hasM {
			c.add(RuleEnvKind, "", "/method", fmt.Sprintf(`"method" is a JSON %s, not a string; receivers treat the frame as a response`, jsonType(mv)))
		}
		s.responseShape(p)
	case mStr:
		p.kind = kindNotification
		if hasID {
			if idv == nil {
				c.add(RuleEnvID, "", "/id", `notification carries "id": null (an id of null makes the frame a notification); drop the member or send a string or integer id`)
			} else {
				c.add(RuleEnvID, "", "/id", fmt.Sprintf("id must be a string or integer, but got %s; receivers treat the frame as a notification", jsonType(idv)))
				p.badID = true
			}
		}
		s.method(p, false)
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

// checkID checks a request's or response's id: a JSON-RPC 2.0 id (a
// string or a number without a fractional part; null is handled by the
// classification) for every schema, and the schema's JsonRpcId type when
// it has one.
func (s *Stream) checkID(c *frameCtx, idv any) {
	v := s.v
	ok := true
	if n, isNum := idv.(json.Number); isNum && !isInteger(n) {
		ok = false
	}
	name := "a JSON-RPC 2.0 id"
	if v.idType != nil {
		name = "a valid " + v.idType.Name
		if ok && !v.fastAccepts(v.idType, idv) {
			sch, err := v.schemaAt(v.idType.Pointer)
			ok = err == nil && len(v.libraryIssues(sch, idv)) == 0
		}
	}
	if !ok {
		c.add(RuleEnvID, "", "/id", fmt.Sprintf("id %s is not %s (a string or an integer)", jsonText(idv), name))
	}
}

// maxKeyBytes is the longest id kept as it is in the pairing tables;
// longer ids are kept as a hash.
const maxKeyBytes = 128

func idKey(idv any) string {
	var k string
	switch x := idv.(type) {
	case string:
		k = "s" + x
	case json.Number:
		if t := x.String(); plainInt(t) && t != "-0" {
			k = "n" + t
		} else {
			k = string(appendNumKey([]byte{'n'}, t))
		}
	default:
		k = "?" + jsonText(idv)
	}
	if len(k) > maxKeyBytes {
		return hashKey(k)
	}
	return k
}

// hashKey is the pairing key kept for a key longer than maxKeyBytes.
func hashKey(k string) string {
	sum := sha256.Sum256([]byte(k))
	return k[:1] + "#" + strconv.Itoa(len(k)) + ":" + string(sum[:])
}

func opposite(d ir.Direction) ir.Direction {
	switch d {
	case ir.ClientToServer:
		return ir.ServerToClient
	case ir.ServerToClient:
		return ir.ClientToServer
	}
	return ""
}

// method resolves the method of a request or notification, checks its
// kind and its params; the findings are held in p.held.
func (s *Stream) method(p *prepared, isRequest bool) {
	v := s.v
	c, name := &p.c, p.name
	m := v.methods[name]
	if m == nil && v.model.ExtensionPrefix != "" && strings.HasPrefix(name, v.model.ExtensionPrefix) {
		// An extension method (ACP: "_..."): not in the table, any params.
		return
	}
	if m == nil {
		p.held = append(p.held, c.finding(RuleMethodUnknown, "", "/method", "", "", fmt.Sprintf("unknown method %q (%s)", name, v.methodNames)))
		return
	}
	p.m = m
	switch {
	case isRequest && m.Kind == ir.Notification:
		c.add(RuleMethodKind, "", "/id", fmt.Sprintf("%q is a notification but was sent as a request (with an id)", name))
	case !isRequest && m.Kind == ir.Request && !p.badID:
		// (A request whose id is not an id has its envelope.id finding.)
		c.add(RuleMethodKind, "", "", fmt.Sprintf("%q is a request but was sent as a notification (without an id)", name))
	}
	if raw, ok := p.obj["params"].(rawJSON); ok && !m.ParamsUndeclared {
		check := s.v.checkRaw
		if p.planRejected {
			check = s.v.checkDecoded // the quick path ran the plan on them
		}
		is, ok := check(m.Params, raw)
		if !ok {
			p.redo = true
			return
		}
		p.paramsOK = true
		p.held = append(p.held, c.issues(RuleParams, "/params", is)...)
		return
	}
	p.held = append(p.held, s.params(c, p.obj, m)...)
}

// params checks the params member against the method's params type.
func (s *Stream) params(c *frameCtx, obj map[string]any, m *ir.Method) []Finding {
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
	if m.ParamsUndeclared {
		// The def declares no params member: any params, unless the def
		// is closed.
		if m.Params.Closed {
			def := strings.TrimSuffix(m.Params.Pointer, "/properties/params")
			return []Finding{c.finding(RuleParams, "", "/params", def+"/additionalProperties", "", fmt.Sprintf("params not allowed: %s declares no params member and no other members (additionalProperties: false)", def))}
		}
		return nil
	}
	return c.issues(RuleParams, "/params", s.v.checkValue(nil, m.Params, p))
}

func hasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

func (s *Stream) request(p *prepared) {
	c, name, held := &p.c, p.name, p.held
	f := s.frame(c, p.params, false)
	var key string
	switch {
	case !s.cfg.Both:
	case s.limited[c.dir]:
	case s.npending >= MaxPending:
		s.limited[c.dir] = true
		c.add(RulePairingLimit, "", "/id", fmt.Sprintf("more than %s wait for their response; from here on requests from this side are not paired (their findings are reported at once, and responses that may answer them are not reported as response.unknown-id)", Count(MaxPending, "request")))
	default:
		key = s.pairKey(p)
		if p.quick {
			key = strings.Clone(key)
		}
		if prev, dup := s.pending[c.dir][key]; dup {
			c.add(RuleRequestDuplicate, "", "/id", fmt.Sprintf("id %s is already in flight (request at line %d)", c.idText(), prev.line))
		} else {
			f.paired = true
		}
	}
	var tokens []any
	for i, rs := range s.rs {
		if t := rs.Request(f, !hasErrors(held)); t != nil {
			if tokens == nil {
				tokens = make([]any, len(s.rs))
			}
			tokens[i] = t
		}
	}
	if !f.paired {
		c.out = append(c.out, held...)
		return
	}
	for i := range held {
		held[i].Frame, held[i].Direction = c.index, c.dir
	}
	r := &request{key: key, idText: c.idText(), method: name, m: p.m, dir: c.dir, line: c.line.Num, offset: c.line.Offset, frame: c.index, deferred: held, tokens: tokens}
	p.held = nil
	if s.pending[c.dir] == nil {
		s.pending[c.dir] = map[string]*request{}
	}
	s.pending[c.dir][key] = r
	s.npending++
	s.waiting = append(s.waiting, r)
	if len(s.waiting) > 2*s.npending+1024 {
		// Answered requests behind one that waits long: drop them, so
		// that waiting stays within twice the pending requests.
		w := s.waiting[:0]
		for _, x := range s.waiting {
			if !x.done && !x.released {
				w = append(w, x)
			}
		}
		clear(s.waiting[len(w):])
		s.waiting = w
	}
}

// cancelNotifications are the JSON-RPC cancellation conventions: the
// notification's method and the params member holding the id of the
// request it cancels (MCP's notifications/cancelled, the Language Server
// Protocol's $/cancelRequest). A request it names (of either side) is not
// reported as request.unanswered.
var cancelNotifications = map[string]string{
	"notifications/cancelled": "requestId",
	"$/cancelRequest":         "id",
}

func (s *Stream) notification(p *prepared) {
	c := &p.c
	c.out = append(c.out, p.held...)
	if member, ok := cancelNotifications[p.name]; ok && p.cancel != nil {
		if id, ok := p.cancel[member]; ok {
			// The requester cancels its request; MCP 2026-07-28 also lets
			// the server end a client's subscriptions/listen stream so.
			// A notification whose side is unknown (a method both sides
			// send, in a mixed NDJSON file) cancels a request of any side.
			dirs := []ir.Direction{c.dir, opposite(c.dir)}
			if c.dir == "" {
				dirs = []ir.Direction{ir.ClientToServer, ir.ServerToClient, ""}
			}
			key := idKey(id)
			for _, d := range dirs {
				if r := s.pending[d][key]; r != nil {
					r.cancelled = true
					break
				}
			}
		}
	}
	if p.m != nil && p.params.IsObject() {
		// The rule sets' state rules run on frames whose params are valid;
		// a frame with a params error gets that one finding (the sets may
		// still track, e.g., its seq).
		f := s.frame(c, p.params, false)
		for _, rs := range s.rs {
			rs.Notification(f, !hasErrors(p.held))
		}
	}
	p.held = nil
}

// rsFrame is a frame as the rule sets see it (ruleset.Frame).
type rsFrame struct {
	c      *frameCtx
	s      *Stream
	params ruleset.Value
	paired bool
}

func (f *rsFrame) Line() int             { return f.c.line.Num }
func (f *rsFrame) Dir() ir.Direction     { return f.c.dir }
func (f *rsFrame) Method() string        { return f.c.method }
func (f *rsFrame) ID() string            { return f.c.idText() }
func (f *rsFrame) Params() ruleset.Value { return f.params }

// Paired reports whether the request's response will be seen (both
// directions visible and the request tracked).
func (f *rsFrame) Paired() bool { return f.paired }

// Report implements ruleset.Frame: the validator's severity override for
// the rule wins over sev.
func (f *rsFrame) Report(rule, sev, ptr, msg string) {
	if o, ok := f.s.v.ruleSev[rule]; ok {
		if o == Off {
			return
		}
		sev = string(o)
	}
	f.c.add(rule, Severity(sev), ptr, msg)
}

// responseShape checks what a response must be on its own: one of result
// and error, and the error's shape.
func (s *Stream) responseShape(p *prepared) {
	v := s.v
	c := &p.c
	_, hasRes := p.obj["result"]
	errv, hasErr := p.obj["error"]
	switch {
	case hasRes && hasErr:
		c.add(RuleEnvResponse, "", "", `response has both "result" and "error"`)
	case !hasRes && !hasErr:
		c.add(RuleEnvResponse, "", "", `response has neither "result" nor "error"`)
	}
	if hasErr {
		var is []issue
		if v.errType != nil {
			is = v.checkValue(nil, v.errType, errv)
		}
		if e, ok := errv.(map[string]any); ok {
			if n, ok := e["code"].(json.Number); ok {
				if ptr := v.errorCodes[n.String()]; ptr != "" {
					if sch, err := v.schemaAt(ptr); err == nil {
						is = append(is, v.checkValue(sch, nil, errv)...)
					}
				}
			}
		}
		c.out = append(c.out, c.issues(RuleError, "/error", withGeneric(is, errorObjectIssues(errv)))...)
	}
}

// errorObjectIssues checks the JSON-RPC 2.0 error object, whatever the
// schema calls it: an object with an integer "code" and a string
// "message" ("data" is free).
func errorObjectIssues(errv any) []issue {
	const what = "a JSON-RPC 2.0 error object has an integer code and a string message"
	obj, ok := errv.(map[string]any)
	if !ok {
		return []issue{{msg: fmt.Sprintf(`"error" is a JSON %s, not an object`, jsonType(errv))}}
	}
	var out []issue
	var missing []string
	for _, m := range []struct{ name, typ string }{{"code", "integer"}, {"message", "string"}} {
		x, has := obj[m.name]
		switch {
		case !has:
			missing = append(missing, "'"+m.name+"'")
		case jsonType(x) != m.typ:
			out = append(out, issue{ptr: "/" + m.name, msg: fmt.Sprintf("expected %s, but got %s (%s)", m.typ, jsonType(x), what)})
		}
	}
	if len(missing) > 0 {
		out = append(out, issue{msg: fmt.Sprintf("missing properties: %s (%s)", strings.Join(missing, ", "), what)})
	}
	return out
}

// withGeneric adds the built-in rule's issues at the pointers where the
// schema's own check found nothing (a schema type is usually stricter, and
// its message names its schema location).
func withGeneric(schemaIssues, generic []issue) []issue {
	seen := map[string]bool{}
	for _, is := range schemaIssues {
		seen[is.ptr] = true
	}
	out := schemaIssues
	for _, is := range generic {
		if !seen[is.ptr] {
			out = append(out, is)
		}
	}
	return out
}

// response pairs a response with its request and checks its result.
func (s *Stream) response(p *prepared) {
	v := s.v
	c := &p.c
	res, hasRes := p.obj["result"]
	errv, hasErr := p.obj["error"]
	if p.quick {
		hasRes = true // and no error (quick)
	}
	if !s.cfg.Both {
		return
	}
	var req *request
	key := s.pairKey(p) // not kept: a view of s.keyBuf
	dirs := []ir.Direction{opposite(c.dir)}
	if c.dir == "" {
		dirs = []ir.Direction{ir.ClientToServer, "", ir.ServerToClient}
	}
	// checkResult checks the response's result against the result type
	// of r's method (nil: nothing to check, or no issue).
	checkResult := func(r *request) []issue {
		if hasErr || !hasRes || r.m == nil || r.m.Result == nil {
			return nil
		}
		check := func(t *ir.Type) []issue {
			if p.quick {
				is, _ := v.checkRaw(t, p.resRaw) // JSON: checked in prep
				return is
			}
			if raw, ok := res.(rawJSON); ok {
				is, _ := v.checkRaw(t, raw) // JSON: checked in prep
				return is
			}
			return v.checkValue(nil, t, res)
		}
		found := check(r.m.Result)
		// A result matching one of the method's alternatives (a task
		// created for a task-augmented request) is as good.
		for _, alt := range r.m.ResultAlternatives {
			if len(found) == 0 {
				break
			}
			if len(check(alt)) == 0 {
				found = nil
			}
		}
		return found
	}
	var found []issue
	reqDir := ir.Direction("")
	for _, d := range dirs {
		r := s.pending[d][key]
		if r == nil {
			continue
		}
		if req == nil {
			req, reqDir, found = r, d, checkResult(r)
			continue
		}
		// A response without a side (a mixed NDJSON file) whose id both
		// sides have in flight (each side numbers its own requests):
		// it answers the request whose result type it matches, else
		// the later request (a request made while the other side's
		// was being served is answered first).
		is := checkResult(r)
		if len(found) > 0 && len(is) == 0 || (len(found) == 0) == (len(is) == 0) && r.line > req.line {
			req, reqDir, found = r, d, is
		}
	}
	if req != nil {
		req.done = true
		delete(s.pending[reqDir], key)
		s.npending--
		if s.answered[reqDir] == nil {
			s.answered[reqDir] = &recentIDs{}
		}
		s.answered[reqDir].add(req.key, c.line.Num)
	}
	if req == nil {
		answeredAt, lost, limited := 0, false, false
		for _, d := range dirs {
			if a := s.answered[d]; a != nil {
				if n := a.line[key]; n > 0 {
					answeredAt = n
				}
				lost = lost || a.lost
			}
			limited = limited || s.limited[d]
		}
		switch {
		case answeredAt > 0:
			c.add(RuleResponseDuplicate, "", "/id", fmt.Sprintf("second response to id %s (answered at line %d)", c.idText(), answeredAt))
		case limited:
			// Its request may be one that was not paired (pairing.limit).
		case lost:
			c.add(RuleResponseUnknownID, "", "/id", fmt.Sprintf("response to id %s: no request with this id is waiting (nor among the last %s answered)", c.idText(), Count(RecentAnswers, "request")))
		default:
			c.add(RuleResponseUnknownID, "", "/id", fmt.Sprintf("response to id %s: no request with this id was sent", c.idText()))
		}
		return
	}
	c.method = req.method
	for i := range c.out {
		c.out[i].Method = req.method
	}
	if c.dir == "" {
		c.dir = opposite(req.dir)
	}
	c.out = append(c.out, c.issues(RuleResult, "/result", found)...)
	code := ""
	if e, ok := errv.(map[string]any); ok {
		code = jsonText(e["code"])
	}
	for _, f := range req.deferred {
		// Same cause, same severity: what the peer answered is context.
		if hasErr {
			f.Message += fmt.Sprintf(" (the peer answered with error %s at line %d)", code, c.line.Num)
		} else {
			f.Message += fmt.Sprintf(" (the peer answered with a success response at line %d)", c.line.Num)
		}
		c.out = append(c.out, f)
	}
	if req.tokens != nil {
		f := s.frame(c, ruleset.Value{}, false)
		for i, rs := range s.rs {
			if req.tokens[i] != nil {
				rs.Response(f, req.tokens[i], hasErr)
			}
		}
	}
}

// Close ends the stream and returns the findings that only its end can
// tell: the held findings of requests that got no response, and (when both
// directions are visible) one info per unanswered request.
func (s *Stream) Close() []Finding { return s.v.policy(s.closeRaw()) }

func (s *Stream) closeRaw() []Finding {
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
		if r.cancelled {
			continue
		}
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
func (s *Stream) FeedRaw(dir ir.Direction, num int, offset int64, raw []byte, terminated bool) []Finding {
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
func (s *Stream) FeedOversize(dir ir.Direction, num int, offset, size int64, terminated bool) []Finding {
	l := frame.Line{Num: num, Offset: offset, Size: size, LF: terminated, TooLarge: true}
	return s.Feed(dir, &l)
}

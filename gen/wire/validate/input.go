package validate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
	"github.com/dshgen/dshgen/gen/wire/frame"
)

// Input describes one input for the file/stdin helpers.
type Input struct {
	// Name is the stream name in findings.
	Name string
	// Direction is the side that wrote a one-direction NDJSON input (""
	// infers it from the frames). Ignored for captures.
	Direction ir.Direction
	// Both treats an NDJSON input as a mixed stream of both directions
	// (each request's or notification's side from its method; responses
	// paired with the requests in the same input). Captures always are.
	Both bool
	// MaxFrameBytes is the maximum frame size (0: frame.DefaultMaxFrameBytes).
	MaxFrameBytes int64
	// Workers is the number of goroutines that decode and schema-check
	// frames (0: GOMAXPROCS; 1: everything on the calling goroutine). The
	// findings do not depend on it.
	Workers int
}

// Result is what validating one input gave.
type Result struct {
	// Findings, sorted (SortFindings).
	Findings []Finding
	// Frames is the number of frames (non-blank lines) read.
	Frames int
	// Capture is true when the input was in the interleaved capture format.
	Capture bool
	// Mixed is true when --direction auto found an NDJSON input with the
	// frames of both directions (validated as with Input.Both).
	Mixed bool
}

// Errors counts the error findings.
func (r *Result) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == Error {
			n++
		}
	}
	return n
}

// ValidateFile validates one file (NDJSON frames or a capture, told apart
// by content).
func (v *Validator) ValidateFile(path string, in Input) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if in.Name == "" {
		in.Name = path
	}
	return v.ValidateReader(f, in)
}

// ValidateReader validates a whole stream: NDJSON frames, or the
// interleaved capture format (detected by its first bytes). A read error
// is returned after the findings so far (also reported as input.read).
// The Result holds every finding, sorted; for long inputs use
// ValidateStream, which holds none.
func (v *Validator) ValidateReader(r io.Reader, in Input) (Result, error) {
	var fs []Finding
	res, err := v.ValidateStream(r, in, func(f Finding) { fs = append(fs, f) })
	SortFindings(fs)
	res.Findings = fs
	return res, err
}

// ValidateStream validates a whole stream as ValidateReader does and calls
// emit with each finding as soon as it is final, in the order order.go
// describes (line order, but for a request whose response came after more
// than maxHeldFindings findings of later lines). Memory is bounded
// whatever the input's length: the frames in flight between the reader
// and the workers, the findings held for ordering, and the pairing and
// protocol state (MaxPending, RecentAnswers and the rule sets' bounds).
// The Result has no Findings.
func (v *Validator) ValidateStream(r io.Reader, in Input, emit func(Finding)) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if peek, _ := br.Peek(64); frame.LooksLikeCapture(peek) {
		return v.validateCapture(br, in, emit)
	}
	fr := frame.NewReaderSize(br, in.MaxFrameBytes)
	var head []frame.Line
	var headErr error
	both := in.Both
	if !in.Both && in.Direction == "" {
		// --direction auto: a file that interleaves both directions (as
		// many loggers write them) is validated as a mixed stream.
		head, headErr = readHead(fr)
		both = v.looksMixed(head)
	}
	s := v.NewStream(StreamConfig{Name: in.Name, Both: both, Direction: in.Direction, MaxFrameBytes: in.MaxFrameBytes})
	o := &orderer{s: s, emit: emit}
	rerr := s.feedAll(in.Workers, o, func(emit func(item)) error {
		for _, l := range head {
			emit(item{line: l})
		}
		head = nil
		for {
			var l frame.Line
			var err error
			if headErr != nil {
				err, headErr = headErr, nil
			} else {
				l, err = fr.Next()
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				emit(item{pre: []Finding{{Stream: in.Name, Line: l.Num, Offset: fr.Offset(), Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()}}, skip: true})
				return err
			}
			emit(item{line: l})
		}
	})
	o.close(s.Close())
	return Result{Frames: s.Frames(), Mixed: both && !in.Both}, rerr
}

// What --direction auto reads ahead to tell a mixed file from a
// one-direction one.
const (
	headFrames = 1000
	headBytes  = 4 << 20
)

// readHead reads (and copies) the first lines of an NDJSON input, up to
// headFrames lines or headBytes bytes; err is the reader's error other
// than io.EOF (to be reported after the lines).
func readHead(fr *frame.Reader) (lines []frame.Line, err error) {
	// The lines' bytes go to one arena, sliced when it stops growing.
	var arena []byte
	var ends []int
	defer func() {
		start := 0
		for i, end := range ends {
			lines[i].Bytes = arena[start:end:end]
			start = end
		}
	}()
	for len(lines) < headFrames && len(arena) < headBytes {
		l, err := fr.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		arena = append(arena, l.Bytes...)
		ends = append(ends, len(arena))
		if l.Head != nil {
			l.Head = append([]byte(nil), l.Head...)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// looksMixed reports whether the first frames of an NDJSON file come from
// both sides: requests or notifications whose methods (x-methods) are sent
// by different sides, or a response to a request earlier in the file (a
// one-direction file holds its side's requests and its answers to the
// other side's, whose ids it never holds).
func (v *Validator) looksMixed(head []frame.Line) bool {
	var sides [2]bool
	reqIDs := map[string]bool{}
	var buf []byte
	for i := range head {
		// The id's key and the method, as the stream reads them (prep):
		// from the bytes when the frame is plain (scanEnv) and they are
		// valid UTF-8, else decoded (invalid bytes become U+FFFD there, so
		// a request whose id holds them pairs with its error response).
		// With the byte plan off, always decoded (FuzzQuick compares).
		data, _ := frameBytes(&head[i])
		var key, name string
		var hasID, hasM bool
		if e, ok := scanEnv(data); ok && !v.noPlan && utf8.Valid(e.id) && utf8.Valid(e.method) {
			if hasID = e.id != nil; hasID {
				buf = appendRawIDKey(buf[:0], e.id)
				key = view(buf)
			}
			if hasM = e.method != nil; hasM {
				name = view(e.method[1 : len(e.method)-1])
			}
		} else {
			val, ok := fastDecode(data)
			obj, isObj := val.(map[string]any)
			if !ok || !isObj {
				continue
			}
			var idv any
			idv, hasID = obj["id"]
			name, hasM = obj["method"].(string)
			if hasID && idv == nil {
				hasID = hasM // a response with a null id answers no request
			}
			if hasID {
				key = idKey(idv)
			}
		}
		switch {
		case hasM:
			if m := v.methods[name]; m != nil {
				switch m.Direction {
				case ir.ClientToServer:
					sides[0] = true
				case ir.ServerToClient:
					sides[1] = true
				}
			}
			if hasID {
				reqIDs[strings.Clone(key)] = true
			}
		case hasID && reqIDs[key]:
			return true
		}
		if sides[0] && sides[1] {
			return true
		}
	}
	return false
}

func (v *Validator) validateCapture(r io.Reader, in Input, emit func(Finding)) (Result, error) {
	s := v.NewStream(StreamConfig{Name: in.Name, Both: true, MaxFrameBytes: in.MaxFrameBytes})
	cr := frame.NewCaptureReader(r, in.MaxFrameBytes)
	o := &orderer{s: s, emit: emit}
	rerr := s.feedAll(in.Workers, o, func(emit func(item)) error {
		for {
			rec, err := cr.Next()
			if err == io.EOF {
				return nil
			}
			var fe *frame.CaptureFormatError
			if errors.As(err, &fe) {
				emit(item{pre: []Finding{{Stream: in.Name, Line: fe.Line, Offset: fe.Offset, Rule: RuleCaptureFormat, Severity: Error, Message: fe.Msg + "; line skipped"}}, skip: true})
				continue
			}
			if err != nil {
				emit(item{pre: []Finding{{Stream: in.Name, Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()}}, skip: true})
				return err
			}
			if rec.EOF {
				continue
			}
			dir := ir.ClientToServer
			if rec.Dir == frame.CaptureServerToClient {
				dir = ir.ServerToClient
			}
			emit(item{dir: dir, line: rec.FrameLine()})
		}
	})
	o.close(s.Close())
	return Result{Frames: s.Frames(), Capture: true}, rerr
}

// item is one line for feedAll: a frame line, or findings already made
// (a capture format error, a read error) to keep in stream order.
type item struct {
	dir  ir.Direction
	line frame.Line
	pre  []Finding
	skip bool // no line to feed
}

// Batching of feedAll: a batch closes at this many lines or bytes.
const (
	batchLines = 256
	batchBytes = 1 << 20
)

type batch struct {
	items []item
	out   []prepared
	arena []byte
	done  chan struct{}
}

// feedAll feeds every item produce emits, in order. With more than one
// worker (0: GOMAXPROCS) the frame-local checks (prep: decoding, schema
// checks) of consecutive lines run on the workers, and the in-order part
// (commit: pairing and state) on the calling goroutine; the findings are
// the same as feeding one line at a time. Lines in flight are bounded (a
// few batches of at most 256 lines or about 1 MiB each per worker).
func (s *Stream) feedAll(workers int, o *orderer, produce func(emit func(item)) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	take := func(it *item, fs []Finding) {
		line := it.line.Num
		if it.skip && len(it.pre) > 0 {
			line = it.pre[0].Line
		}
		o.add(line, append(it.pre, fs...))
	}
	if workers == 1 {
		return produce(func(it item) {
			var fs []Finding
			if !it.skip {
				fs = s.Feed(it.dir, &it.line)
			}
			take(&it, fs)
		})
	}
	jobs := make(chan *batch, workers*2)
	order := make(chan *batch, workers*4)
	for w := 0; w < workers; w++ {
		go func() {
			for b := range jobs {
				for i := range b.items {
					if !b.items[i].skip {
						s.prep(&b.out[i], b.items[i].dir, &b.items[i].line)
					}
				}
				close(b.done)
			}
		}()
	}
	// Committed batches are reused (their items, results and arena), so
	// that a long stream allocates no new batch per 256 lines.
	free := make(chan *batch, workers*6)
	newBatch := func() *batch {
		select {
		case b := <-free:
			b.done = make(chan struct{})
			return b
		default:
			return &batch{done: make(chan struct{})}
		}
	}
	var perr error
	go func() {
		cur := newBatch()
		flush := func() {
			if cap(cur.out) < len(cur.items) {
				cur.out = make([]prepared, len(cur.items), batchLines)
			}
			cur.out = cur.out[:len(cur.items)]
			order <- cur
			jobs <- cur
			cur = newBatch()
		}
		perr = produce(func(it item) {
			// The reader reuses its buffer: keep a copy of the line.
			if it.line.Bytes != nil {
				start := len(cur.arena)
				cur.arena = append(cur.arena, it.line.Bytes...)
				it.line.Bytes = cur.arena[start:len(cur.arena):len(cur.arena)]
			}
			if it.line.Head != nil {
				it.line.Head = append([]byte(nil), it.line.Head...)
			}
			cur.items = append(cur.items, it)
			if len(cur.items) >= batchLines || len(cur.arena) >= batchBytes {
				flush()
			}
		})
		if len(cur.items) > 0 {
			flush()
		}
		close(jobs)
		close(order)
	}()
	for b := range order {
		<-b.done
		for i := range b.items {
			var fs []Finding
			if !b.items[i].skip {
				fs = s.commit(&b.out[i])
			}
			take(&b.items[i], fs)
		}
		clear(b.out)
		clear(b.items)
		b.out, b.items, b.arena = b.out[:0], b.items[:0], b.arena[:0]
		select {
		case free <- b:
		default:
		}
	}
	return perr
}

// ValidateValues validates each non-blank line of r as one instance of the
// named $defs type (not as a frame): the framing checks, then the type's
// schema with union branches picked by tag. Findings use rule value.schema.
func (v *Validator) ValidateValues(r io.Reader, typeName string, in Input) (Result, error) {
	var fs []Finding
	res, err := v.ValidateValuesStream(r, typeName, in, func(f Finding) { fs = append(fs, f) })
	SortFindings(fs)
	res.Findings = fs
	return res, err
}

// ValidateValuesStream validates the instances of the named $defs type
// in r (--type mode): either NDJSON, one instance per line, or one JSON
// document over several lines (a pretty-printed file, as the official
// examples are). The input is NDJSON when its first non-blank line is a
// whole JSON value; else the whole input (up to MaxFrameBytes) is one
// document, and each finding names the line of the value its pointer
// points at.
func (v *Validator) ValidateValuesStream(r io.Reader, typeName string, in Input, emit func(Finding)) (Result, error) {
	t, sch, err := v.typeByName(typeName)
	if err != nil {
		return Result{}, err
	}
	max := in.MaxFrameBytes
	if max <= 0 {
		max = frame.DefaultMaxFrameBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, doc, err := sniffDocument(br, max)
	if err != nil && !errors.Is(err, io.EOF) {
		emit(Finding{Stream: in.Name, Line: 1, Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()})
		return Result{}, err
	}
	if doc {
		return v.validateDocument(head, br, max, t, sch, in, emit)
	}
	s := v.NewStream(StreamConfig{Name: in.Name, MaxFrameBytes: in.MaxFrameBytes})
	s.valueType, s.valueSchema = t, sch
	fr := frame.NewReaderSize(io.MultiReader(bytes.NewReader(head), br), in.MaxFrameBytes)
	var rerr error
	for {
		l, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rerr = err
			emit(Finding{Stream: in.Name, Line: l.Num, Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()})
			break
		}
		fs := s.Feed("", &l)
		SortFindings(fs)
		for _, f := range fs {
			emit(f)
		}
	}
	return Result{Frames: s.Frames()}, rerr
}

// sniffDocument reads the blank lines and the first non-blank line of an
// input (at most max bytes of it) and says whether the input is one JSON
// document over several lines: its first non-blank line is not a whole
// JSON value. head is what it read.
func sniffDocument(br *bufio.Reader, max int64) (head []byte, doc bool, err error) {
	for {
		line, err := br.ReadSlice('\n')
		head = append(head, line...)
		if err == bufio.ErrBufferFull {
			if int64(len(head)) > max {
				return head, false, nil // the frame reader reports it
			}
			continue
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 && err == nil {
			continue
		}
		if len(t) == 0 {
			return head, false, err
		}
		// A line of its own that is not a whole value starts a document
		// (the frame reader still reports a broken NDJSON line).
		if !json.Valid(bytes.TrimSpace(lastLine(head))) && (t[0] == '{' || t[0] == '[') {
			return head, true, err
		}
		return head, false, err
	}
}

// lastLine returns the bytes after the last LF before the end of b's last
// line.
func lastLine(b []byte) []byte {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	if i := bytes.LastIndexByte(b[:end], '\n'); i >= 0 {
		return b[i+1 : end]
	}
	return b[:end]
}

// validateDocument validates one multi-line JSON document: head and the
// rest of br, at most max bytes.
func (v *Validator) validateDocument(head []byte, br io.Reader, max int64, t *ir.Type, sch *jsonschema.Schema, in Input, emit func(Finding)) (Result, error) {
	rest, err := io.ReadAll(io.LimitReader(br, max+1-int64(len(head))))
	if err != nil {
		emit(Finding{Stream: in.Name, Line: 1, Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()})
		return Result{}, err
	}
	data := append(head, rest...)
	if int64(len(data)) > max {
		emit(Finding{Stream: in.Name, Line: 1, Rule: RuleFrameTooLarge, Severity: Error,
			Message: fmt.Sprintf("document exceeds the limit of %d bytes (--max-frame-bytes); not validated", max)})
		return Result{Frames: 1}, nil
	}
	lineOf := func(off int64) int { return 1 + bytes.Count(data[:off], []byte("\n")) }
	// Lines that are not UTF-8 are reported, as the frames of NDJSON are.
	var bad []Finding
	for i, l := range bytes.Split(data, []byte("\n")) {
		if !utf8.Valid(l) {
			bad = append(bad, Finding{Stream: in.Name, Line: i + 1, Rule: RuleFrameUTF8, Severity: defaultSeverity(RuleFrameUTF8), Message: utf8Message("line", l)})
		}
	}
	done := func(fs ...Finding) (Result, error) {
		fs = append(bad, fs...)
		SortFindings(fs)
		for _, f := range fs {
			emit(f)
		}
		return Result{Frames: 1}, nil
	}
	root, perr := schemadoc.Parse(data)
	if perr != nil {
		line := 1
		var se *schemadoc.SyntaxError
		if errors.As(perr, &se) {
			line = lineOf(se.Offset)
		}
		return done(Finding{Stream: in.Name, Line: line, Rule: RuleFrameJSON, Severity: Error, Message: "not JSON: " + perr.Error()})
	}
	val, err := decodeJSON(data)
	if err != nil {
		return done(Finding{Stream: in.Name, Line: 1, Rule: RuleFrameJSON, Severity: Error, Message: "not JSON: " + err.Error()})
	}
	s := v.NewStream(StreamConfig{Name: in.Name})
	c := &frameCtx{s: s, line: &frame.Line{Num: 1}}
	fs := c.issues(RuleValue, "", v.checkValue(sch, t, val))
	for i := range fs {
		fs[i].Stream = in.Name
		// The line of the deepest value on the finding's pointer.
		p := fs[i].Pointer
		for {
			if n, ok := schemadoc.Resolve(root, p); ok {
				fs[i].Line = lineOf(n.Offset())
				break
			}
			j := strings.LastIndexByte(p, '/')
			if j < 0 {
				break
			}
			p = p[:j]
		}
	}
	return done(fs...)
}

// CheckType returns an error when the schema has no $defs type name (the
// --type mode's usage error).
func (v *Validator) CheckType(name string) error {
	_, _, err := v.typeByName(name)
	return err
}

// ValueFindings validates one decoded-or-raw JSON value (a whole instance)
// against the named type, for tests and in-process use.
func (v *Validator) ValueFindings(typeName string, data []byte) ([]Finding, error) {
	t, sch, err := v.typeByName(typeName)
	if err != nil {
		return nil, err
	}
	val, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := &frameCtx{s: v.NewStream(StreamConfig{}), line: &frame.Line{Num: 1}}
	return c.issues(RuleValue, "", v.checkValue(sch, t, val)), nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/jsonvalue"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// Input is one input of a run: NDJSON frames of one direction, or an
// interleaved capture (as 'dshgen tap --capture' writes; told apart by
// content).
type Input struct {
	// Name is how reports name the input: its path, or "valid.log" for
	// the vectors generated from the schema (the file 'dshgen generate
	// --vectors DIR' writes, with the same line numbers). A Name whose base
	// is notifications.expected.jsonl is one of the upstream's normalized
	// snapshots, which leave out "jsonrpc".
	Name string
	Data []byte
	// Type, when set, makes the input instances of that named type
	// ($defs/Type or definitions/Type) instead of frames: one JSON document
	// (which may span lines, as the official examples do) or NDJSON, one
	// instance per line. TypeNames gives the type's name in each
	// language's bindings (by driver language).
	Type      string
	TypeNames map[string]string
}

// InputFrame is one frame of an input, with where it came from.
type InputFrame struct {
	File string
	Line int
	Dir  ir.Direction
	Raw  []byte
	// Valid is true when the validator found no error in the frame other
	// than the stateful rules (conformance is about the bindings, one frame
	// at a time) and, for the upstream's normalized snapshots, a missing
	// "jsonrpc"; when it nests at most frame.MaxDepth levels; and, for a
	// response carrying a result, when an earlier request of the input has
	// its id (else the result's type is unknown). Only valid frames are
	// sent to the drivers.
	Valid bool
	// Why says why the frame is not valid (the first reason).
	Why string
	// Method is, for a response carrying a result, the method of the
	// latest earlier request of the input with the same id.
	Method string
	// TypeNames is, for an instance of a named type (Input.Type), the
	// type's name in each language's bindings; nil for a frame.
	TypeNames map[string]string
}

// Mismatch is one frame a language failed on (or, with Frames > 1, a run
// of frames that were not checked).
type Mismatch struct {
	Lang    string
	File    string
	Line    int
	Pointer string // first difference (JSON pointer into the frame)
	What    string
	// Frames is how many valid frames the mismatch covers: 1, or the
	// frames not sent because the driver kept dying.
	Frames int
}

// Report is the outcome of one conformance run.
type Report struct {
	Files      []string
	Frames     int // frames read
	Checked    int // valid frames sent through every driver
	PerLang    map[string]int
	Mismatches []Mismatch
	// NotValid are the frames not held to the round trip, with why (the
	// frames read minus those checked).
	NotValid []InputFrame
	// Invalid vectors: how many were checked and the ones the validator did
	// not report with their labelled rule.
	InvalidChecked int
	InvalidMissed  []string
}

// Failed reports whether anything did not conform.
func (r *Report) Failed() bool { return len(r.Mismatches) > 0 || len(r.InvalidMissed) > 0 }

// ReadFrames splits an input into its frames (blank lines, capture
// comments and end-of-stream records skipped).
func ReadFrames(in Input) ([]InputFrame, error) {
	var out []InputFrame
	if in.Type != "" {
		return readValues(in)
	}
	if frame.LooksLikeCapture(in.Data) {
		cr := frame.NewCaptureReader(bytes.NewReader(in.Data), frame.DefaultMaxFrameBytes)
		for {
			rec, err := cr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, ok := err.(*frame.CaptureFormatError); ok {
					continue
				}
				return nil, fmt.Errorf("%s: %w", in.Name, err)
			}
			if rec.EOF || rec.TooLarge {
				continue
			}
			if l := rec.FrameLine(); l.Blank() {
				continue
			}
			dir := ir.ClientToServer
			if rec.Dir == frame.CaptureServerToClient {
				dir = ir.ServerToClient
			}
			out = append(out, InputFrame{File: in.Name, Line: rec.Line.Num, Dir: dir, Raw: append([]byte(nil), rec.Payload...)})
		}
		return out, nil
	}
	err := eachLine(in, func(num int, b []byte) {
		out = append(out, InputFrame{File: in.Name, Line: num, Raw: append([]byte(nil), b...)})
	})
	return out, err
}

// eachLine calls f with each non-blank NDJSON line of in (over-long ones
// skipped: the validator reports them).
func eachLine(in Input, f func(num int, b []byte)) error {
	r := frame.NewReader(bytes.NewReader(in.Data))
	for {
		l, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		if !l.TooLarge && !l.Blank() {
			f(l.Num, l.Bytes)
		}
	}
}

// readValues splits an input of instances of a named type: a single JSON
// document (on one line or several) is one instance at line 1, else each
// non-blank line is one. Each is sent compacted (the driver protocol is a
// line per value).
func readValues(in Input) ([]InputFrame, error) {
	var out []InputFrame
	add := func(line int, raw []byte) {
		var c bytes.Buffer
		if json.Compact(&c, raw) != nil {
			c.Reset()
			c.Write(raw) // invalid JSON: the validator says why
		}
		out = append(out, InputFrame{File: in.Name, Line: line, Raw: c.Bytes(), TypeNames: in.TypeNames})
	}
	if trimmed := bytes.TrimSpace(in.Data); json.Valid(trimmed) {
		if len(trimmed) > 0 {
			add(1, trimmed)
		}
		return out, nil
	}
	err := eachLine(in, add)
	return out, err
}

// classifyValues validates the instances of in.Type (--type mode): an
// instance is valid when the validator reports no error on it and it nests
// at most frame.MaxDepth levels.
func classifyValues(v *validate.Validator, in Input, frames []InputFrame) error {
	res, err := v.ValidateValues(bytes.NewReader(in.Data), in.Type, validate.Input{Name: in.Name})
	if err != nil {
		return err
	}
	single := len(frames) == 1 && frames[0].Line == 1 && json.Valid(bytes.TrimSpace(in.Data))
	bad := map[int]string{}
	for _, f := range res.Findings {
		if f.Severity != validate.Error {
			continue
		}
		line := f.Line
		if single {
			line = 1 // a multi-line document's findings are at their own line
		}
		if _, seen := bad[line]; !seen {
			bad[line] = f.Rule + ": " + f.Message
		}
	}
	for i := range frames {
		f := &frames[i]
		f.Why = whyNot(f, bad)
		f.Valid = f.Why == ""
	}
	return nil
}

// whyNot is the first finding on f's line in bad, else, for a frame
// nesting deeper than every binding is held to, that ("" when neither).
func whyNot(f *InputFrame, bad map[int]string) string {
	if why := bad[f.Line]; why != "" {
		return why
	}
	if d := frame.Depth(f.Raw); d > frame.MaxDepth {
		return fmt.Sprintf("frame.depth: nests %d levels deep, more than the %d every binding is held to", d, frame.MaxDepth)
	}
	return ""
}

// ignored reports the findings conformance does not hold against a frame:
// the stateful rules, framing warnings, unknown tags in open unions (valid:
// the bindings keep them) and, in the upstream's normalized snapshots, the
// missing "jsonrpc". A schema finding makes a frame invalid at any severity
// (the validator lowers params.schema and method.unknown to warnings when
// the peer rejected the request, but the frame is still not valid).
func ignored(f validate.Finding, snapshot bool) bool {
	if strings.HasPrefix(f.Rule, "state.") || f.Rule == "request.unanswered" {
		return true
	}
	if snapshot && f.Rule == "envelope.jsonrpc" {
		return true
	}
	for _, p := range []string{"params.", "result.", "error.", "method.", "envelope.", "value.", "union.missing-tag"} {
		if strings.HasPrefix(f.Rule, p) {
			return false
		}
	}
	return f.Severity != validate.Error
}

// Classify validates the frames of one input, marks which are valid and
// pairs each response with its request's method.
func Classify(v *validate.Validator, in Input, frames []InputFrame) error {
	snapshot := filepath.Base(in.Name) == "notifications.expected.jsonl"
	// An NDJSON input may mix both directions: the bindings decode by
	// method whichever side sent the frame.
	res, err := v.ValidateReader(bytes.NewReader(in.Data), validate.Input{Name: in.Name, Both: true})
	if err != nil {
		return err
	}
	bad := map[int]string{}
	for _, f := range res.Findings {
		if ignored(f, snapshot) {
			continue
		}
		if _, seen := bad[f.Line]; !seen {
			bad[f.Line] = f.Rule + ": " + f.Message
		}
	}
	methods := map[string]string{} // sender and request id (compact JSON) → method
	for i := range frames {
		f := &frames[i]
		f.Why = whyNot(f, bad)
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(f.Raw, &env) == nil && len(env.ID) > 0 {
			var id bytes.Buffer
			json.Compact(&id, env.ID)
			switch {
			case env.Method != nil:
				methods[string(f.Dir)+" "+id.String()] = *env.Method
			case env.Result != nil:
				// Each side numbers its own requests (a capture says which
				// side sent what): a response answers the other side's.
				f.Method = methods[string(answering(f.Dir))+" "+id.String()]
				if f.Method == "" && f.Why == "" {
					f.Why = fmt.Sprintf("response.unpaired: no earlier request of this input has id %s, so the type of its result is unknown", id.String())
				}
			}
		}
		if f.Why == "" {
			// An extension method (ACP "_..."): valid, but no binding
			// types it, so it is not held to the round trip.
			name := f.Method
			if env.Method != nil {
				name = *env.Method
			}
			if pre := v.Model().ExtensionPrefix; pre != "" && strings.HasPrefix(name, pre) {
				f.Why = fmt.Sprintf("extension method %s: any params and result, typed by no binding", name)
			}
		}
		f.Valid = f.Why == ""
	}
	return nil
}

// answering is the side whose request a response sent by d answers ("" for
// an NDJSON input, whose frames carry no side).
func answering(d ir.Direction) ir.Direction {
	switch d {
	case ir.ClientToServer:
		return ir.ServerToClient
	case ir.ServerToClient:
		return ir.ClientToServer
	}
	return d
}

// Compare checks one driver answer (the text after "SEQ<TAB>") against
// its frame. Strings are compared exactly (jsonvalue).
func Compare(lang string, f *InputFrame, answer string) *Mismatch {
	m := &Mismatch{Lang: lang, File: f.File, Line: f.Line, Frames: 1}
	if msg, ok := strings.CutPrefix(answer, "!error "); ok {
		m.What = "does not decode: " + msg
		return m
	}
	p, what, err := jsonvalue.Diff(f.Raw, []byte(answer))
	switch {
	case err != nil:
		m.What = "driver output is not JSON: " + err.Error()
	case what != "":
		m.Pointer, m.What = p, "re-encodes differently: "+what
	default:
		return nil
	}
	return m
}

// CheckInvalid validates each invalid vector and returns the ones whose
// labelled rule the validator did not report on the last frame.
func CheckInvalid(v *validate.Validator, vectors []Invalid) []string {
	var missed []string
	for i, x := range vectors {
		res, err := v.ValidateReader(bytes.NewReader(writeCapture(x.Frames)), validate.Input{Name: fmt.Sprintf("invalid vector %d", i+1)})
		if err != nil {
			missed = append(missed, fmt.Sprintf("vector %d (%s): %v", i+1, x.Rule, err))
			continue
		}
		last := len(x.Frames)
		found := false
		var got []string
		for _, f := range res.Findings {
			// The labelled rule must flag it: an error, or a warning for
			// the rules whose findings are warnings (method.unknown).
			if f.Line == last && (f.Severity == validate.Error || f.Severity == validate.Warning) {
				got = append(got, f.Rule)
				if f.Rule == x.Rule {
					found = true
				}
			}
		}
		if !found {
			missed = append(missed, fmt.Sprintf("vector %d (%s: %s): validator reported %v on its last frame", i+1, x.Rule, x.About, got))
		}
	}
	return missed
}

// Run validates the inputs, sends every valid frame through each driver
// (the drivers side by side, each one process for all inputs, restarted
// after the frame it died on) and checks the invalid vectors.
func Run(ctx context.Context, v *validate.Validator, inputs []Input, drivers []Driver, invalid []Invalid) (*Report, error) {
	rep := &Report{PerLang: map[string]int{}}
	var valid []*InputFrame
	for _, in := range inputs {
		rep.Files = append(rep.Files, in.Name)
		fs, err := ReadFrames(in)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			continue
		}
		classify := Classify
		if in.Type != "" {
			classify = classifyValues
		}
		if err := classify(v, in, fs); err != nil {
			return nil, err
		}
		rep.Frames += len(fs)
		for i := range fs {
			if fs[i].Valid {
				valid = append(valid, &fs[i])
			} else {
				rep.NotValid = append(rep.NotValid, InputFrame{File: fs[i].File, Line: fs[i].Line, Why: fs[i].Why})
			}
		}
	}
	rep.Checked = len(valid)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(drivers))
	for di, d := range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms, err := d.check(ctx, valid)
			mu.Lock()
			defer mu.Unlock()
			errs[di] = err
			rep.Mismatches = append(rep.Mismatches, ms...)
			rep.PerLang[d.Lang] = len(valid)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(rep.Mismatches, func(i, j int) bool {
		a, b := rep.Mismatches[i], rep.Mismatches[j]
		if a.Lang != b.Lang {
			return a.Lang < b.Lang
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	rep.InvalidChecked = len(invalid)
	rep.InvalidMissed = CheckInvalid(v, invalid)
	return rep, nil
}

package validate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/dshgen/dshgen/gen"
	"github.com/dshgen/dshgen/gen/frame"
)

// Input describes one input for the file/stdin helpers.
type Input struct {
	// Name is the stream name in findings.
	Name string
	// Direction is the side that wrote a one-direction NDJSON input (""
	// infers it from the frames). Ignored for captures.
	Direction gen.Direction
	// Both treats an NDJSON input as a mixed stream of both directions
	// (each request's or notification's side from its method; responses
	// paired with the requests in the same input). Captures always are.
	Both bool
	// MaxFrameBytes is the maximum frame size (0: frame.DefaultMaxFrameBytes).
	MaxFrameBytes int64
}

// Result is what validating one input gave.
type Result struct {
	// Findings, sorted (SortFindings).
	Findings []Finding
	// Frames is the number of frames (non-blank lines) read.
	Frames int
	// Capture is true when the input was in the interleaved capture format.
	Capture bool
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
func (v *Validator) ValidateReader(r io.Reader, in Input) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64)
	if frame.LooksLikeCapture(head) {
		return v.validateCapture(br, in)
	}
	s := v.NewStream(StreamConfig{Name: in.Name, Both: in.Both, Direction: in.Direction, MaxFrameBytes: in.MaxFrameBytes})
	fr := frame.NewReaderSize(br, in.MaxFrameBytes)
	var out []Finding
	var rerr error
	for {
		l, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rerr = err
			out = append(out, Finding{Stream: in.Name, Line: l.Num, Offset: fr.Offset(), Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()})
			break
		}
		out = append(out, s.Feed("", &l)...)
	}
	out = append(out, s.Close()...)
	SortFindings(out)
	return Result{Findings: out, Frames: s.Frames()}, rerr
}

func (v *Validator) validateCapture(r io.Reader, in Input) (Result, error) {
	s := v.NewStream(StreamConfig{Name: in.Name, Both: true, MaxFrameBytes: in.MaxFrameBytes})
	cr := frame.NewCaptureReader(r, in.MaxFrameBytes)
	var out []Finding
	var rerr error
	for {
		rec, err := cr.Next()
		if err == io.EOF {
			break
		}
		var fe *frame.CaptureFormatError
		if errors.As(err, &fe) {
			out = append(out, Finding{Stream: in.Name, Line: fe.Line, Offset: fe.Offset, Rule: RuleCaptureFormat, Severity: Error, Message: fe.Msg + "; line skipped"})
			continue
		}
		if err != nil {
			rerr = err
			out = append(out, Finding{Stream: in.Name, Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()})
			break
		}
		if rec.EOF {
			continue
		}
		dir := gen.ClientToServer
		if rec.Dir == frame.CaptureServerToClient {
			dir = gen.ServerToClient
		}
		l := rec.FrameLine()
		out = append(out, s.Feed(dir, &l)...)
	}
	out = append(out, s.Close()...)
	SortFindings(out)
	return Result{Findings: out, Frames: s.Frames(), Capture: true}, rerr
}

// ValidateValues validates each non-blank line of r as one instance of the
// named $defs type (not as a frame): the framing checks, then the type's
// schema with union branches picked by tag. Findings use rule value.schema.
func (v *Validator) ValidateValues(r io.Reader, typeName string, in Input) (Result, error) {
	t, sch, err := v.typeByName(typeName)
	if err != nil {
		return Result{}, err
	}
	s := v.NewStream(StreamConfig{Name: in.Name, MaxFrameBytes: in.MaxFrameBytes})
	fr := frame.NewReaderSize(r, in.MaxFrameBytes)
	var out []Finding
	var rerr error
	for {
		l, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rerr = err
			out = append(out, Finding{Stream: in.Name, Line: l.Num, Rule: RuleInput, Severity: Error, Message: "read error: " + err.Error()})
			break
		}
		c := &frameCtx{s: s, line: &l}
		if val, ok := s.framing(c); ok {
			c.out = append(c.out, c.issues(RuleValue, "", v.checkValue(sch, t, val))...)
		}
		out = append(out, c.out...)
	}
	SortFindings(out)
	return Result{Findings: out, Frames: s.Frames()}, rerr
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

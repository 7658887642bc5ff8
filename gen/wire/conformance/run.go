package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/jsonvalue"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// Driver runs one language's round-trip driver: Cmd reads NDJSON frames on
// stdin and writes one line per frame on stdout.
type Driver struct {
	Lang string
	Cmd  []string
	Dir  string   // working directory
	Env  []string // extra environment
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
	// "jsonrpc". Only valid frames must round-trip.
	Valid bool
	// Why says why the frame is not valid (the first error).
	Why string
}

// Mismatch is one frame a language failed on.
type Mismatch struct {
	Lang    string
	File    string
	Line    int
	Pointer string // first difference (JSON pointer into the frame)
	What    string
	// Frames is how many valid frames the mismatch covers: 1, or all of an
	// input's when the driver's output could not be matched line by line.
	Frames int
}

// Report is the outcome of one conformance run.
type Report struct {
	Files      []string
	Frames     int // frames read
	Checked    int // valid frames sent through every driver
	PerLang    map[string]int
	Mismatches []Mismatch
	// Invalid vectors: how many were checked and the ones the validator did
	// not report with their labelled rule.
	InvalidChecked int
	InvalidMissed  []string
}

// Failed reports whether anything did not conform.
func (r *Report) Failed() bool { return len(r.Mismatches) > 0 || len(r.InvalidMissed) > 0 }

// ReadFrames reads an input: an interleaved capture (told apart by
// content) or NDJSON frames of one direction (dir "" lets the validator's
// inference stand; the drivers do not need it).
func ReadFrames(path string) ([]InputFrame, bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	var out []InputFrame
	if frame.LooksLikeCapture(data) {
		cr := frame.NewCaptureReader(bytes.NewReader(data), frame.DefaultMaxFrameBytes)
		for {
			rec, err := cr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, ok := err.(*frame.CaptureFormatError); ok {
					continue
				}
				return nil, true, err
			}
			if rec.EOF || rec.TooLarge {
				continue
			}
			l := rec.FrameLine()
			if l.Blank() {
				continue
			}
			dir := ir.ClientToServer
			if rec.Dir == frame.CaptureServerToClient {
				dir = ir.ServerToClient
			}
			out = append(out, InputFrame{File: path, Line: rec.Line.Num, Dir: dir, Raw: append([]byte(nil), rec.Payload...)})
		}
		return out, true, nil
	}
	r := frame.NewReader(bytes.NewReader(data))
	for {
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		if l.TooLarge || l.Blank() {
			continue
		}
		out = append(out, InputFrame{File: path, Line: l.Num, Raw: append([]byte(nil), l.Bytes...)})
	}
	return out, false, nil
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

// Classify validates the frames of one input and marks which are valid.
func Classify(v *validate.Validator, path string, frames []InputFrame) error {
	snapshot := filepath.Base(path) == "notifications.expected.jsonl"
	res, err := v.ValidateFile(path, validate.Input{Name: path})
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
	for i := range frames {
		frames[i].Why = bad[frames[i].Line]
		frames[i].Valid = frames[i].Why == ""
	}
	return nil
}

// RunDriver sends every frame's raw line to d and returns its output lines.
func RunDriver(ctx context.Context, d Driver, frames []InputFrame) ([]string, string, error) {
	cmd := exec.CommandContext(ctx, d.Cmd[0], d.Cmd[1:]...)
	cmd.Dir = d.Dir
	cmd.Env = append(os.Environ(), d.Env...)
	var stdin bytes.Buffer
	for _, f := range frames {
		stdin.Write(f.Raw)
		stdin.WriteByte('\n')
	}
	cmd.Stdin = &stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); ok {
		err = nil // a failing frame: reported per line
	}
	if err != nil {
		return nil, stderr.String(), fmt.Errorf("%s driver: %v", d.Lang, err)
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, stderr.String(), nil
}

// Compare checks a driver's output lines against the input frames.
func Compare(lang string, frames []InputFrame, lines []string, stderr string) []Mismatch {
	var out []Mismatch
	if len(lines) != len(frames) {
		msg := fmt.Sprintf("driver wrote %d lines for %d frames", len(lines), len(frames))
		if s := strings.TrimSpace(stderr); s != "" {
			msg += ": " + firstLine(s)
		}
		valid := 0
		for _, f := range frames {
			if f.Valid {
				valid++
			}
		}
		return []Mismatch{{Lang: lang, File: frames[0].File, Line: frames[0].Line, What: msg, Frames: valid}}
	}
	for i, f := range frames {
		if !f.Valid {
			continue
		}
		got := lines[i]
		if strings.HasPrefix(got, "!error ") {
			out = append(out, Mismatch{Lang: lang, File: f.File, Line: f.Line, What: "does not decode: " + strings.TrimPrefix(got, "!error "), Frames: 1})
			continue
		}
		p, what, err := jsonvalue.Diff(f.Raw, []byte(got))
		if err != nil {
			out = append(out, Mismatch{Lang: lang, File: f.File, Line: f.Line, What: "driver output is not JSON: " + err.Error(), Frames: 1})
			continue
		}
		if what != "" {
			out = append(out, Mismatch{Lang: lang, File: f.File, Line: f.Line, Pointer: p, What: "re-encodes differently: " + what, Frames: 1})
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
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
			if f.Line == last && f.Severity == validate.Error {
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

// ReadInvalid reads invalid.jsonl.
func ReadInvalid(path string) ([]Invalid, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Invalid
	for i, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var x Invalid
		if err := json.Unmarshal(l, &x); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// Run validates the inputs, sends them through every driver in parallel and
// checks the invalid vectors.
func Run(ctx context.Context, v *validate.Validator, inputs []string, drivers []Driver, invalid []Invalid) (*Report, error) {
	rep := &Report{Files: inputs, PerLang: map[string]int{}}
	type input struct {
		path   string
		frames []InputFrame
	}
	var ins []input
	for _, p := range inputs {
		fs, _, err := ReadFrames(p)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			continue
		}
		if err := Classify(v, p, fs); err != nil {
			return nil, err
		}
		rep.Frames += len(fs)
		for _, f := range fs {
			if f.Valid {
				rep.Checked++
			}
		}
		ins = append(ins, input{p, fs})
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(drivers))
	for di, d := range drivers {
		wg.Add(1)
		go func(di int, d Driver) {
			defer wg.Done()
			for _, in := range ins {
				lines, stderr, err := RunDriver(ctx, d, in.frames)
				if err != nil {
					errs[di] = fmt.Errorf("%s: %w (stderr: %s)", in.path, err, firstLine(stderr))
					return
				}
				ms := Compare(d.Lang, in.frames, lines, stderr)
				mu.Lock()
				rep.Mismatches = append(rep.Mismatches, ms...)
				for _, f := range in.frames {
					if f.Valid {
						rep.PerLang[d.Lang]++
					}
				}
				mu.Unlock()
			}
		}(di, d)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(rep.Mismatches, func(i, j int) bool {
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

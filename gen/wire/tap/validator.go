package tap

import (
	"bytes"
	"sync"
	"time"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// ValidatorConfig configures a ValidatorSink.
type ValidatorConfig struct {
	// Name is the stream name in findings: the capture file's name when
	// there is one, so that live findings read like those of
	// `dshgen validate CAPTURE`.
	Name string
	// CaptureMsDecimals must equal the tap's Config.CaptureMsDecimals: the
	// sink numbers lines and offsets as in the capture the tap writes.
	CaptureMsDecimals int
	// MaxFrameBytes must equal the tap's Config.MaxFrameBytes (0:
	// DefaultMaxFrameBytes); it is the limit named in frame.too-large.
	MaxFrameBytes int64
	// OnFinding, when set, is called with each finding as soon as the
	// validator can tell it (from the sink's goroutine).
	OnFinding func(validate.Finding)
	// Annotate, when set, may add to each finding before it is counted,
	// kept or handed to OnFinding (the CLI's cross-revision hints).
	Annotate func(*validate.Finding)
	// Keep is how many findings the sink holds for Result: 0 none (a live
	// reporter uses OnFinding, and memory stays bounded however long the
	// session), < 0 all, n > 0 the first n (the rest are only counted).
	Keep int
}

// ValidatorSink is the Sink that runs the checks of `dshgen validate`
// (envelope, methods, params/results/errors, pairing, stateful rules) on
// the live traffic, with one validate.Stream over both directions.
//
// Every finding's Line and Offset are those of the frame in the capture the
// tap writes (or would write: the numbering does not need --capture): Line
// is the capture's line number, Offset the byte offset of the frame after
// DIR<TAB>MS<TAB>. So a live finding and the same finding from `dshgen
// validate CAPTURE` are equal, field for field.
type ValidatorSink struct {
	cfg    ValidatorConfig
	stream *validate.Stream

	num    int   // capture records so far
	off    int64 // capture bytes so far
	begun  [2]bool
	numBuf []byte

	mu       sync.Mutex
	frames   int
	notKept  int
	findings []validate.Finding
	summary  validate.Summary
	complete bool
	closed   bool
}

// NewValidatorSink returns a sink feeding v.
func NewValidatorSink(v *validate.Validator, cfg ValidatorConfig) *ValidatorSink {
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	return &ValidatorSink{
		cfg:    cfg,
		stream: v.NewStream(validate.StreamConfig{Name: cfg.Name, Both: true, MaxFrameBytes: cfg.MaxFrameBytes}),
	}
}

func genDir(dir string) (ir.Direction, int) {
	if dir == ServerToClient {
		return ir.ServerToClient, 1
	}
	return ir.ClientToServer, 0
}

// record accounts for one capture record of tag with a body of n bytes
// (without the "\n" the record ends with) and returns its line number and
// the offset of its body.
func (s *ValidatorSink) record(tag string, at time.Duration, n int64) (int, int64) {
	s.num++
	s.numBuf = frame.AppendCaptureMs(s.numBuf[:0], at, s.cfg.CaptureMsDecimals)
	body := s.off + int64(len(tag)) + 1 + int64(len(s.numBuf)) + 1
	s.off = body + n + 1
	return s.num, body
}

// Frame implements Sink.
func (s *ValidatorSink) Frame(dir string, line []byte, terminated bool, at time.Duration) {
	gd, d := genDir(dir)
	tag := dir
	if !terminated {
		tag += frame.CaptureNoNewlineSuffix
	}
	num, off := s.record(tag, at, int64(len(line)))
	// As the capture reader gives it: "\r" before the record's "\n" taken
	// off, a byte order mark at the start of a direction's first frame
	// taken off (the offset still points at it).
	l := frame.Line{Num: num, Offset: off, Bytes: line, LF: terminated}
	if n := len(l.Bytes); n > 0 && l.Bytes[n-1] == '\r' {
		l.CR = true
		l.Bytes = l.Bytes[:n-1]
	}
	if !s.begun[d] {
		s.begun[d] = true
		if bytes.HasPrefix(l.Bytes, []byte("\xef\xbb\xbf")) {
			l.BOM = true
			l.Bytes = l.Bytes[3:]
		}
	}
	l.Size = int64(len(l.Bytes))
	s.add(s.stream.Feed(gd, &l))
}

// Oversize implements OversizeSink.
func (s *ValidatorSink) Oversize(dir string, size int64, terminated bool, at time.Duration) {
	gd, d := genDir(dir)
	tag := dir
	if !terminated {
		tag += frame.CaptureNoNewlineSuffix
	}
	num, off := s.record(tag, at, size)
	s.begun[d] = true
	s.add(s.stream.FeedOversize(gd, num, off, size, terminated))
}

// End implements Sink.
func (s *ValidatorSink) End(dir string, eof bool, at time.Duration) {
	if eof {
		s.record(dir+frame.CaptureEOFSuffix, at, 0)
	}
}

// Close implements Sink: with complete, the end-of-stream findings
// (unanswered requests) are added; without, they are left out, since the
// frames the tap skipped would make them false.
func (s *ValidatorSink) Close(complete bool) {
	if complete {
		s.add(s.stream.Close())
	}
	s.mu.Lock()
	s.complete, s.closed = complete, true
	s.mu.Unlock()
}

func (s *ValidatorSink) add(fs []validate.Finding) {
	if s.cfg.Annotate != nil {
		for i := range fs {
			s.cfg.Annotate(&fs[i])
		}
	}
	s.mu.Lock()
	s.frames = s.stream.Frames()
	keep := len(fs)
	if s.cfg.Keep >= 0 {
		keep = min(keep, max(0, s.cfg.Keep-len(s.findings)))
	}
	s.findings = append(s.findings, fs[:keep]...)
	s.notKept += len(fs) - keep
	s.summary.Add(fs)
	s.mu.Unlock()
	if s.cfg.OnFinding != nil {
		for _, f := range fs {
			s.cfg.OnFinding(f)
		}
	}
}

// Summary returns the counts so far; Frames is the number of frames fed
// (non-blank lines), Streams 1.
func (s *ValidatorSink) Summary() validate.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := s.summary
	sum.Streams = 1
	sum.Frames = s.frames
	return sum
}

// NotKept returns how many findings were counted but not kept (Keep).
func (s *ValidatorSink) NotKept() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notKept
}

// Result returns the kept findings so far, sorted as `dshgen validate` sorts
// them, with the frame count, as a validate.Result (Capture true: the
// numbering is the capture's).
func (s *ValidatorSink) Result() validate.Result {
	s.mu.Lock()
	fs := append([]validate.Finding(nil), s.findings...)
	frames := s.frames
	s.mu.Unlock()
	validate.SortFindings(fs)
	return validate.Result{Findings: fs, Frames: frames, Capture: true}
}

package tap

import (
	"bytes"
	"time"

	"github.com/dshgen/dshgen/gen/wire/frame"
)

// Direction names, the same tags as in the interleaved capture format.
const (
	ClientToServer = frame.CaptureClientToServer // "C->S": the client's bytes, the tap's stdin
	ServerToClient = frame.CaptureServerToClient // "S->C": the server's stdout
)

var dirNames = [2]string{ClientToServer, ServerToClient}

// Sink receives the frames that pass through the tap, for validation. The
// tap calls it from one goroutine of its own, never from the forwarding
// path, in the order the tap read the bytes (both directions interleaved),
// which is also the order of the records in the capture: each Frame (or
// Oversize) call is one capture record, and so is each End with eof true.
type Sink interface {
	// Frame is one line of direction dir (ClientToServer or
	// ServerToClient) without its "\n" (a "\r" before it is kept).
	// terminated is false only for a final fragment that had no "\n".
	// at is when the line's last byte was read, since the tap started.
	// line is only valid during the call.
	Frame(dir string, line []byte, terminated bool, at time.Duration)
	// End says dir's stream is over: eof is true when the sending side
	// closed it (the capture's "(EOF)" record), false when the tap stopped
	// reading first (the server exited while the client held stdin open,
	// the client went away, drain timeout).
	End(dir string, eof bool, at time.Duration)
	// Close is called once, last. complete is false when the tap stopped
	// feeding frames early (validation overflow, see Config.QueueBytes):
	// frames are missing from that point on, so end-of-stream checks
	// (unanswered requests and the like) would report false findings and
	// should be skipped.
	Close(complete bool)
}

// OversizeSink is implemented by a Sink that wants to hear about lines
// longer than Config.MaxFrameBytes, which the tap forwards and captures but
// does not hand to Frame. Without it the tap reports them itself
// (rule tap.frame-too-large).
type OversizeSink interface {
	// Oversize reports a line of size bytes (without "\n", with a "\r"
	// before it) in direction dir; terminated and at as in Sink.Frame.
	Oversize(dir string, size int64, terminated bool, at time.Duration)
}

// lineSplitter turns one direction's chunks into lines for a Sink, holding
// at most max bytes of an unfinished line; a longer line is counted and
// skipped. The unfinished line is held as the chunks it came in (private
// copies, see chunk), joined only when it ends within max: a line that
// turns out too long never costs a copy, and the memory held is the line's
// own bytes, not an append-grown buffer up to twice their size.
type lineSplitter struct {
	dir      string
	max      int64
	parts    [][]byte // the unfinished line
	partsLen int64
	buf      []byte // the joined line
	oversize int64  // > 0: skipping an oversized line of this many bytes so far
}

func msOf(at time.Duration) float64 { return float64(at) / 1e6 }

// feed splits data; frame is called for each complete line, over for each
// oversized one. data must stay unchanged while the splitter holds it.
func (s *lineSplitter) feed(data []byte, frame func(line []byte, terminated bool), over func(size int64, terminated bool)) {
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		piece := data
		if nl >= 0 {
			piece = data[:nl]
			data = data[nl+1:]
		} else {
			data = nil
		}
		switch {
		case s.oversize > 0:
			s.oversize += int64(len(piece))
		case s.partsLen+int64(len(piece)) > s.max:
			s.oversize = s.partsLen + int64(len(piece))
			s.release()
		case nl >= 0 && s.partsLen == 0:
			frame(piece, true) // straight from the chunk
			continue
		default:
			if len(piece) > 0 {
				s.parts = append(s.parts, piece)
				s.partsLen += int64(len(piece))
			}
		}
		if nl < 0 {
			return
		}
		if s.oversize > 0 {
			over(s.oversize, true)
			s.oversize = 0
		} else {
			frame(s.joined(), true)
			s.release()
		}
	}
}

// joined returns the held line as one slice.
func (s *lineSplitter) joined() []byte {
	if len(s.parts) == 1 {
		return s.parts[0]
	}
	s.buf = s.buf[:0]
	for _, p := range s.parts {
		s.buf = append(s.buf, p...)
	}
	return s.buf
}

// end hands over an unterminated final fragment, if any.
func (s *lineSplitter) end(frame func(line []byte, terminated bool), over func(size int64, terminated bool)) {
	switch {
	case s.oversize > 0:
		over(s.oversize, false)
		s.oversize = 0
	case s.partsLen > 0:
		frame(s.joined(), false)
	}
	s.release()
}

// held returns the bytes of the unfinished line so far.
func (s *lineSplitter) held() int64 { return s.partsLen + s.oversize }

func (s *lineSplitter) release() {
	clear(s.parts)
	s.parts, s.partsLen = s.parts[:0], 0
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
}

package frame

// This file reads the interleaved capture format written by CaptureWriter
// (capture_write.go) and found in ../shared/fixtures/real-captures/*/interleaved.log:
//
//	DIR<TAB>MS<TAB><raw line>\n
//
// DIR is CaptureClientToServer or CaptureServerToClient, optionally followed
// by CaptureNoNewlineSuffix (a final fragment that had no "\n"; the capture
// adds one) or CaptureEOFSuffix (the end of that direction's stream, with an
// empty raw line). MS is a non-negative decimal number of milliseconds.

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// captureSlack is how many bytes the DIR<TAB>MS<TAB> prefix may add to a
// frame before the capture line counts as too large: the longest tag
// (16 bytes), a time stamp of at most maxStampLen characters, two tabs.
const captureSlack = 64

// maxStampLen is the longest time stamp accepted (a longer one could make a
// small frame's line exceed the slack).
const maxStampLen = 40

// CaptureRecord is one line of an interleaved capture.
type CaptureRecord struct {
	// Line is the capture line itself (its number and offset in the capture).
	Line Line
	// Dir is CaptureClientToServer or CaptureServerToClient.
	Dir string
	// EOF marks the end of Dir's stream (Payload is then empty).
	EOF bool
	// NoNewline marks a final fragment of Dir's stream without "\n".
	NoNewline bool
	// Millis is the time stamp, in milliseconds since the capture started.
	Millis float64
	// Payload is the frame's raw bytes without its "\n" and without the "\r"
	// before it (see CR). It is nil when TooLarge, and only valid until the
	// next call to CaptureReader.Next.
	Payload []byte
	// PayloadOffset is the offset of the payload's first byte in the capture.
	PayloadOffset int64
	// PayloadSize is the payload's length in bytes, also when TooLarge.
	PayloadSize int64
	// CR is true when the frame ended with "\r\n".
	CR bool
	// BOM is true when this is the first record of Dir and its payload
	// started with a UTF-8 byte order mark (removed from Payload and
	// PayloadSize; PayloadOffset still points at the mark, as Line.Offset
	// does for a stream that starts with one).
	BOM bool
	// TooLarge is true when PayloadSize exceeds the maximum frame size;
	// Head then holds the first bytes of the payload.
	TooLarge bool
	Head     []byte
}

// FrameLine returns the record as a Line of its direction's stream: Num is
// the capture's line number, Offset the payload's offset in the capture, LF
// is false for a NoNewline fragment.
func (c *CaptureRecord) FrameLine() Line {
	return Line{
		Num:      c.Line.Num,
		Offset:   c.PayloadOffset,
		Bytes:    c.Payload,
		Size:     c.PayloadSize,
		LF:       !c.NoNewline,
		CR:       c.CR,
		BOM:      c.BOM,
		TooLarge: c.TooLarge,
		Head:     c.Head,
	}
}

// CaptureFormatError is a capture line that is not in the capture format.
// Reading can go on after it.
type CaptureFormatError struct {
	Line   int
	Offset int64
	Msg    string
}

func (e *CaptureFormatError) Error() string {
	return fmt.Sprintf("capture line %d: %s", e.Line, e.Msg)
}

// LooksLikeCapture reports whether head (the first bytes of a stream) starts
// like a capture: a direction tag, optionally suffixed, then a tab and a
// digit. A JSON frame never does.
func LooksLikeCapture(head []byte) bool {
	head = bytes.TrimPrefix(head, bom)
	for _, d := range [...]string{CaptureClientToServer, CaptureServerToClient} {
		if !bytes.HasPrefix(head, []byte(d)) {
			continue
		}
		rest := head[len(d):]
		for _, s := range [...]string{CaptureEOFSuffix, CaptureNoNewlineSuffix} {
			if bytes.HasPrefix(rest, []byte(s)) {
				rest = rest[len(s):]
				break
			}
		}
		return len(rest) >= 2 && rest[0] == '\t' && rest[1] >= '0' && rest[1] <= '9'
	}
	return false
}

// ParseCaptureLine splits one capture line. The Line's Bytes (or Head, when
// the line is too large) must hold the DIR and MS fields.
func ParseCaptureLine(l Line) (CaptureRecord, error) {
	rec := CaptureRecord{Line: l, CR: l.CR, TooLarge: l.TooLarge}
	src := l.Bytes
	if l.TooLarge {
		src = l.Head
	}
	bad := func(msg string) (CaptureRecord, error) {
		return rec, &CaptureFormatError{Line: l.Num, Offset: l.Offset, Msg: msg}
	}
	t1 := bytes.IndexByte(src, '\t')
	if t1 < 0 {
		return bad("no tab: expected DIR<TAB>MS<TAB>frame")
	}
	t2 := bytes.IndexByte(src[t1+1:], '\t')
	if t2 < 0 {
		return bad("one tab only: expected DIR<TAB>MS<TAB>frame")
	}
	t2 += t1 + 1
	dir := string(src[:t1])
	switch {
	case dir == CaptureClientToServer || dir == CaptureServerToClient:
		rec.Dir = dir
	case dir == CaptureClientToServer+CaptureEOFSuffix || dir == CaptureServerToClient+CaptureEOFSuffix:
		rec.Dir, rec.EOF = dir[:4], true
	case dir == CaptureClientToServer+CaptureNoNewlineSuffix || dir == CaptureServerToClient+CaptureNoNewlineSuffix:
		rec.Dir, rec.NoNewline = dir[:4], true
	default:
		return bad(fmt.Sprintf("unknown direction tag %q (want %s or %s, optionally with %s or %s)",
			dir, CaptureClientToServer, CaptureServerToClient, CaptureEOFSuffix, CaptureNoNewlineSuffix))
	}
	if t2-t1-1 > maxStampLen {
		return bad(fmt.Sprintf("time stamp of %d characters (at most %d)", t2-t1-1, maxStampLen))
	}
	ms, err := strconv.ParseFloat(string(src[t1+1:t2]), 64)
	if err != nil || ms < 0 {
		return bad(fmt.Sprintf("bad time stamp %q (want milliseconds)", src[t1+1:t2]))
	}
	rec.Millis = ms
	prefix := int64(t2 + 1)
	if l.BOM {
		prefix += int64(len(bom))
	}
	rec.PayloadOffset = l.Offset + prefix
	if l.BOM {
		rec.PayloadSize = l.Size - prefix + int64(len(bom))
	} else {
		rec.PayloadSize = l.Size - prefix
	}
	if l.TooLarge && int64(len(src)-t2-1) == rec.PayloadSize {
		// The whole payload is in the head: only the prefix was long.
		rec.TooLarge = false
		rec.Payload = src[t2+1:]
	} else if l.TooLarge {
		rec.Head = src[t2+1:]
	} else {
		rec.Payload = src[t2+1:]
	}
	if rec.EOF && rec.PayloadSize != 0 {
		return bad("an EOF line carries no frame")
	}
	return rec, nil
}

// CaptureReader reads CaptureRecords.
type CaptureReader struct {
	r     *Reader
	max   int64
	begun [2]bool
}

// NewCaptureReader returns a reader of the capture format whose frames may
// hold at most max bytes (max <= 0: DefaultMaxFrameBytes).
func NewCaptureReader(r io.Reader, max int64) *CaptureReader {
	if max <= 0 {
		max = DefaultMaxFrameBytes
	}
	return &CaptureReader{r: NewReaderSize(r, max+captureSlack), max: max}
}

// Next returns the next record; io.EOF at the end. A *CaptureFormatError
// is returned for a line not in the format (with the record's Line set);
// reading may continue after it.
func (c *CaptureReader) Next() (CaptureRecord, error) {
	l, err := c.r.Next()
	if err != nil {
		return CaptureRecord{}, err
	}
	rec, err := ParseCaptureLine(l)
	if err != nil {
		return rec, err
	}
	i := 0
	if rec.Dir == CaptureServerToClient {
		i = 1
	}
	if !rec.EOF && !c.begun[i] {
		c.begun[i] = true
		if rec.Payload != nil && bytes.HasPrefix(rec.Payload, bom) {
			rec.BOM = true
			rec.Payload = rec.Payload[len(bom):]
			rec.PayloadSize -= int64(len(bom))
		} else if rec.TooLarge && bytes.HasPrefix(rec.Head, bom) {
			rec.BOM = true
			rec.Head = rec.Head[len(bom):]
			rec.PayloadSize -= int64(len(bom))
		}
	}
	if !rec.TooLarge && rec.PayloadSize > c.max {
		rec.TooLarge = true
		h := rec.Payload
		if len(h) > headBytes {
			h = h[:headBytes]
		}
		rec.Head = append([]byte(nil), h...)
		rec.Payload = nil
	}
	return rec, nil
}

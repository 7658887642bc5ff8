package frame

// This file writes the interleaved capture format that `dshgen tap --capture`
// produces and `dshgen validate` reads back (the format of
// ../shared/fixtures/real-captures/*/interleaved.log):
//
//	DIR<TAB>MS<TAB><raw line>\n
//
// DIR is "C->S" or "S->C"; MS is the time since the capture started in
// milliseconds (an integer, truncated, as in the fixtures; see
// CaptureWriter.MsDecimals); the raw line is copied byte for byte including
// its "\n". A final fragment without "\n" is written with DIR suffixed by
// "(no-newline)" and a "\n" appended; the end of a direction's stream is the
// line "C->S(EOF)<TAB>MS<TAB>\n" or "S->C(EOF)<TAB>MS<TAB>\n".
//
// Nothing is parsed: a line is everything up to and including the next "\n"
// (a "\r" before it, invalid UTF-8, NUL bytes all stay in the line).

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// Direction tags of the interleaved capture format.
const (
	CaptureClientToServer = "C->S"
	CaptureServerToClient = "S->C"
	// CaptureNoNewlineSuffix follows the direction tag on a final fragment
	// that had no terminating "\n".
	CaptureNoNewlineSuffix = "(no-newline)"
	// CaptureEOFSuffix follows the direction tag on the end-of-stream line.
	CaptureEOFSuffix = "(EOF)"
)

// ErrCaptureDirection is returned for a direction other than
// CaptureClientToServer or CaptureServerToClient.
var ErrCaptureDirection = errors.New("capture: direction must be C->S or S->C")

// ErrCaptureEnded is returned by Write after EOF for the same direction.
var ErrCaptureEnded = errors.New("capture: write after EOF")

// CaptureWriter splits the two directions' byte streams into lines and writes
// them, interleaved in call order, in the capture format. It is not safe for
// concurrent use: callers serialize Write/EOF/Flush (the tap does so from one
// goroutine, which also fixes the order of the lines).
//
// Memory: a line that arrives in several chunks is held until its "\n"
// arrives (a line is written whole, so that the other direction's lines
// cannot land inside it); complete lines inside one chunk are written straight
// from the chunk. The holding buffer is released after a line over 1 MiB.
type CaptureWriter struct {
	// MsDecimals is the number of decimals written after the milliseconds;
	// 0 (the default) writes a truncated integer exactly like the fixtures.
	MsDecimals int

	w       *bufio.Writer
	pending [2][]byte
	ended   [2]bool
	err     error
	num     []byte
}

// captureHoldRelease is the capacity above which the line-holding buffer is
// dropped after use instead of being kept for the next line.
const captureHoldRelease = 1 << 20

// NewCaptureWriter returns a CaptureWriter writing to w through a 256 KiB
// buffer; call Flush to push buffered lines to w.
func NewCaptureWriter(w io.Writer) *CaptureWriter {
	return &CaptureWriter{w: bufio.NewWriterSize(w, 256<<10)}
}

func captureDirIndex(dir string) (int, error) {
	switch dir {
	case CaptureClientToServer:
		return 0, nil
	case CaptureServerToClient:
		return 1, nil
	}
	return 0, ErrCaptureDirection
}

// Write adds chunk, bytes that arrived in direction dir (CaptureClientToServer
// or CaptureServerToClient) at offset at from the start of the capture. Every
// line the chunk completes is written with timestamp at. The first write
// error is sticky and returned by every later call.
func (c *CaptureWriter) Write(dir string, at time.Duration, chunk []byte) error {
	if c.err != nil {
		return c.err
	}
	d, err := captureDirIndex(dir)
	if err != nil {
		return err
	}
	if c.ended[d] {
		return ErrCaptureEnded
	}
	for len(chunk) > 0 {
		nl := bytes.IndexByte(chunk, '\n')
		if nl < 0 {
			c.pending[d] = append(c.pending[d], chunk...)
			return nil
		}
		line := chunk[:nl+1]
		chunk = chunk[nl+1:]
		if len(c.pending[d]) > 0 {
			c.pending[d] = append(c.pending[d], line...)
			c.writeTagged(dir, at, c.pending[d])
			c.resetPending(d)
		} else {
			c.writeTagged(dir, at, line)
		}
		if c.err != nil {
			return c.err
		}
	}
	return c.err
}

// Fragment writes a held partial line of direction dir, if any, as a
// "(no-newline)" line with timestamp at. The tap calls it for a direction
// whose stream ends without EOF (the server exited while the client still
// held stdin open).
func (c *CaptureWriter) Fragment(dir string, at time.Duration) error {
	if c.err != nil {
		return c.err
	}
	d, err := captureDirIndex(dir)
	if err != nil {
		return err
	}
	if len(c.pending[d]) > 0 {
		c.writeTagged(dir+CaptureNoNewlineSuffix, at, c.pending[d])
		c.w.WriteByte('\n')
		c.resetPending(d)
	}
	return c.err
}

// EOF ends direction dir at offset at: a held partial line is written as a
// "(no-newline)" line, then the "(EOF)" line. Later Writes for dir fail with
// ErrCaptureEnded; a second EOF is a no-op.
func (c *CaptureWriter) EOF(dir string, at time.Duration) error {
	if err := c.Fragment(dir, at); err != nil {
		return err
	}
	d, _ := captureDirIndex(dir)
	if c.ended[d] {
		return nil
	}
	c.ended[d] = true
	c.writeTagged(dir+CaptureEOFSuffix, at, []byte{'\n'})
	return c.err
}

// Buffered returns the number of bytes written to the buffer but not yet
// flushed.
func (c *CaptureWriter) Buffered() int { return c.w.Buffered() }

// Flush writes buffered lines to the underlying writer. Held partial lines
// stay held.
func (c *CaptureWriter) Flush() error {
	if c.err != nil {
		return c.err
	}
	c.err = c.w.Flush()
	return c.err
}

func (c *CaptureWriter) resetPending(d int) {
	if cap(c.pending[d]) > captureHoldRelease {
		c.pending[d] = nil
	} else {
		c.pending[d] = c.pending[d][:0]
	}
}

func (c *CaptureWriter) writeTagged(tag string, at time.Duration, body []byte) {
	c.w.WriteString(tag)
	c.w.WriteByte('\t')
	c.num = AppendCaptureMs(c.num[:0], at, c.MsDecimals)
	c.w.Write(c.num)
	c.w.WriteByte('\t')
	if _, err := c.w.Write(body); err != nil && c.err == nil {
		c.err = err
	}
}

// AppendCaptureMs appends at in milliseconds as the capture writes it:
// truncated to an integer when decimals <= 0, else with that many decimals
// (at most 6; truncated, not rounded, so that the integer part always
// equals the decimals-0 form). Negative durations are written as 0.
func AppendCaptureMs(b []byte, at time.Duration, decimals int) []byte {
	if at < 0 {
		at = 0
	}
	ns := int64(at)
	b = strconv.AppendInt(b, ns/1e6, 10)
	if decimals <= 0 {
		return b
	}
	if decimals > 6 {
		decimals = 6
	}
	frac := ns % 1e6 // nanoseconds within the millisecond, 6 digits
	digits := strconv.AppendInt(nil, frac+1e6, 10)[1:]
	b = append(b, '.')
	return append(b, digits[:decimals]...)
}

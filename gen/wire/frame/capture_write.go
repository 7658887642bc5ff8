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
	"fmt"
	"io"
	"os"
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
// from the chunk. Up to CaptureSpillBytes of a held line stay in memory; the
// rest goes to a temporary file (in SpillDir, unlinked at once, so nothing
// is left behind) and is copied into the capture when the line ends, so a
// 1 GB line without a newline costs 1 MiB of memory, not gigabytes.
type CaptureWriter struct {
	// MsDecimals is the number of decimals written after the milliseconds;
	// 0 (the default) writes a truncated integer exactly like the fixtures.
	MsDecimals int
	// SpillDir is where a held line longer than CaptureSpillBytes is kept
	// until it ends ("": os.TempDir()); the tap uses the capture's folder.
	SpillDir string

	w       *bufio.Writer
	pending [2][]byte
	spill   [2]*os.File // the held line beyond pending, when it is long
	spilled [2]int64
	ended   [2]bool
	err     error
	num     []byte
}

// CaptureSpillBytes is how much of a held line the writer keeps in memory;
// the holding buffer is also released after a line over this size.
const CaptureSpillBytes = 1 << 20

const captureHoldRelease = CaptureSpillBytes

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
			c.hold(d, chunk)
			return c.err
		}
		line := chunk[:nl+1]
		chunk = chunk[nl+1:]
		if c.held(d) > 0 {
			c.writeHeld(dir, at, d, line)
		} else {
			c.writeTagged(dir, at, line)
		}
		if c.err != nil {
			return c.err
		}
	}
	return c.err
}

// held returns how many bytes of an unfinished line direction d holds.
func (c *CaptureWriter) held(d int) int64 { return int64(len(c.pending[d])) + c.spilled[d] }

// hold keeps b as part of direction d's unfinished line: in memory up to
// CaptureSpillBytes, then in the spill file.
func (c *CaptureWriter) hold(d int, b []byte) {
	if c.spill[d] == nil && len(c.pending[d])+len(b) <= CaptureSpillBytes {
		c.pending[d] = append(c.pending[d], b...)
		return
	}
	if c.spill[d] == nil {
		f, err := os.CreateTemp(c.SpillDir, ".dshgen-capture-line-*")
		if err != nil {
			c.err = fmt.Errorf("capture: holding a long line: %w", err)
			return
		}
		os.Remove(f.Name()) // the open file lives on; nothing is left behind
		c.spill[d] = f
	}
	if _, err := c.spill[d].Write(b); err != nil {
		c.err = fmt.Errorf("capture: holding a long line: %w", err)
		return
	}
	c.spilled[d] += int64(len(b))
}

// writeHeld writes direction d's held line followed by tail as one record.
func (c *CaptureWriter) writeHeld(tag string, at time.Duration, d int, tail []byte) {
	if c.spill[d] == nil {
		c.pending[d] = append(c.pending[d], tail...)
		c.writeTagged(tag, at, c.pending[d])
		c.resetPending(d)
		return
	}
	c.writeTagged(tag, at, c.pending[d])
	f := c.spill[d]
	if c.err == nil {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			c.err = err
		} else if n, err := io.Copy(c.w, io.LimitReader(f, c.spilled[d])); err != nil || n != c.spilled[d] {
			c.err = fmt.Errorf("capture: copying a long line back: %d of %d bytes: %v", n, c.spilled[d], err)
		}
	}
	if _, err := c.w.Write(tail); err != nil && c.err == nil {
		c.err = err
	}
	f.Close()
	c.spill[d], c.spilled[d] = nil, 0
	c.resetPending(d)
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
	if c.held(d) > 0 {
		c.writeHeld(dir+CaptureNoNewlineSuffix, at, d, []byte{'\n'})
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

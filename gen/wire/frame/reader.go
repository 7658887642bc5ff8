// Package frame reads newline-delimited JSON-RPC frames and the interleaved
// capture format, byte-exactly and with bounded memory.
//
// The Reader is built on bufio.Reader, not bufio.Scanner: a Scanner stops at
// its token limit (64 KiB by default) and code that only checks Scan() then
// loses every later frame. The Reader has a configurable maximum frame size
// (DefaultMaxFrameBytes); a longer line is reported with its real size and
// skipped without being buffered whole, and reading goes on with the next
// line.
package frame

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// DefaultMaxFrameBytes is the default maximum frame size: 64 MiB. Upstream's
// TypeScript reader has no limit; this one exists so that a stream without a
// newline cannot make the validator hold gigabytes.
const DefaultMaxFrameBytes = 64 << 20

// headBytes is how many leading bytes of a too-large line are kept in Head.
const headBytes = 256

// readBufferSize is the size of the bufio.Reader under a Reader.
const readBufferSize = 64 << 10

// keepBufferCap is the capacity above which the line buffer is released at
// the next call instead of being reused (so one huge frame does not pin its
// memory for the rest of the stream).
const keepBufferCap = 4 << 20

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Line is one physical line of a stream.
type Line struct {
	// Num is the 1-based physical line number: blank lines count, and
	// "\r\n" is one line end.
	Num int
	// Offset is the byte offset of the line's first byte in the stream (0
	// for line 1, also when it starts with a byte order mark).
	Offset int64
	// Bytes is the line's content without its terminator ("\n" or "\r\n")
	// and without a leading byte order mark. It is nil when TooLarge. It is
	// only valid until the next call to Reader.Next; copy it to keep it.
	Bytes []byte
	// Size is the content's length in bytes (terminator and byte order mark
	// excluded), also when TooLarge.
	Size int64
	// LF is true when the line ended with "\n" (false only for a last line
	// without newline).
	LF bool
	// CR is true when a "\r" preceded the "\n" (it is not in Bytes or Size).
	CR bool
	// BOM is true when the stream started with a UTF-8 byte order mark
	// before this line (line 1 only).
	BOM bool
	// TooLarge is true when Size exceeds the reader's maximum; Bytes is then
	// nil and Head holds the first bytes of the line.
	TooLarge bool
	// Head is the first bytes (at most 256) of a TooLarge line.
	Head []byte
}

// Blank reports whether the line holds only spaces, tabs and carriage
// returns (upstream receivers trim each line and skip empty ones).
func (l *Line) Blank() bool {
	if l.TooLarge {
		return false
	}
	return len(bytes.Trim(l.Bytes, " \t\r")) == 0
}

// End returns the offset just past the line's terminator.
func (l *Line) End() int64 {
	e := l.Offset + l.Size
	if l.BOM {
		e += int64(len(bom))
	}
	if l.CR {
		e++
	}
	if l.LF {
		e++
	}
	return e
}

// Reader reads Lines from a byte stream.
type Reader struct {
	br    *bufio.Reader
	max   int64
	buf   []byte
	num   int
	off   int64
	begun bool
	err   error
}

// NewReader returns a Reader with the default maximum frame size.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, DefaultMaxFrameBytes) }

// NewReaderSize returns a Reader whose lines may hold at most max bytes of
// content (max <= 0 means DefaultMaxFrameBytes).
func NewReaderSize(r io.Reader, max int64) *Reader {
	if max <= 0 {
		max = DefaultMaxFrameBytes
	}
	return &Reader{br: bufio.NewReaderSize(r, readBufferSize), max: max}
}

// Max returns the maximum frame size in bytes.
func (r *Reader) Max() int64 { return r.max }

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// Next returns the next line. At the end of the stream it returns io.EOF
// (a stream that ends with "\n" has no extra empty last line). Any other
// error is the underlying reader's; it is returned again by later calls.
func (r *Reader) Next() (Line, error) {
	if r.err != nil {
		return Line{}, r.err
	}
	if cap(r.buf) > keepBufferCap {
		r.buf = nil
	}
	r.buf = r.buf[:0]
	l := Line{Num: r.num + 1, Offset: r.off}
	if !r.begun {
		r.begun = true
		if p, _ := r.br.Peek(len(bom)); bytes.Equal(p, bom) {
			_, _ = r.br.Discard(len(bom))
			r.off += int64(len(bom))
			l.BOM = true
		}
	}
	var (
		size int64
		last byte
		read bool
	)
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.off += int64(len(chunk))
		if len(chunk) > 0 {
			read = true
		}
		content := chunk
		lf := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if lf {
			content = chunk[:len(chunk)-1]
		}
		if len(content) > 0 {
			last = content[len(content)-1]
		}
		if !l.TooLarge {
			// One byte of slack: a "\r" before the "\n" is not content.
			if size+int64(len(content)) > r.max+1 {
				l.TooLarge = true
				// Keep the head for the finding; drop the rest.
				h := append([]byte(nil), r.buf...)
				if len(h) < headBytes {
					n := headBytes - len(h)
					if n > len(content) {
						n = len(content)
					}
					h = append(h, content[:n]...)
				}
				if len(h) > headBytes {
					h = h[:headBytes]
				}
				l.Head = h
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, content...)
			}
		}
		size += int64(len(content))
		if lf {
			l.LF = true
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			if !read && !l.BOM {
				r.err = io.EOF
				return Line{}, io.EOF
			}
			break
		}
		if err != nil {
			r.err = err
			return Line{}, err
		}
	}
	if l.LF && size > 0 && last == '\r' {
		l.CR = true
		size--
		if !l.TooLarge {
			r.buf = r.buf[:len(r.buf)-1]
		}
	}
	l.Size = size
	if l.TooLarge && int64(len(l.Head)) > size {
		l.Head = l.Head[:size] // the CR of the CRLF terminator is not content
	}
	if !l.TooLarge && size > r.max {
		l.TooLarge = true
		h := r.buf
		if len(h) > headBytes {
			h = h[:headBytes]
		}
		l.Head = append([]byte(nil), h...)
	}
	if !l.TooLarge {
		l.Bytes = r.buf
	}
	r.num++
	return l, nil
}

package ir

import (
	"bytes"
	"io"
	"strings"
	"unicode"
)

// File is one generated file: a slash-separated path relative to the output
// directory (e.g. "go/dshproto/types.go") and its bytes, in Data or, for a
// file moved out of memory, in a Spool on disk (then Data is nil; read it
// with Open or Bytes).
type File struct {
	Path  string
	Data  []byte
	Spool *Spooled
}

// Options are the settings every emitter receives.
type Options struct {
	// Package is the package name in every language (Go package, Python
	// import package, TypeScript package name); default "dshproto".
	Package string
	// Version is dshgen's version, written into headers.
	Version string
	// GoModule, when set, is the module path of the generated Go package:
	// the Go emitter then also writes a go.mod beside it (declaring no
	// dependency: generated Go uses the standard library only), so the
	// package builds outside this repository's module. Empty: no go.mod.
	GoModule string
	// Spool, when set, is where an emitter prints its largest files
	// straight to disk instead of building them in memory (their Files
	// then have Spool set).
	Spool *Spool
}

// PackageName returns o.Package or the default.
func (o Options) PackageName() string {
	if o.Package == "" {
		return "dshproto"
	}
	return o.Package
}

// lineBreaks turns the other line breaks DocLines knows into "\n".
var lineBreaks = strings.NewReplacer("\r", "\n", "\u2028", "\n", "\u2029", "\n")

// DocLines normalizes a description for a line-comment block: CRLF, CR,
// U+2028 and U+2029 become line breaks, other control characters become
// spaces, trailing white space is trimmed. The result never contains a line
// break inside a line, so no text can end the comment or start a directive.
func DocLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = lineBreaks.Replace(s)
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\uFEFF' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimRight(s, " \t\n")
	if strings.TrimSpace(s) == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
}

// TidyLines tidies a rendered file in place and returns it: trailing
// spaces and tabs are cut from every line, blank lines at the start and
// the end are dropped, runs of more than maxBlank blank lines inside are
// cut to maxBlank, and the file ends with exactly one newline (a file of
// blank lines becomes "\n"). It allocates nothing (beyond one byte when b
// does not end with a newline), so a large file is not copied. TidyWriter
// does the same to a stream.
func TidyLines(b []byte, maxBlank int) []byte {
	t := tidier{max: maxBlank}
	w := 0
	for r := 0; r < len(b); {
		end := bytes.IndexByte(b[r:], '\n')
		next := r + end + 1
		if end < 0 {
			end, next = len(b)-r, len(b)
		}
		line := b[r : r+end]
		r = next
		if breaks, text := t.line(line); text != nil {
			for i := 0; i < breaks; i++ {
				b[w] = '\n' // never past the line's start: each break stands for one the input had
				w++
			}
			w += copy(b[w:], text)
		}
	}
	return append(b[:w], '\n')
}

// tidier is TidyLines' state between lines.
type tidier struct {
	max, blank int
	wrote      bool
}

// line takes the next line (without its newline) and returns what to
// write for it: text nil for a blank line (held back), else the line
// breaks owed before it (the previous line's end and the blank lines kept)
// and the line without trailing spaces and tabs.
func (t *tidier) line(l []byte) (breaks int, text []byte) {
	l = bytes.TrimRight(l, " \t")
	if len(l) == 0 {
		t.blank++
		return 0, nil
	}
	if t.wrote {
		breaks = 1 + min(t.blank, t.max)
	}
	t.blank, t.wrote = 0, true
	return breaks, l
}

// TidyWriter writes a rendered file tidied as TidyLines does, line by
// line, to W: for a file too large to tidy in memory. Close writes the
// final newline; it does not close W.
type TidyWriter struct {
	W       io.Writer
	t       tidier
	partial []byte
	err     error
}

// NewTidyWriter returns a TidyWriter keeping at most maxBlank blank lines
// in a row.
func NewTidyWriter(w io.Writer, maxBlank int) *TidyWriter {
	return &TidyWriter{W: w, t: tidier{max: maxBlank}}
}

// Write tidies p's complete lines and keeps a trailing partial line for
// the next Write. It always reports len(p) unless W failed.
func (w *TidyWriter) Write(p []byte) (int, error) {
	n := len(p)
	for w.err == nil && len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			break
		}
		line := p[:i]
		if len(w.partial) > 0 {
			line = append(w.partial, line...)
		}
		w.emit(line)
		w.partial = w.partial[:0]
		p = p[i+1:]
	}
	if w.err != nil {
		return 0, w.err
	}
	return n, nil
}

func (w *TidyWriter) emit(line []byte) {
	breaks, text := w.t.line(line)
	if text == nil || w.err != nil {
		return
	}
	if breaks > 0 {
		_, w.err = w.W.Write(bytes.Repeat([]byte{'\n'}, breaks))
	}
	if w.err == nil {
		_, w.err = w.W.Write(text)
	}
}

// Close tidies the last line and writes the final newline.
func (w *TidyWriter) Close() error {
	if len(w.partial) > 0 {
		w.emit(w.partial)
		w.partial = nil
	}
	if w.err == nil {
		_, w.err = w.W.Write([]byte{'\n'})
	}
	return w.err
}

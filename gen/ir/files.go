package ir

import (
	"bytes"
	"strings"
	"unicode"
)

// File is one generated file: a slash-separated path relative to the output
// directory (e.g. "go/dshproto/types.go") and its bytes.
type File struct {
	Path string
	Data []byte
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
}

// PackageName returns o.Package or the default.
func (o Options) PackageName() string {
	if o.Package == "" {
		return "dshproto"
	}
	return o.Package
}

// DocLines normalizes a description for a line-comment block: CRLF, CR,
// U+2028 and U+2029 become line breaks, other control characters become
// spaces, trailing white space is trimmed. The result never contains a line
// break inside a line, so no text can end the comment or start a directive.
func DocLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.NewReplacer("\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(s)
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
// does not end with a newline), so a large file is not copied.
func TidyLines(b []byte, maxBlank int) []byte {
	w, blank, wrote := 0, 0, false
	for r := 0; r < len(b); {
		end := bytes.IndexByte(b[r:], '\n')
		next := r + end + 1
		if end < 0 {
			end, next = len(b)-r, len(b)
		}
		line := bytes.TrimRight(b[r:r+end], " \t")
		r = next
		if len(line) == 0 {
			blank++
			continue
		}
		if wrote {
			b[w] = '\n'
			w++
			for i := 0; i < blank && i < maxBlank; i++ {
				b[w] = '\n'
				w++
			}
		}
		w += copy(b[w:], line)
		blank, wrote = 0, true
	}
	return append(b[:w], '\n')
}

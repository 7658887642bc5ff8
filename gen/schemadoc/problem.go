package schemadoc

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong with a schema or an overlay: where (file,
// line, JSON pointer) and what, with a hint on how to fix it where there
// is one.
type Problem struct {
	File    string // path of the file as given (schema, sibling or overlay)
	Line    int    // 1-based line of the offending value (0 when unknown)
	Pointer string // JSON pointer inside File, e.g. "/$defs/Shape/oneOf/0"
	Msg     string
	Hint    string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Pointer != "" {
		fmt.Fprintf(&b, ": %s", p.Pointer)
	}
	fmt.Fprintf(&b, ": %s", p.Msg)
	if p.Hint != "" {
		fmt.Fprintf(&b, " (fix: %s)", p.Hint)
	}
	return b.String()
}

// Error lists every problem found in one load, sorted by file, line and
// pointer, each once. Nothing is generated or validated when a load
// returns one.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d schema problem(s):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// NewError sorts and de-duplicates problems into an *Error (nil when there
// are none).
func NewError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	ps := append([]Problem(nil), problems...)
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Pointer < b.Pointer
	})
	// The same problem can be reached twice (a node used from two places).
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return &Error{Problems: out}
}

// PointerText renders a pointer for messages ("(root)" for the document).
func PointerText(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

package python

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen/ir"
)

// This file prints Python source fragments: literals, docstrings,
// annotations, and the statements of the generated decoders and encoders.
// Every identifier comes from the IR (ir.Names); nothing here chooses a
// name, an optionality or a union strategy.

// pyStr renders s as a double-quoted Python string literal that means
// exactly s (no escape sequence of the text is interpreted).
func pyStr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) || r == '\u2028' || r == '\u2029':
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// docText escapes one docstring line for a (non-raw) triple-quoted string:
// backslashes are doubled and every quote that touches another quote is
// escaped, so neither an escape sequence nor a closing """ can come from
// the text.
func docText(line string) string {
	rs := []rune(line)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"' && ((i > 0 && rs[i-1] == '"') || (i+1 < len(rs) && rs[i+1] == '"') || i == len(rs)-1):
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docstring renders a docstring (without trailing newline) at indent from
// already normalized lines; nil when there is nothing to say.
func docstring(lines []string, indent string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) == 1 && len(lines[0]) < 70 {
		return indent + `"""` + docText(lines[0]) + `"""`
	}
	var b strings.Builder
	b.WriteString(indent + `"""`)
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n")
			if l != "" {
				b.WriteString(indent)
			}
		}
		b.WriteString(docText(l))
	}
	b.WriteString("\n" + indent + `"""`)
	return b.String()
}

// docLines returns ir.DocLines(s), never nil for a non-empty text.
func docLines(s string) []string { return ir.DocLines(s) }

// constLit parses a field's const (compact JSON) and returns the Python
// literal, the Literal[...] annotation ("" when the value cannot be a
// typing.Literal) and the text for messages.
func constLit(c string) (lit, ann, show string) {
	var v any
	dec := json.NewDecoder(strings.NewReader(c))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "None", "", c
	}
	lit = pyValue(v)
	switch x := v.(type) {
	case string, bool, nil:
		ann = "Literal[" + lit + "]"
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			ann = "Literal[" + lit + "]"
		}
	}
	return lit, ann, c
}

// pyValue renders a decoded JSON value as a Python expression.
func pyValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return pyStr(x)
	case json.Number:
		// JSON number syntax is Python number syntax; Python ints are exact.
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = pyValue(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyStr(k) + ": " + pyValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "None"
}

// writer accumulates indented lines of Python.
type writer struct {
	lines []string
	ind   int
	tmp   *int // shared by the sub-writers of one function
}

func newWriter(ind int) *writer { return &writer{ind: ind, tmp: new(int)} }

// sub returns a writer for a nested block that shares w's numbering.
func (w *writer) sub() *writer { return &writer{ind: w.ind + 1, tmp: w.tmp} }

func (w *writer) line(format string, args ...any) {
	s := format
	if len(args) > 0 {
		s = fmt.Sprintf(format, args...)
	}
	w.lines = append(w.lines, strings.Repeat("    ", w.ind)+s)
}

func (w *writer) in()  { w.ind++ }
func (w *writer) out() { w.ind-- }

// fresh returns a new number for local variable names (the numbers only
// keep nested loops apart inside one generated function).
func (w *writer) fresh() string {
	*w.tmp++
	return strconv.Itoa(*w.tmp)
}

func (w *writer) String() string { return strings.Join(w.lines, "\n") }

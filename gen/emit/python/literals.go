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

// This file prints Python literals and docstrings.

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
func docText(line string) string { return docLine(line, true) }

// docLine is docText for a line that the closing quotes follow on the same
// line (closes) or not.
func docLine(line string, closes bool) string {
	rs := []rune(line)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"' && ((i > 0 && rs[i-1] == '"') || (i+1 < len(rs) && rs[i+1] == '"') || (closes && i == len(rs)-1)):
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docWidth is the width docstring text is filled to, indentation included
// (ruff's and black's default line length).
const docWidth = 88

// docParas fills paragraphs of text into docstring lines for a docstring
// at indent (blank lines between paragraphs; empty paragraphs dropped).
func docParas(indent string, paras ...string) []string {
	var out []string
	for _, p := range paras {
		// the quotes of the first line; a backslash is written twice
		lines := ir.WrapWith(p, docWidth-len(indent)-3, func(s string) int {
			return utf8.RuneCountInString(s) + strings.Count(s, "\\") + strings.Count(s, `"`)
		})
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
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
	if len(lines) == 1 && len(indent)+len(lines[0])+6 <= docWidth {
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
		b.WriteString(docLine(l, false))
	}
	b.WriteString("\n" + indent + `"""`)
	return b.String()
}

// constLit parses a field's const (compact JSON) and returns the Python
// literal and the Literal[...] annotation ("" when the value cannot be a
// typing.Literal).
func constLit(c string) (lit, ann string) {
	var v any
	dec := json.NewDecoder(strings.NewReader(c))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "None", ""
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
	return lit, ann
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

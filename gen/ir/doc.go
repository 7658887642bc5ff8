package ir

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrap fills a description into lines of at most width characters for a
// doc comment: DocLines first (so no text can end a comment or start a
// directive), then each line is filled word by word. A line that starts a
// list item ("- ", "* ", "1. ") keeps its marker and its continuation lines
// are indented under the item's text; blank lines (paragraph breaks) stay.
// A single word longer than width (a URL) is never broken.
func Wrap(s string, width int) []string { return WrapWith(s, width, utf8.RuneCountInString) }

// WrapWith is Wrap measuring a word with length, for a target whose
// escaping makes some characters take more room (a backslash is two in a
// Python docstring). length must add up over concatenation and count a
// space as 1: a line's length is the sum of its words' and spaces'.
func WrapWith(s string, width int, length func(string) int) []string {
	var out []string
	for _, line := range DocLines(s) {
		if strings.TrimSpace(line) == "" {
			out = append(out, "")
			continue
		}
		out = append(out, fill(line, width, length)...)
	}
	return out
}

// fill breaks one line into lines of at most width characters.
func fill(line string, width int, length func(string) int) []string {
	lead := len(line) - len(strings.TrimLeft(line, " \t"))
	indent := line[:lead]
	rest := line[lead:]
	hang := indent
	if m := listMarker(rest); m != "" {
		hang = indent + strings.Repeat(" ", len(m))
	}
	// The line being filled is cur, of length n; each word is measured
	// once, so a paragraph is filled in time linear in its length.
	var out []string
	var cur strings.Builder
	n := 0
	start := func(prefix, w string) {
		cur.Reset()
		cur.WriteString(prefix)
		cur.WriteString(w)
		n = length(prefix) + length(w)
	}
	for _, w := range strings.Fields(rest) {
		lw := length(w)
		switch {
		case cur.Len() == 0:
			start(indent, w)
		case n+1+lw > width:
			out = append(out, cur.String())
			start(hang, w)
		default:
			cur.WriteByte(' ')
			cur.WriteString(w)
			n += 1 + lw
		}
	}
	return append(out, cur.String())
}

// listMarker returns a list item's marker with its space ("- ", "12. "),
// or "".
func listMarker(s string) string {
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "• ") {
		return s[:strings.Index(s, " ")+1]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[:i+2]
	}
	return ""
}

// Restates reports whether text says nothing but the names it documents:
// once the words of the names (split at case changes and punctuation) and
// filler words are taken out, nothing is left ("The chunk." on a member
// chunk, "Compaction id." on compactionId).
func Restates(text string, names ...string) bool {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return false
	}
	skip := map[string]bool{}
	for _, n := range names {
		for _, w := range splitWords(n) {
			skip[strings.ToLower(w)] = true
		}
		skip[strings.ToLower(n)] = true
	}
	for _, w := range words {
		w = strings.ToLower(w)
		if !skip[w] && !fillerWords[w] {
			return false
		}
	}
	return true
}

// fillerWords say nothing about a member or a type by themselves.
var fillerWords = map[string]bool{
	"a": true, "an": true, "the": true, "is": true, "of": true, "this": true, "its": true,
	"object": true, "type": true, "value": true, "values": true, "member": true, "field": true,
	"named": true, "name": true, "struct": true, "enum": true, "union": true, "alias": true,
	"class": true, "interface": true, "variant": true, "json": true, "schema": true,
}

// Doc is the member's description for doc comments: empty when it only
// restates the member's name (see Restates), which a doc comment should not.
func (f *Field) Doc() string {
	if Restates(f.Description, append([]string{f.Wire}, f.Names[:]...)...) {
		return ""
	}
	return f.Description
}

// Doc is the type's description for doc comments: empty when it only
// restates the type's name.
func (t *Type) Doc() string {
	if Restates(t.Description, append([]string{t.Name}, t.Names[:]...)...) {
		return ""
	}
	return t.Description
}

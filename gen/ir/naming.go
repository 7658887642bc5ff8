package ir

import (
	"strings"
	"unicode"
)

// Naming rules (gen/ir/README.md lists them; every emitter uses these results and
// never derives names of its own):
//
//   - words: a schema name is split into words at every character that is not
//     a letter or digit, at lower→upper case changes ("sessionId" → session,
//     Id), before the last capital of a capital run followed by a lower-case
//     letter ("HTTPServer" → HTTP, Server) and between letters and digits is
//     NOT a split ("v2" stays one word).
//   - Go exported identifiers: words in PascalCase, with the Go initialisms
//     (ID, URL, JSON, …) upper-cased: "avatarUrl" → AvatarURL.
//   - Python attributes: words in snake_case; Python types: PascalCase.
//   - TypeScript: properties keep the wire name (quoted when it is not an
//     identifier); types are PascalCase.
//   - A name that is reserved in the target language namespace (a keyword,
//     a builtin that would break or shadow, a name the generated runtime
//     declares, or a member the generated code defines itself; see
//     reserved.go for where each comes from) gets a trailing underscore:
//     class → class_, MarshalJSON → MarshalJSON_, DecodeError → DecodeError_.
//   - Nothing is ever numbered: two schema names that land on the same
//     identifier are reported as a collision naming both JSON pointers; the
//     fix is an x-name / x-go-name / x-python-name / x-ts-name override.

// splitWords splits a schema name into words (see the rules above).
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// goInitialisms are upper-cased whole in Go identifiers: golint's list of
// common initialisms (the one gopls and staticcheck use too), plus
// domainInitialisms.
var goInitialisms = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ACL API ASCII CPU CSS DNS EOF GUID HTML HTTP HTTPS ID IP JSON LHS QPS
		RAM RHS RPC SLA SMTP SQL SSH TCP TLS TTL UDP UI UID UUID URI URL UTF8 VM XML XMPP XSRF XSS`) {
		m[w] = true
	}
	for _, w := range domainInitialisms {
		m[w] = true
	}
	return m
}()

// domainInitialisms are the initialisms of this protocol's domain that the
// common list lacks (a test fails when the shipped schema stops using one).
var domainInitialisms = []string{"LLM", "SDK"}

func upperFirst(w string) string {
	rs := []rune(w)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

// goPascal turns a schema name into an exported Go identifier ("" when the
// name has no letter or digit).
func goPascal(s string) string {
	var b strings.Builder
	for _, w := range splitWords(s) {
		if up := strings.ToUpper(w); goInitialisms[up] {
			b.WriteString(up)
			continue
		}
		b.WriteString(upperFirst(strings.ToLower(w)))
	}
	out := b.String()
	if out != "" && !unicode.IsUpper([]rune(out)[0]) {
		// a digit or a letter without case (名前): not exported as it is
		out = "X" + out
	}
	return out
}

// pascal turns a schema name into a PascalCase type name for Python and
// TypeScript (no initialism rule: "avatarUrl" → AvatarUrl). A name that is
// already one PascalCase word run is kept ("SessionEvent").
func pascal(s string) string {
	var b strings.Builder
	for _, w := range splitWords(s) {
		if isAllUpper(w) && len([]rune(w)) > 1 {
			b.WriteString(w) // keep acronyms as written: "LLMFailure" → LLMFailure
			continue
		}
		b.WriteString(upperFirst(strings.ToLower(w)))
	}
	out := b.String()
	if out != "" && unicode.IsDigit([]rune(out)[0]) {
		out = "X" + out
	}
	return out
}

func isAllUpper(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// snake turns a schema name into a Python snake_case attribute name.
func snake(s string) string {
	words := splitWords(s)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	out := strings.Join(words, "_")
	if out != "" && unicode.IsDigit([]rune(out)[0]) {
		out = "x_" + out
	}
	return out
}

// upperSnake turns a schema name into a Python UPPER_SNAKE constant name.
func upperSnake(s string) string { return strings.ToUpper(snake(s)) }

// escapeIf appends "_" when s is reserved.
func escapeIf(s string, r Reserved) string {
	if r.Has(s) {
		return s + "_"
	}
	return s
}

// mustReserved returns the reserved names (see reserved.go). They come from
// files compiled into the binary, so a failure is a build defect, caught by
// the package's tests, never an input problem.
func mustReserved() *reservedNames {
	r := reserved()
	if r.err != nil {
		panic("dshgen: reserved names: " + r.err.Error())
	}
	return r
}

// isIdent reports whether s is an ASCII identifier ([A-Za-z_$][A-Za-z0-9_$]*
// with dollar allowed only when allowDollar).
func isIdent(s string, allowDollar bool) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (allowDollar && r == '$')
		if i > 0 {
			ok = ok || (r >= '0' && r <= '9')
		}
		if !ok {
			return false
		}
	}
	return true
}

// typeNames computes a named type's identifier per language from its schema
// name and overrides.
func typeNames(name string, ov overrides) Names {
	r := mustReserved()
	var n Names
	n[LangGo] = escapeIf(ov.pick(LangGo, goPascal(name), goPascal), r.goTypes)
	n[LangPython] = escapeIf(ov.pick(LangPython, pascal(name), pascal), r.pyTypes)
	n[LangTS] = escapeIf(ov.pick(LangTS, pascal(name), pascal), r.tsTypes)
	return n
}

// fieldNames computes a member's identifier per language.
func fieldNames(wire string, ov overrides) Names {
	r := mustReserved()
	var n Names
	n[LangGo] = escapeIf(ov.pick(LangGo, goPascal(wire), goPascal), r.goFields)
	n[LangPython] = escapeIf(ov.pick(LangPython, snake(wire), snake), r.pyAttrs)
	// TypeScript keeps the wire name; the emitter quotes it where needed.
	n[LangTS] = ov.pick(LangTS, wire, func(s string) string { return s })
	return n
}

// overrides are the x-name annotations of one schema node.
type overrides struct {
	all  string
	lang Names
}

// pick returns the override for lang, else conv(x-name), else def.
func (o overrides) pick(l Lang, def string, conv func(string) string) string {
	if o.lang[l] != "" {
		return o.lang[l]
	}
	if o.all != "" {
		return conv(o.all)
	}
	return def
}

func overridesOf(n *node) overrides {
	var o overrides
	if !n.IsObject() {
		return o
	}
	o.all = n.StrOf(kwName.Name)
	o.lang[LangGo] = n.StrOf(kwGoName.Name)
	o.lang[LangPython] = n.StrOf(kwPythonName.Name)
	o.lang[LangTS] = n.StrOf(kwTSName.Name)
	return o
}

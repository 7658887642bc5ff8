package ir

import (
	"strings"
	"unicode"
)

// Naming rules (the README lists them; every emitter uses these results and
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
//   - A name that is a keyword (or a builtin that would break or shadow) in
//     the target language, or that equals a member the generated code
//     defines itself, gets a trailing underscore: class → class_,
//     MarshalJSON → MarshalJSON_.
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

// goInitialisms are upper-cased whole in Go identifiers (the list golint and
// gopls use, plus a few of this domain).
var goInitialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IP": true, "JSON": true, "LHS": true, "LLM": true, "QPS": true, "RAM": true,
	"RHS": true, "RPC": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true,
	"TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"UUID": true, "URI": true, "URL": true, "UTF8": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true, "SDK": true,
}

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

var goKeywords = set("break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var")

// pyReserved: keywords, soft keywords, and builtins whose shadowing breaks
// generated code or type annotations (the generated modules use these names).
var pyReserved = set("False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
	"global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield",
	"self", "cls", "bool", "int", "float", "str", "list", "dict", "object", "bytes", "tuple",
	"set", "frozenset", "len", "isinstance", "super", "property", "classmethod",
	"staticmethod", "Any", "Literal", "Union", "Optional", "Mapping", "Sequence", "ClassVar",
	"dataclass", "field", "annotations", "typing", "dataclasses", "json")

// pyTypeReserved are names a Python class or alias may not take, besides
// pyReserved: every builtin (the generated modules call type(), catch
// KeyError, ...) and the names they import at module level.
var pyTypeReserved = set("ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None", "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
	"Final", "NoReturn", "TypeAlias", "TypeVar", "cast", "overload", "Callable", "Iterable",
	"enum", "sys")

// pyMembers are the methods and attributes every generated dataclass defines.
var pyMembers = set("from_json", "to_json", "extra", "tag", "raw", "__slots__", "__init__",
	"__dict__", "__class__", "__proto__")

// tsReservedTypes cannot be used as TypeScript type names.
var tsReservedTypes = set("any", "boolean", "never", "number", "object", "string", "symbol",
	"undefined", "unknown", "void", "null", "bigint",
	"break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
	"do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if",
	"import", "in", "instanceof", "new", "return", "super", "switch", "this", "throw", "true",
	"try", "typeof", "var", "void", "while", "with", "as", "implements", "interface", "let",
	"package", "private", "protected", "public", "static", "yield", "type",
	// defined by the generated package itself (gen/emit/typescript fixedNames;
	// JsonValue is not here: a schema's JsonValue is printed as it)
	"TaggedUnions", "WithUnknown", "knownTags", "isKnown", "ObjectTypes",
	"declaredMembers", "extraMembers", "Methods", "RequestMethod", "NotificationMethod",
	"KnownMethod", "ParamsOf", "ResultOf", "MethodInfo", "methodTable", "isKnownMethod",
	"OptionalParamsMethod", "RpcId", "RpcError", "RequestFrame", "NotificationFrame",
	"ResultFrame", "ErrorFrame", "ResponseFrame", "FrameKind", "frameKind", "parseFrame",
	"isRequest", "isNotification", "isResponse", "isErrorResponse", "isResultFor",
	"requestFrame", "notificationFrame")

// goReservedTypes would shadow predeclared identifiers used by generated Go code
// or clash with its helper types.
var goReservedTypes = set("Nullable", "RawJSON", "DecodeError", "ResponseError", "MethodInfo", "LookupMethod", "DecodeParams", "DecodeResult", "Int64", "Frame", "RequestInfo",
	"NotificationInfo", "Method", "Kind", "Direction", "Requests", "Notifications")

// goFieldMembers are the method names every generated struct has; a field of
// that name would not compile.
var goFieldMembers = set("MarshalJSON", "UnmarshalJSON", "Extra", "String", "Tag", "Raw")

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// escapeIf appends "_" when reserved[s].
func escapeIf(s string, reserved map[string]bool) string {
	if reserved[s] {
		return s + "_"
	}
	return s
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
	var n Names
	n[LangGo] = escapeIf(ov.pick(LangGo, goPascal(name), goPascal), goReservedTypes)
	n[LangPython] = escapeIf(escapeIf(ov.pick(LangPython, pascal(name), pascal), pyReserved), pyTypeReserved)
	n[LangTS] = escapeIf(ov.pick(LangTS, pascal(name), pascal), tsReservedTypes)
	return n
}

// fieldNames computes a member's identifier per language.
func fieldNames(wire string, ov overrides) Names {
	var n Names
	n[LangGo] = escapeIf(escapeIf(ov.pick(LangGo, goPascal(wire), goPascal), goKeywords), goFieldMembers)
	n[LangPython] = escapeIf(escapeIf(ov.pick(LangPython, snake(wire), snake), pyReserved), pyMembers)
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

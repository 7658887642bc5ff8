package ir

import (
	"fmt"
	"sort"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// ErrorCode is a JSON-RPC error code the schema gives its own error object
// type (MCP 2026-07-28: ParseError -32700 ... UnsupportedProtocolVersionError
// -32022). The validator checks an error response with that code against
// it, besides the JSON-RPC 2.0 error object rules every schema gets.
type ErrorCode struct {
	Code int64
	// Pointer is the error object's schema ("#/$defs/ParseError", or the
	// "error" member of a def that is a whole error response).
	Pointer string
	// Source names the def it was read from.
	Source string
}

// errorCodes reads the error types by code: a root def whose "code" member
// is an integer const is an error object of that code; a def whose "error"
// member is (or is an allOf with a part) declaring an integer const "code"
// is a whole error response, and its "error" member is the error object.
// Two defs claiming one code are a problem.
func (l *loader) errorCodes(root loc) []ErrorCode {
	kw, defs := rootDefs(root)
	if defs == nil {
		return nil
	}
	byCode := map[int64]string{}
	var out []ErrorCode
	for _, d := range defs.Keys() {
		at := root.Child(kw, d)
		n := defs.Get(d)
		code, ok := l.constCode(at, n)
		obj := at
		if !ok {
			e := n.Get("properties").Get("error")
			if e == nil {
				continue
			}
			obj = at.Child("properties", "error")
			if code, ok = l.constCode(obj, e); !ok {
				for i, part := range e.Get("allOf").Items() {
					if code, ok = l.constCode(obj.Child("allOf", i), part); ok {
						break
					}
				}
			}
			if !ok {
				continue
			}
		}
		if prev, dup := byCode[code]; dup {
			l.problem(at, fmt.Sprintf("error code %d is claimed by two defs, %s and %s", code, prev, d), "")
			continue
		}
		byCode[code] = d
		out = append(out, ErrorCode{Code: code, Pointer: l.pointerOf(obj), Source: l.pointerOf(at)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// constCode returns the integer const of a schema's "code" member.
func (l *loader) constCode(at loc, n *node) (int64, bool) {
	_, n = l.deref(at, n)
	p := n.Get("properties").Get("code")
	if p == nil {
		return 0, false
	}
	c := p.Get("const")
	if c == nil || c.Kind() != schemadoc.Number {
		return 0, false
	}
	v, err := c.Number().Int64()
	return v, err == nil
}

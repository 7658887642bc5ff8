package validate

// Frames are decoded only as far as something reads them: the envelope's
// members, but params and result kept as their bytes (rawJSON) for the
// byte plan (scan.go); the params of a request or notification decoded
// only where a rule set reads them (ruleset.Reader), everything else
// skipped with its syntax checked.

import (
	"strings"

	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
)

// rawJSON is a member kept as its JSON text (syntax checked), a view of
// the frame's bytes: it must not outlive the frame's commit.
type rawJSON []byte

// proj is a projection: the parts of a value to decode.
type proj struct {
	all  bool
	kids map[string]*proj
	elem *proj // "*": every array element
}

// add adds a JSON pointer ("" = everything; "*" = every array element).
func (p *proj) add(ptr string) {
	if p.all {
		return
	}
	if ptr == "" {
		p.all, p.kids, p.elem = true, nil, nil
		return
	}
	tok, rest, more := strings.Cut(strings.TrimPrefix(ptr, "/"), "/")
	if more {
		rest = "/" + rest
	}
	if tok == "*" {
		if p.elem == nil {
			p.elem = &proj{}
		}
		p.elem.add(rest)
		return
	}
	tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	if p.kids == nil {
		p.kids = map[string]*proj{}
	}
	k := p.kids[tok]
	if k == nil {
		k = &proj{}
		p.kids[tok] = k
	}
	k.add(rest)
}

// compileReads builds, for every method of the model, the union of what
// the rule sets read of its params (nil: nothing); readAll is set when a
// set does not say (it then sees all params of every method).
func (v *Validator) compileReads() {
	v.reads = map[string]*proj{}
	for _, c := range v.checkers {
		if _, ok := c.(ruleset.Reader); !ok {
			v.readAll = true
		}
	}
	for _, m := range v.model.Methods {
		var p *proj
		for _, c := range v.checkers {
			r, ok := c.(ruleset.Reader)
			var ptrs []string
			if ok {
				ptrs = r.Reads(m.Name)
			} else {
				ptrs = []string{""}
			}
			for _, ptr := range ptrs {
				if p == nil {
					p = &proj{}
				}
				p.add(ptr)
			}
		}
		v.reads[m.Name] = p
	}
}

// paramsFor decodes the params a rule set reads of a frame of method name
// (nil when none does, or when they are not an object); raw must be known
// to be valid JSON (what is not read is skipped unchecked).
func (v *Validator) paramsFor(name string, raw rawJSON) map[string]any {
	p, known := v.reads[name]
	if !known && v.readAll {
		p = &proj{all: true}
	}
	if p == nil {
		return nil
	}
	d := decoder{data: raw, intern: v.intern, utf8ok: true}
	d.ws()
	val, ok := d.valueProj(p, 1)
	if !ok {
		return nil
	}
	m, _ := val.(map[string]any)
	return m
}

// decodeEnvelope decodes a frame that is one JSON object, with its params
// and result members kept as rawJSON; ok is false for anything else (the
// caller decodes the frame in full). data must be valid UTF-8.
func decodeEnvelope(data []byte, intern map[string]string) (map[string]any, bool) {
	d := decoder{data: data, intern: intern, utf8ok: true, rawTop: true}
	d.ws()
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return nil, false
	}
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.ws()
	if d.i != len(d.data) {
		return nil, false
	}
	return v.(map[string]any), true
}

// valueProj decodes the value at d.i as far as p asks.
func (d *decoder) valueProj(p *proj, depth int) (any, bool) {
	if p.all {
		return d.value(depth)
	}
	if d.i >= len(d.data) || depth > maxDecodeDepth {
		return nil, false
	}
	switch d.data[d.i] {
	case '{':
		if p.kids == nil {
			break
		}
		d.i++
		m := map[string]any{}
		d.ws()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			d.ws()
			if d.i >= len(d.data) || d.data[d.i] != '"' {
				return nil, false
			}
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			d.ws()
			if d.i >= len(d.data) || d.data[d.i] != ':' {
				return nil, false
			}
			d.i++
			d.ws()
			if kid := p.kids[k.(string)]; kid != nil {
				v, ok := d.valueProj(kid, depth+1)
				if !ok {
					return nil, false
				}
				m[k.(string)] = v
			} else if d.i = skipTrust(d.data, d.i); d.i < 0 {
				return nil, false
			}
			d.ws()
			if d.i >= len(d.data) {
				return nil, false
			}
			switch d.data[d.i] {
			case ',':
				d.i++
			case '}':
				d.i++
				return m, true
			default:
				return nil, false
			}
		}
	case '[':
		if p.elem == nil {
			break
		}
		d.i++
		a := []any{}
		d.ws()
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			return a, true
		}
		for {
			d.ws()
			v, ok := d.valueProj(p.elem, depth+1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			d.ws()
			if d.i >= len(d.data) {
				return nil, false
			}
			switch d.data[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				return a, true
			default:
				return nil, false
			}
		}
	}
	// Not what p descends into: skipped, nil.
	if d.i = skipTrust(d.data, d.i); d.i < 0 {
		return nil, false
	}
	return nil, true
}

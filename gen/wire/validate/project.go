package validate

// Frames are decoded only as far as something reads them: the envelope's
// members, but params and result kept as their bytes (rawJSON) for the
// byte plan (scan.go); the rule sets read the params of a request or
// notification through a view of those bytes (ruleset.Value), limited to
// what their Reads name (ruleset.Reader).

import "github.com/dshgen/dshgen/gen/wire/validate/ruleset"

// rawJSON is a member kept as its JSON text (syntax checked), a view of
// the frame's bytes: it must not outlive the frame's commit.
type rawJSON []byte

// compileReads builds, for every method of the model, the union of what
// the rule sets read of its params (nil: nothing); readAll is set when a
// set does not say (it then sees all params of every method).
func (v *Validator) compileReads() {
	v.reads = map[string]*ruleset.Selection{}
	for _, c := range v.checkers {
		if _, ok := c.(ruleset.Reader); !ok {
			v.readAll = true
		}
	}
	for _, m := range v.model.Methods {
		var p *ruleset.Selection
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
					p = &ruleset.Selection{}
				}
				p.Add(ptr)
			}
		}
		v.reads[m.Name] = p
	}
}

// paramsFor is the view of a frame's params (of method name) that the
// rule sets read: raw itself, nothing decoded, as far as their Reads
// select (Absent when no set reads any of it); raw must be known to be
// valid JSON.
func (v *Validator) paramsFor(name string, raw rawJSON) ruleset.Value {
	sel, ok := v.selection(name)
	if !ok {
		return ruleset.Value{}
	}
	return ruleset.RawValue(raw, sel, v.intern)
}

// selection is what the rule sets read of the params of method name (nil:
// all of them); ok is false when they read nothing.
func (v *Validator) selection(name string) (sel *ruleset.Selection, ok bool) {
	p, known := v.reads[name]
	if !known && v.readAll {
		return nil, true
	}
	if p == nil {
		return nil, false
	}
	if p.All() {
		return nil, true
	}
	return p, true
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

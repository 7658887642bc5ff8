package python

import (
	"fmt"

	"github.com/dshgen/dshgen/gen/ir"
)

// encodeExpr returns a Python expression that encodes the value of expr
// (of type r) as JSON, printing any statements it needs to p first.
// Containers of a recursive type are built with loops, not comprehensions,
// so that encoding a deep tree costs one Python frame per level.
func encodeExpr(p *printer, r ir.TypeRef, expr string) string {
	r = resolve(r)
	if isPrimitive(r) {
		return expr
	}
	if r.Nullable {
		inner := r
		inner.Nullable = false
		sub := p.sub()
		x := encodeExpr(sub, inner, expr)
		if sub.lines == 0 {
			return fmt.Sprintf("None if %s is None else %s", expr, x)
		}
		t := "t" + p.fresh()
		p.P("%s: _JsonValue = None", t)
		p.P("if %s is not None:", expr)
		p.splice(sub)
		p.depth++
		p.P("%s = %s", t, x)
		p.depth--
		return t
	}
	switch r.Kind {
	case ir.RefNamed:
		t := r.Named
		if isClass(t) || t.Kind == ir.KindUnion && !hasEncoder(t.Union) {
			return expr + ".to_json()"
		}
		return "_e_" + t.Names.Of(py) + "(" + expr + ")"
	case ir.RefArray, ir.RefMap:
		elem := resolve(*r.Elem)
		if isPrimitive(elem) {
			if r.Kind == ir.RefArray {
				return "enc_list(" + expr + ")"
			}
			return "enc_map(" + expr + ")"
		}
		n := p.fresh()
		y := "y" + n
		if elem.Kind == ir.RefNamed && !elem.Named.Recursive {
			sub := p.sub()
			if x := encodeExpr(sub, elem, y); sub.lines == 0 {
				if r.Kind == ir.RefArray {
					return fmt.Sprintf("[%s for %s in %s]", x, y, expr)
				}
				q := "q" + n
				return fmt.Sprintf("{%s: %s for %s, %s in %s.items()}", q, x, q, y, expr)
			}
		}
		if r.Kind == ir.RefArray {
			l := "l" + n
			p.P("%s: list[_JsonValue] = []", l)
			p.Block(fmt.Sprintf("for %s in %s:", y, expr), func() {
				p.P("%s.append(%s)", l, encodeExpr(p, elem, y))
			})
			return l
		}
		m, q := "m"+n, "q"+n
		p.P("%s: dict[str, _JsonValue] = {}", m)
		p.Block(fmt.Sprintf("for %s, %s in %s.items():", q, y, expr), func() {
			p.P("%s[%s] = %s", m, q, encodeExpr(p, elem, y))
		})
		return m
	}
	return expr
}

// objectEncoder prints the body of an object's to_json: the required
// members first written as one dict display (as long as each is one
// expression), then the others in schema order.
func (e *emitter) objectEncoder(p *printer, t *ir.Type) {
	var lit []string
	inLit := true
	body := p.sub()
	body.depth = p.depth
	for _, f := range t.Fields {
		attr := "self." + f.Names.Of(py)
		wire := pyStr(f.Wire)
		if f.Const != nil {
			c, litAnn := constLit(*f.Const)
			val := c
			if litAnn == "" {
				val = attr
			}
			switch {
			case f.Required && inLit:
				lit = append(lit, wire+": "+val)
			case f.Required:
				body.P("d[%s] = %s", wire, val)
			default:
				inLit = false
				body.Block(fmt.Sprintf("if %s is not None:", attr), func() { body.P("d[%s] = %s", wire, attr) })
			}
			continue
		}
		if f.Required {
			sub := body.sub()
			sub.depth = body.depth
			x := encodeExpr(sub, f.Type, attr)
			if inLit && sub.lines == 0 {
				lit = append(lit, wire+": "+x)
				continue
			}
			inLit = false
			body.splice(sub)
			body.P("d[%s] = %s", wire, x)
			continue
		}
		inLit = false
		absent := "None"
		if isNullable(f.Type) {
			absent = "_ABSENT"
		} else if u := bigUnion(f.Type); u != nil {
			body.P("_put_%s(d, %s, %s)", u.Names.Of(py), wire, attr)
			continue
		}
		body.Block(fmt.Sprintf("if %s is not %s:", attr, absent), func() {
			body.P("d[%s] = %s", wire, encodeExpr(body, f.Type, attr))
		})
	}
	if !t.Closed {
		body.Block("if self.extra:", func() {
			if t.Extra == nil || isPrimitive(resolve(*t.Extra)) {
				body.Block("for k, x in self.extra.items():", func() { body.P("d.setdefault(k, x)") })
				return
			}
			body.Block("for k, y in self.extra.items():", func() {
				body.Block("if k not in d:", func() { body.P("d[k] = %s", encodeExpr(body, *t.Extra, "y")) })
			})
		})
	}
	p.Seq("d: dict[str, _JsonValue] = ", "{", lit, "}", "")
	p.splice(body)
	p.P("return d")
}

// hasEncoder reports whether a union has an _e_ encoder of its own (its
// variants need not be classes); the others encode with the variant's
// to_json.
func hasEncoder(u *ir.Union) bool { return u.By == ir.ByJSONType || u.By == ir.ByTry }

// bigUnionVariants is the number of variants above which an optional
// member of a union type is encoded by the union's _put_ function instead
// of inline. mypy simplifies a union-typed attribute's type pairwise over
// the variants at every read, and narrows it again, pairwise, at every
// read under `if self.m is not None:`: the inline form costs about 0.2
// CPU s per member at 201 variants (testdata/hostile case 15, 100 such
// members: 23 of its 33.5 s of mypy --strict), _put_X(d, key, self.m) one
// plain read per member and one narrowing per union. Below it the inline
// test keeps encoding one call cheaper (the shipped schema's largest union
// has 48 variants, and out/ does not change).
const bigUnionVariants = 64

// bigUnion is the union r names (through aliases) when it is not nullable
// and has more than bigUnionVariants variants, else nil.
func bigUnion(r ir.TypeRef) *ir.Type {
	r = resolve(r)
	if r.Kind != ir.RefNamed || r.Nullable || r.Named.Kind != ir.KindUnion || len(r.Named.Union.Variants) <= bigUnionVariants {
		return nil
	}
	return r.Named
}

// unionPut prints _put_X of a big union X (bigUnion): it sets d[k] to the
// encoded value unless the value is None.
func (e *emitter) unionPut(p *printer, t *ir.Type) {
	self := ir.TypeRef{Kind: ir.RefNamed, Named: t}
	p.Blank(2)
	p.Block(fmt.Sprintf("def _put_%s(d: dict[str, _JsonValue], k: str, value: %s | None) -> None:", t.Names.Of(py), ann(&self, "")), func() {
		p.Block("if value is not None:", func() { p.P("d[k] = %s", encodeExpr(p, self, "value")) })
	})
}

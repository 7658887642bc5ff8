package python

import (
	"fmt"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// The decoders are straight-line Python, one function per type: inline
// type(x) is checks, members read with v[k] under one try per object, the
// codec's helpers for lists and maps of primitives and of non-recursive
// types (a helper is one more Python frame per level, so a recursive type's
// lists keep their loop inline and a deep tree decodes at the default
// recursion limit).

// expr returns one Python expression that decodes the value of the
// expression src (evaluated once) as r, or "" when r needs statements.
// Errors raise DecodeError relative to src.
func expr(r ir.TypeRef, src string) string {
	r = resolve(r)
	if r.Kind == ir.RefNull {
		return fmt.Sprintf(`None if (x := %s) is None else fail_type("None", x)`, src)
	}
	if r.Kind == ir.RefJSON {
		return "check_json(" + src + ")"
	}
	nullable := r.Nullable
	inner := r
	inner.Nullable = false
	if test, fail := primCheck(inner); test != "" {
		if nullable {
			return fmt.Sprintf("x if (x := %s) is None or %s else %s", src, test, strings.Replace(fail, `")`, ` or None")`, 1))
		}
		return fmt.Sprintf("x if %s else %s", strings.Replace(test, "type(x)", "type(x := "+src+")", 1), fail)
	}
	var e string
	switch inner.Kind {
	case ir.RefNamed:
		e = "_d_" + inner.Named.Names.Of(py) + "(%s)"
	case ir.RefArray, ir.RefMap:
		kind, helper := "list", "list_of"
		if inner.Kind == ir.RefMap {
			kind, helper = "map", "map_of"
		}
		elem := resolve(*inner.Elem)
		if h := primHelper(elem, kind); h != "" {
			e = h + "(%s)"
		} else if elem.Kind == ir.RefNamed && !elem.Nullable && !elem.Named.Recursive {
			e = helper + "(_d_" + elem.Named.Names.Of(py) + ", %s)"
		}
	}
	switch {
	case e == "":
		return ""
	case nullable:
		return fmt.Sprintf("None if (x := %s) is None else ", src) + fmt.Sprintf(e, "x")
	}
	return fmt.Sprintf(e, src)
}

// primCheck returns the test that x (the value) has the primitive type of r
// (an enum is a str: the openness rule keeps any string), and the call that
// raises when it has not.
func primCheck(r ir.TypeRef) (test, fail string) {
	switch r.Kind {
	case ir.RefString:
		return "type(x) is str", `fail_type("str", x)`
	case ir.RefBoolean:
		return "type(x) is bool", `fail_type("bool", x)`
	case ir.RefInteger:
		return "type(x) is int", `int_slow(x, "int")`
	case ir.RefNumber:
		// an int inline, a finite float through the codec
		return "type(x) is int", `num_slow(x, "float or int")`
	case ir.RefNamed:
		if r.Named.Kind == ir.KindEnum {
			return "type(x) is str", `fail_type("str", x)`
		}
	}
	return "", ""
}

// primHelper names the codec function that decodes a list or map of a
// primitive ("" when the element needs generated code).
func primHelper(elem ir.TypeRef, kind string) string {
	if elem.Nullable {
		if elem.Kind == ir.RefJSON {
			return "json_" + kind
		}
		return ""
	}
	switch elem.Kind {
	case ir.RefString:
		return "str_" + kind
	case ir.RefInteger:
		return "int_" + kind
	case ir.RefNumber:
		return "num_" + kind
	case ir.RefBoolean:
		return "bool_" + kind
	case ir.RefJSON:
		return "json_" + kind
	case ir.RefNamed:
		if elem.Named.Kind == ir.KindEnum {
			return "str_" + kind
		}
	}
	return ""
}

// decodeInto prints statements that decode the JSON value in the local src
// as r into the local dst: one assignment when expr can, else the loops of
// a list or map (of nullable or recursive items, or of lists).
func decodeInto(p *printer, r ir.TypeRef, src, dst string) {
	if x := expr(r, src); x != "" {
		p.P("%s = %s", dst, x)
		return
	}
	r = resolve(r)
	if r.Nullable {
		inner := r
		inner.Nullable = false
		p.Block(fmt.Sprintf("if %s is None:", src), func() { p.P("%s = None", dst) })
		p.Block("else:", func() { decodeInto(p, inner, src, dst) })
		return
	}
	n := p.fresh()
	y, z := "y"+n, "z"+n
	elem := *r.Elem
	if r.Kind == ir.RefArray {
		l, i := "l"+n, "i"+n
		p.Block(fmt.Sprintf("if type(%s) is not list:", src), func() { p.P(`fail_type("list", %s)`, src) })
		p.P("%s: list[%s] = []", l, ann(&elem, ""))
		p.P("%s = 0", i)
		p.Block("try:", func() {
			p.Block(fmt.Sprintf("for %s, %s in enumerate(%s):", i, y, src), func() {
				p.P("%s: %s", z, ann(&elem, ""))
				decodeInto(p, elem, y, z)
				p.P("%s.append(%s)", l, z)
			})
		})
		p.Block("except _DecodeError as e:", func() {
			p.P("e.prepend(%s)", i)
			p.P("raise")
		})
		p.P("%s = %s", dst, l)
		return
	}
	m, q := "m"+n, "q"+n
	p.Block(fmt.Sprintf("if type(%s) is not dict:", src), func() { p.P(`fail_type("dict", %s)`, src) })
	p.P("%s: dict[str, %s] = {}", m, ann(&elem, ""))
	p.P(`%s = ""`, q)
	p.Block("try:", func() {
		p.Block(fmt.Sprintf("for %s, %s in %s.items():", q, y, src), func() {
			p.P("%s: %s", z, ann(&elem, ""))
			decodeInto(p, elem, y, z)
			p.P("%s[%s] = %s", m, q, z)
		})
	})
	p.Block("except _DecodeError as e:", func() {
		p.P("e.prepend(%s)", q)
		p.P("raise")
	})
	p.P("%s = %s", dst, m)
}

// objectDecoder prints _d_X, the decoder of an object type: members read
// with v[k] under one try (k names the member being read, for the error's
// path), the member count compared with len(v) to find undeclared ones.
func (e *emitter) objectDecoder(p *printer, t *ir.Type) {
	name := t.Names.Of(py)
	p.Block(fmt.Sprintf("def _d_%s(v: _JsonValue) -> %s:", name, name), func() {
		p.Block("if type(v) is not dict:", func() { p.P(`fail_type("dict", v)`) })
		required := 0
		for _, f := range t.Fields {
			if f.Required {
				required++
			}
		}
		count := fmt.Sprint(required)
		if required < len(t.Fields) {
			p.P("n = %d", required)
			count = "n"
		}
		var args []string
		if len(t.Fields) > 0 {
			p.P("k = %s", pyStr(t.Fields[0].Wire))
			p.Block("try:", func() {
				for i, f := range t.Fields {
					if a := e.memberDecode(p, f, i == 0); a != "" {
						args = append(args, a)
					}
				}
			})
			p.Block("except KeyError:", func() { p.P("raise missing(k) from None") })
			p.Block("except _DecodeError as e:", func() {
				p.P("e.prepend(k)")
				p.P("raise")
			})
		}
		switch {
		case t.Closed:
			p.Block(fmt.Sprintf("if len(v) != %s:", count), func() {
				p.P("reject_unknown(v, %s, %s)", keysRef(t), pyStr(t.Name))
			})
		case t.Extra != nil:
			p.P("extra: dict[str, %s] = {}", ann(t.Extra, ""))
			p.Block(fmt.Sprintf("if len(v) != %s:", count), func() {
				p.P(`kk = ""`)
				p.Block("try:", func() {
					p.Block("for kk, y in v.items():", func() {
						p.Block(fmt.Sprintf("if kk not in %s:", keysRef(t)), func() {
							p.P("z: %s", ann(t.Extra, ""))
							decodeInto(p, *t.Extra, "y", "z")
							p.P("extra[kk] = z")
						})
					})
				})
				p.Block("except _DecodeError as e:", func() {
					p.P("e.prepend(kk)")
					p.P("raise")
				})
			})
			args = append(args, "extra=extra")
		default:
			p.P("extra: dict[str, _JsonValue] = {} if len(v) == %s else extra_json(v, %s)", count, keysRef(t))
			args = append(args, "extra=extra")
		}
		p.Call("return "+name, args...)
	})
}

// memberDecode prints the statements reading one member into a_<attr> and
// returns the constructor argument ("" for a const the class defaults).
func (e *emitter) memberDecode(p *printer, f *ir.Field, first bool) string {
	attr := f.Names.Of(py)
	dst := "a_" + attr
	wire := pyStr(f.Wire)
	src := "v[" + wire + "]"
	if f.Const != nil {
		lit, litAnn := constLit(*f.Const)
		check := func() {
			var cond string
			switch {
			case lit == "True" || lit == "False" || lit == "None":
				cond = fmt.Sprintf("(x := %s) is not %s", src, lit)
			case strings.HasPrefix(lit, `"`):
				cond = fmt.Sprintf("(x := %s) != %s", src, lit)
			case f.Type.Kind == ir.RefInteger || f.Type.Kind == ir.RefNumber:
				cond = fmt.Sprintf("type(x := %s) is bool or x != %s", src, lit)
			default:
				cond = fmt.Sprintf("(x := %s) != %s", src, lit)
			}
			p.Block("if "+cond+":", func() { p.P("fail_const(%s, x)", pyStr(*f.Const)) })
		}
		if f.Required {
			if !first {
				p.P("k = %s", wire)
			}
			check()
			if litAnn != "" {
				return ""
			}
			p.P("%s = x", dst)
			return attr + "=" + dst
		}
		p.P("%s: %s | None = None", dst, orAnn(litAnn, ann(&f.Type, "")))
		p.Block(fmt.Sprintf("if %s in v:", wire), func() {
			p.P("k = %s", wire)
			p.P("n += 1")
			check()
			if litAnn != "" {
				p.P("%s = %s", dst, lit)
			} else {
				p.P("%s = x", dst)
			}
		})
		return attr + "=" + dst
	}
	if f.Required {
		if !first {
			p.P("k = %s", wire)
		}
		if x := expr(f.Type, src); x != "" {
			p.P("%s = %s", dst, x)
		} else {
			p.P("%s: %s", dst, ann(&f.Type, ""))
			p.P("x = %s", src)
			decodeInto(p, f.Type, "x", dst)
		}
		return attr + "=" + dst
	}
	a := ann(&f.Type, "")
	if isNullable(f.Type) {
		if !strings.HasSuffix(a, "None") {
			a += " | None"
		}
		p.P("%s: %s | _Absent = _ABSENT", dst, a)
	} else {
		p.P("%s: %s | None = None", dst, a)
	}
	p.Block(fmt.Sprintf("if %s in v:", wire), func() {
		p.P("k = %s", wire)
		p.P("n += 1")
		if x := expr(f.Type, src); x != "" {
			p.P("%s = %s", dst, x)
		} else {
			p.P("x = %s", src)
			decodeInto(p, f.Type, "x", dst)
		}
	})
	return attr + "=" + dst
}

func orAnn(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// nonClassCodec prints the decoder and encoder of an alias or a union (an
// enum decodes with the codec's check_str and encodes as it is; a tagged
// union's decoder is built from its tag table, see tagTable).
func (e *emitter) nonClassCodec(p *printer, t *ir.Type) {
	name := t.Names.Of(py)
	self := ir.TypeRef{Kind: ir.RefNamed, Named: t}
	ret := ann(&self, "")
	switch {
	case t.Kind == ir.KindEnum, t.Kind == ir.KindUnion && t.Union.By == ir.ByTag:
		return
	case t.Kind == ir.KindAlias:
		p.Blank(2)
		p.Block(fmt.Sprintf("def _d_%s(v: _JsonValue) -> %s:", name, ret), func() {
			if x := expr(*t.Alias, "v"); x != "" {
				p.P("return %s", x)
				return
			}
			p.P("r: %s", ret)
			decodeInto(p, *t.Alias, "v", "r")
			p.P("return r")
		})
		p.Blank(2)
		p.Block(fmt.Sprintf("def _e_%s(o: %s) -> _JsonValue:", name, ret), func() {
			p.P("return %s", encodeExpr(p, *t.Alias, "o"))
		})
	case t.Union.By == ir.ByTry:
		p.Blank(2)
		p.Block(fmt.Sprintf("def _d_%s(v: _JsonValue) -> %s:", name, ret), func() {
			p.P("errors: list[tuple[str, _DecodeError]] = []")
			one := t.Union.Keyword == "oneOf"
			if one {
				p.P("found: list[%s] = []", ret)
			}
			for _, v := range t.Union.Variants {
				if one {
					p.Block("try:", func() { p.P("found.append(%s(v))", decoderOf(v.Type)) })
				} else {
					p.Block("try:", func() { p.P("return %s(v)", decoderOf(v.Type)) })
				}
				p.Block("except _DecodeError as e:", func() { p.P("errors.append((%s, e))", pyStr(v.Type.Name)) })
			}
			if one {
				p.Block("if len(found) == 1:", func() { p.P("return found[0]") })
				p.Block("if found:", func() {
					p.P("raise _DecodeError(%s)", pyStr("matches more than one branch of "+t.Name+" (oneOf)"))
				})
			}
			p.P("raise no_branch(%s, errors)", pyStr(t.Name))
		})
		e.unionEncoder(p, t, name, ret)
	case t.Union.By == ir.ByJSONType:
		p.Blank(2)
		p.Block(fmt.Sprintf("def _d_%s(v: _JsonValue) -> %s:", name, ret), func() {
			var expected []string
			for _, v := range t.Union.Variants {
				cond, exp := jsonTypeCheck(v.JSONType)
				expected = append(expected, exp)
				p.Block("if "+cond+":", func() { p.P("return %s(v)", decoderOf(v.Type)) })
			}
			p.P("fail_type(%s, v)", pyStr(strings.Join(expected, " or ")))
		})
		e.unionEncoder(p, t, name, ret)
	case t.Union.By == ir.ByShape:
		p.Blank(2)
		p.Block(fmt.Sprintf("def _d_%s(v: _JsonValue) -> %s:", name, ret), func() {
			p.P("errors: list[tuple[str, _DecodeError]] = []")
			for _, v := range t.Union.Variants {
				p.Block("try:", func() { p.P("return _d_%s(v)", v.Type.Names.Of(py)) })
				p.Block("except _DecodeError as e:", func() { p.P("errors.append((%s, e))", pyStr(v.Type.Name)) })
			}
			p.P("raise no_branch(%s, errors)", pyStr(t.Name))
		})
	default:
		panic(fmt.Sprintf("python: %s: no decoder for a union %v", t.Pointer, t.Union.By))
	}
}

// jsonTypeCheck is the Python test for a JSON type and its name in
// messages.
func jsonTypeCheck(js string) (string, string) {
	switch js {
	case "string":
		return "type(v) is str", "str"
	case "number", "integer":
		return "type(v) is int or type(v) is float", "float or int"
	case "boolean":
		return "type(v) is bool", "bool"
	case "array":
		return "type(v) is list", "list"
	case "object":
		return "type(v) is dict", "dict"
	case "null":
		return "v is None", "None"
	}
	return "False", js
}

// unionEncoder prints the _e_ encoder of a union whose variants need not be
// classes: a class variant by isinstance, anything else as the JSON value
// it holds.
func (e *emitter) unionEncoder(p *printer, t *ir.Type, name, ret string) {
	p.Blank(2)
	p.Block(fmt.Sprintf("def _e_%s(o: %s) -> _JsonValue:", name, ret), func() {
		classes := true
		for _, v := range t.Union.Variants {
			classes = classes && isClass(v.Type)
		}
		if classes {
			p.P("return o.to_json()")
			return
		}
		prim := true
		for _, v := range t.Union.Variants {
			if isClass(v.Type) {
				p.Block(fmt.Sprintf("if isinstance(o, %s):", v.Type.Names.Of(py)), func() { p.P("return o.to_json()") })
			} else if !isPrimitive(resolve(ir.TypeRef{Kind: ir.RefNamed, Named: v.Type})) {
				prim = false
			}
		}
		if prim {
			p.P("return o")
		} else {
			p.P("return encode_value(o)")
		}
	})
}

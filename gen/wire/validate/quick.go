package validate

// The quick path: the common frame (a request, notification or success
// response of a known method, every member plain, params and result
// accepted by the byte plan) checked from its bytes alone. Nothing is
// decoded and nothing allocated: the envelope's members are views of the
// frame, the id's text for messages is made only when a finding needs it
// (frameCtx.idText), the rule sets read the params through a view
// (ruleset.Value). Any frame it does not accept, for whatever reason, goes
// the ordinary way (decodeEnvelope, envelope, the plan again and the
// library), so the quick path never reports anything: it only recognizes
// frames about which there is nothing to report before commit.

import (
	"strconv"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate/internal/jsontext"
	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
)

// envView holds the members of a frame's top-level object as views of its
// JSON text (nil: absent).
type envView struct {
	jsonrpc, id, method, params, result []byte
}

// scanEnv reads data as one JSON object whose members are only jsonrpc,
// id, method, params and result, each at most once, named without
// escapes; jsonrpc and method strings without escapes, id such a string
// or a number (their syntax checked), params and result found but not
// checked. ok is false for anything else.
func scanEnv(data []byte) (e envView, ok bool) {
	i := jsontext.WS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return e, false
	}
	i = jsontext.WS(data, i+1)
	for {
		if i >= len(data) || data[i] != '"' {
			return e, false
		}
		ke, esc := strEnd(data, i)
		if ke < 0 || esc {
			return e, false
		}
		key := view(data[i+1 : ke-1])
		if i = jsontext.WS(data, ke); i >= len(data) || data[i] != ':' {
			return e, false
		}
		i = jsontext.WS(data, i+1)
		if i >= len(data) {
			return e, false
		}
		var slot *[]byte
		end := -1
		switch key {
		case "jsonrpc", "method":
			slot = &e.jsonrpc
			if key == "method" {
				slot = &e.method
			}
			if data[i] == '"' {
				if end, esc = strEnd(data, i); esc {
					end = -1
				}
			}
		case "id":
			slot = &e.id
			switch c := data[i]; {
			case c == '"':
				if end, esc = strEnd(data, i); esc {
					end = -1
				}
			case c == '-' || c >= '0' && c <= '9':
				end = numEnd(data, i)
			}
		case "params", "result":
			slot = &e.params
			if key == "result" {
				slot = &e.result
			}
			end = jsontext.SkipTrust(data, i)
		default:
			return e, false
		}
		if end < 0 || *slot != nil {
			return e, false
		}
		*slot = data[i:end:end]
		if i = jsontext.WS(data, end); i >= len(data) {
			return e, false
		}
		switch data[i] {
		case ',':
			i = jsontext.WS(data, i+1)
		case '}':
			return e, jsontext.WS(data, i+1) == len(data)
		default:
			return e, false
		}
	}
}

// quick checks the frame data (valid UTF-8) into p when it is a common
// frame with nothing to report before commit; false leaves p as it was,
// but for planRejected.
func (s *Stream) quick(p *prepared, data []byte) bool {
	e, ok := scanEnv(data)
	if !ok || view(e.jsonrpc) != `"2.0"` {
		return false
	}
	v := s.v
	var m *ir.Method
	if e.method != nil {
		if m = v.methods[view(e.method[1:len(e.method)-1])]; m == nil {
			return false // unknown, or an extension method
		}
		if _, cancel := cancelNotifications[m.Name]; cancel {
			return false // the pairing reads its params decoded
		}
	}
	if e.id != nil && !s.quickID(e.id) {
		return false
	}
	var kind frameKind
	switch {
	case e.id != nil && m != nil && m.Kind != ir.Notification:
		kind = kindRequest
	case e.id != nil && m == nil:
		kind = kindResponse
	case e.id == nil && m != nil && m.Kind != ir.Request:
		kind = kindNotification
	default:
		return false
	}
	if kind == kindResponse {
		if e.result == nil || e.params != nil || skip(e.result, 0, 1) != len(e.result) {
			return false
		}
	} else if e.result != nil {
		return false
	} else if ok, planned := quickParams(v, m, e.params); !ok {
		p.planRejected = planned
		return false
	}
	p.quick, p.kind, p.m, p.idRaw, p.resRaw, p.paramsOK = true, kind, m, e.id, e.result, true
	p.c.idRaw = e.id
	if m != nil {
		p.name, p.c.method = m.Name, m.Name
		if e.params != nil && len(s.rs) > 0 {
			p.params = v.paramsFor(m.Name, e.params)
		}
	}
	return true
}

// quickParams reports whether the params (nil: absent) of a frame of m
// need no finding: the byte plan accepts them, or m takes any (their
// syntax checked); planned is true when the plan ran on them.
func quickParams(v *Validator, m *ir.Method, params []byte) (ok, planned bool) {
	switch {
	case m.Params == nil:
		return params == nil, false
	case params == nil:
		return m.ParamsOptional, false
	case m.ParamsUndeclared:
		return !m.Params.Closed && skip(params, 0, 1) == len(params), false
	}
	return v.planAccepts(m.Params, params), true
}

// quickID reports whether the id text raw (a string without escapes or a
// number, syntax checked) is an id with nothing to report: an integer,
// and accepted by the byte plan of the schema's JsonRpcId.
func (s *Stream) quickID(raw []byte) bool {
	if raw[0] != '"' {
		for _, c := range raw {
			if c == '.' || c == 'e' || c == 'E' {
				return false
			}
		}
	}
	if t := s.v.idType; t != nil {
		n := s.v.fast[t.Pointer]
		return n != nil && n.scanValue(raw, nil) == accept
	}
	return true
}

// pairKey is the pairing key of p's id (idKey). For a quick frame it is a
// view of s.keyBuf, valid until the next call: strings.Clone it to keep it.
func (s *Stream) pairKey(p *prepared) string {
	if !p.quick {
		return idKey(p.idv)
	}
	s.keyBuf = appendRawIDKey(s.keyBuf[:0], p.idRaw)
	return view(s.keyBuf)
}

// appendRawIDKey appends the pairing key (idKey) of the id whose text is
// raw (a string without escapes or a number, as scanEnv finds them).
func appendRawIDKey(b, raw []byte) []byte {
	start := len(b)
	if raw[0] == '"' {
		b = append(append(b, 's'), raw[1:len(raw)-1]...)
	} else {
		b = appendNumKey(append(b, 'n'), view(raw))
	}
	if len(b)-start > maxKeyBytes {
		return append(b[:start], hashKey(string(b[start:]))...)
	}
	return b
}

// appendNumKey appends the pairing key of the number whose JSON text is
// s: its value, not its spelling. 1, 1.0, 1e0 and 10E-1 are one id (a
// JSON Schema integer, and one number to JSON.parse and to Python's json,
// whose peers pair them), -0 is 0: an integer as its digits (a key longer
// than maxKeyBytes is hashed), but for one with more than maxKeyBytes
// trailing zeros and a fraction, which are 0.DIGITSeEXP.
func appendNumKey(b []byte, s string) []byte {
	if plainInt(s) && s != "-0" {
		return append(b, s...)
	}
	d, ok := parseDecimal(s)
	switch {
	case !ok:
		return append(b, s...)
	case d.isZero():
		return append(b, '0')
	case d.neg:
		b = append(b, '-')
	}
	if !d.sat && d.isInt() && d.exp-int64(len(d.digits)) <= maxKeyBytes {
		b = append(b, d.digits...)
		for i := int64(len(d.digits)); i < d.exp; i++ {
			b = append(b, '0')
		}
		return b
	}
	b = append(append(append(b, "0."...), d.digits...), 'e')
	if d.sat {
		return append(append(b, '~'), d.expText...)
	}
	return strconv.AppendInt(b, d.exp, 10)
}

// frame is the frame the rule sets see for c (reused: the sets must not
// keep it).
func (s *Stream) frame(c *frameCtx, params ruleset.Value, paired bool) *rsFrame {
	s.rsf = rsFrame{c: c, s: s, params: params, paired: paired}
	return &s.rsf
}

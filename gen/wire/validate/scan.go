package validate

// The byte plan: the fast check (fast.go) run on a value's JSON text
// instead of a decoded Go value. It reads the bytes once per schema node
// that applies to them (a $ref or allOf re-reads the same bytes), checks
// the JSON syntax on the way, and builds no Go value: member names are
// looked up as views of the bytes, a string with escapes is unescaped
// into a reused buffer, numbers are compared as their literals (num.go).
// Its verdict is the fast check's on the decoded value (TestPlanAgrees,
// FuzzPlan): Accept is the library's verdict; Reject and Unknown send the
// value to the decoder, the fast check and the library, so that every
// reported error is the library's. A syntax error is Unknown (the decoder
// reports it). Precondition: the bytes are valid UTF-8 (prep checks the
// whole frame first).

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/dshgen/dshgen/gen/wire/validate/internal/jsontext"
)

// scanner holds what one plan run reuses.
type scanner struct {
	data []byte
	buf  []byte // unescaped string, valid until the next unescape
	// elems are the offsets of the elements of the arrays being read
	// (uniqueItems), innermost last.
	elems [][2]int
	fb    int  // fallback branches taken
	nofb  bool // the caller does not count them
	// noCtl: data has no byte below 0x20 (no raw control character can
	// be inside a string: strings are found with bytes.IndexByte).
	noCtl bool
}

var scanners = sync.Pool{New: func() any { return &scanner{buf: make([]byte, 0, 256)} }}

// scanValue runs the plan of n over data (one JSON value, optional
// whitespace around it); fb counts the fallback branches taken, as in
// check.
func (n *fnode) scanValue(data []byte, fb *int) verdict {
	s := scanners.Get().(*scanner)
	s.data, s.fb, s.nofb = data, 0, fb == nil
	s.noCtl = noControl(data)
	i := jsontext.WS(data, 0)
	v, end := n.scan(s, i, 0, -1)
	if end >= 0 && jsontext.WS(data, end) != len(data) {
		end = -1
	}
	if cap(s.buf) > 64<<10 {
		s.buf = make([]byte, 0, 256)
	}
	if cap(s.elems) > 4096 {
		s.elems = nil
	}
	if fb != nil {
		*fb += s.fb
	}
	s.data = nil
	scanners.Put(s)
	if end < 0 {
		return unknown
	}
	return v
}

// view is b as a string without copying; it must not outlive b's next
// change.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func noControl(data []byte) bool {
	for _, c := range data {
		if c < 0x20 {
			return false
		}
	}
	return true
}

// strEndX is strEnd; with noCtl (no byte below 0x20 in data) the quotes
// and backslashes are found with bytes.IndexByte.
func strEndX(data []byte, i int, noCtl bool) (int, bool) {
	if !noCtl {
		return strEnd(data, i)
	}
	j, q, esc := i+1, -1, false
	for {
		if q < j {
			if q = bytes.IndexByte(data[j:], '"'); q < 0 {
				return -1, false
			}
			q += j
		}
		b := bytes.IndexByte(data[j:q], '\\')
		if b < 0 {
			return q + 1, esc
		}
		esc = true
		k := j + b + 1 // the escaped character
		if k >= len(data) {
			return -1, false
		}
		switch data[k] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j = k + 1
		case 'u':
			if len(data)-k < 5 || !isHex4(data[k+1:k+5]) {
				return -1, false
			}
			j = k + 5
		default:
			return -1, false
		}
	}
}

// strEnd returns the index after the string starting at data[i] ('"') and
// whether it has escapes; -1 on a syntax error.
func strEnd(data []byte, i int) (int, bool) {
	esc := false
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, esc
		case c == '\\':
			esc = true
			i++
			if i >= len(data) {
				return -1, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-i < 5 || !isHex4(data[i+1:i+5]) {
					return -1, false
				}
				i += 4
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		}
	}
	return -1, false
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// str returns the value of the string data[i:end] (quotes included): a
// view of the bytes, or without escapes the unescaped text in s.buf
// (lone surrogates become U+FFFD, as the decoder does).
func (s *scanner) str(i, end int, esc bool) string {
	raw := s.data[i+1 : end-1]
	if !esc {
		return view(raw)
	}
	s.buf = jsontext.Unescape(s.buf[:0], raw)
	return view(s.buf)
}

// numEnd returns the index after the number starting at data[i]; -1 on a
// syntax error.
func numEnd(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i >= len(data) {
		return -1
	}
	if data[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(data) && data[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

func lit(data []byte, i int, word string) int {
	if len(data)-i < len(word) || view(data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// skip returns the index after the value at data[i], checking its syntax;
// -1 on a syntax error.
func skip(data []byte, i, depth int) int { return skipX(data, i, depth, false) }

// skipX is skip; noCtl as in scanner.
func skipX(data []byte, i, depth int, noCtl bool) int {
	if i >= len(data) || depth > maxDecodeDepth {
		return -1
	}
	switch c := data[i]; {
	case c == '"':
		e, _ := strEndX(data, i, noCtl)
		return e
	case c == '{':
		i = jsontext.WS(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return -1
			}
			if i, _ = strEndX(data, i, noCtl); i < 0 {
				return -1
			}
			if i = jsontext.WS(data, i); i >= len(data) || data[i] != ':' {
				return -1
			}
			if i = skipX(data, jsontext.WS(data, i+1), depth+1, noCtl); i < 0 {
				return -1
			}
			if i = jsontext.WS(data, i); i >= len(data) {
				return -1
			}
			switch data[i] {
			case ',':
				i = jsontext.WS(data, i+1)
			case '}':
				return i + 1
			default:
				return -1
			}
		}
	case c == '[':
		i = jsontext.WS(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1
		}
		for {
			if i = skipX(data, i, depth+1, noCtl); i < 0 {
				return -1
			}
			if i = jsontext.WS(data, i); i >= len(data) {
				return -1
			}
			switch data[i] {
			case ',':
				i = jsontext.WS(data, i+1)
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case c == 't':
		return lit(data, i, "true")
	case c == 'f':
		return lit(data, i, "false")
	case c == 'n':
		return lit(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return numEnd(data, i)
	}
	return -1
}

// member finds the string value of the first member key of the object at
// data[i] (a shallow read, up to that member); ok is false when it is
// absent or no string, end is -1 on a syntax error (else where the read
// stopped).
func (s *scanner) member(i int, key string) (val string, ok bool, end int) {
	data := s.data
	i = jsontext.WS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return "", false, i + 1
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return "", false, -1
		}
		ke, kesc := strEndX(data, i, s.noCtl)
		if ke < 0 {
			return "", false, -1
		}
		match := s.str(i, ke, kesc) == key
		if i = jsontext.WS(data, ke); i >= len(data) || data[i] != ':' {
			return "", false, -1
		}
		vi := jsontext.WS(data, i+1)
		if i = skipX(data, vi, 1, s.noCtl); i < 0 {
			return "", false, -1
		}
		if match {
			// The first one: a later member of the same name is checked
			// against the branch this one selects (each branch requires
			// its own tag value), so a different one is a rejection.
			if data[vi] != '"' {
				return "", false, i
			}
			_, esc := strEndX(data, vi, s.noCtl)
			return s.str(vi, i, esc), true, i
		}
		if i = jsontext.WS(data, i); i >= len(data) {
			return "", false, -1
		}
		switch data[i] {
		case ',':
			i = jsontext.WS(data, i+1)
		case '}':
			return "", false, i + 1
		default:
			return "", false, -1
		}
	}
}

// decodeAt decodes the value data[i:end] (for a const or enum that is not
// a string).
func (s *scanner) decodeAt(i, end int) (any, bool) { return fastDecode(s.data[i:end]) }

// scan checks the value at data[i] against n and returns the verdict and
// the index after the value (-1 on a syntax error: the verdict is then
// meaningless). known is that index when the caller has it (the value's
// syntax is then checked already, and a rejection returns at once), else
// -1.
func (n *fnode) scan(s *scanner, i, depth, known int) (verdict, int) {
	data := s.data
	end := known
	skipped := func() int {
		if end < 0 {
			end = skipX(data, i, depth, s.noCtl)
		}
		return end
	}
	if n == nil {
		return accept, skipped()
	}
	if n.unsupported || depth > 10000 {
		return unknown, skipped()
	}
	if n.always != nil {
		if *n.always {
			return accept, skipped()
		}
		return reject, skipped()
	}
	if n.refOnly {
		return n.ref.scan(s, i, depth+1, known)
	}
	if i >= len(data) {
		return unknown, -1
	}
	res := accept
	var tb uint8
	var esc bool
	switch c := data[i]; {
	case c == '{':
		tb = tObject
	case c == '[':
		tb = tArray
	case c == '"':
		tb = tString
		end, esc = strEndX(data, i, s.noCtl)
	case c == 't':
		tb, end = tBool, lit(data, i, "true")
	case c == 'f':
		tb, end = tBool, lit(data, i, "false")
	case c == 'n':
		tb, end = tNull, lit(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		end = numEnd(data, i)
		tb = tNumber
		if end >= 0 && isInteger(json.Number(view(data[i:end]))) {
			tb = tInteger
		}
	default:
		return unknown, -1
	}
	if tb != tObject && tb != tArray && end < 0 {
		return unknown, -1
	}
	if n.types != 0 && n.types&tb == 0 {
		return reject, skipped()
	}
	if n.hasConst || n.enum != nil {
		if skipped() < 0 {
			return unknown, -1
		}
		if !n.matchConstEnum(s, tb, i, end, esc) {
			return reject, end
		}
	}
	switch tb {
	case tObject:
		if n.objKw {
			var r verdict
			if r, end = n.scanObject(s, i, depth, end); end < 0 {
				return unknown, -1
			}
			if res = and(res, r); res == reject {
				return reject, end
			}
		}
	case tArray:
		if n.arrKw {
			var r verdict
			if r, end = n.scanArray(s, i, depth, end); end < 0 {
				return unknown, -1
			}
			if res = and(res, r); res == reject {
				return reject, end
			}
		}
	case tString:
		if n.minLen > 0 || n.maxLen >= 0 || n.pattern != nil {
			v := s.str(i, end, esc)
			if n.minLen > 0 || n.maxLen >= 0 {
				c := utf8.RuneCountInString(v)
				if c < n.minLen || (n.maxLen >= 0 && c > n.maxLen) {
					return reject, end
				}
			}
			if n.pattern != nil && !n.pattern.MatchString(v) {
				return reject, end
			}
		}
	case tInteger, tNumber:
		if n.min != nil || n.max != nil || n.exMin != nil || n.exMax != nil {
			if r := n.checkBounds(json.Number(view(data[i:end]))); r == reject {
				return reject, end
			} else if r == unknown {
				res = unknown
			}
		}
	}
	sub := func(x *fnode) verdict {
		v, e := x.scan(s, i, depth+1, end)
		if e < 0 {
			return unknown
		}
		end = e
		return v
	}
	if n.ref != nil {
		if res = and(res, sub(n.ref)); res == reject {
			return reject, end
		}
	}
	for _, x := range n.allOf {
		if res = and(res, sub(x)); res == reject {
			return reject, end
		}
	}
	if n.not != nil {
		switch sub(n.not) {
		case accept:
			return reject, end
		case unknown:
			res = unknown
		}
	}
	if n.ifS != nil {
		switch sub(n.ifS) {
		case accept:
			if n.thenS != nil {
				res = and(res, sub(n.thenS))
			}
		case reject:
			if n.elseS != nil {
				res = and(res, sub(n.elseS))
			}
		default:
			res = unknown
		}
		if res == reject {
			return reject, end
		}
	}
	if n.oneOf != nil {
		res = and(res, n.scanOneOf(s, i, tb, depth, sub))
	}
	if n.anyOf != nil && res != reject {
		res = and(res, n.scanAnyOf(s, i, tb, sub))
	}
	if skipped() < 0 {
		return unknown, -1
	}
	return res, end
}

// prepare sets what scan reads of n's keywords: refOnly (nothing but a
// $ref: scan delegates), objKw and arrKw (keywords on members or items:
// without them the bytes are read only by the subschemas).
func (n *fnode) prepare() {
	n.objKw = n.props != nil || n.required != nil || n.addlFalse || n.addl != nil || n.minProps > 0 || n.maxProps >= 0
	n.arrKw = n.items != nil || n.minItems > 0 || n.maxItems >= 0 || n.uniqueItem
	n.refOnly = n.ref != nil && !n.unsupported && n.always == nil && n.types == 0 && !n.hasConst && n.enum == nil &&
		!n.objKw && !n.arrKw && n.min == nil && n.max == nil && n.exMin == nil && n.exMax == nil &&
		n.minLen == 0 && n.maxLen < 0 && n.pattern == nil && n.allOf == nil && n.anyOf == nil && n.oneOf == nil &&
		n.not == nil && n.ifS == nil && n.thenS == nil && n.elseS == nil
}

// matchConstEnum compares the value data[i:end] with n's const and enum.
func (n *fnode) matchConstEnum(s *scanner, tb uint8, i, end int, esc bool) bool {
	var dec any
	decoded := false
	eq := func(c any) bool {
		if cs, ok := c.(string); ok {
			return tb == tString && s.str(i, end, esc) == cs
		}
		if tb == tString {
			return false
		}
		if !decoded {
			dec, decoded = s.decodeAt(i, end)
			decoded = true
		}
		return jsonEqual(c, dec)
	}
	if n.hasConst && !eq(n.constVal) {
		return false
	}
	if n.enum != nil {
		for _, e := range n.enum {
			if eq(e) {
				return true
			}
		}
		return false
	}
	return true
}

func (n *fnode) scanObject(s *scanner, i, depth, known int) (verdict, int) {
	data := s.data
	start := i
	res := accept
	if len(n.required) > 64 {
		res = unknown
	}
	var seen uint64
	count := 0
	var keys []string // only with minProperties: duplicates must not count
	rejectAll := func() (verdict, int) {
		if known >= 0 {
			return reject, known
		}
		return reject, skipX(data, start, depth, s.noCtl)
	}
	i = jsontext.WS(data, i+1)
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			if i >= len(data) || data[i] != '"' {
				return unknown, -1
			}
			ke, kesc := strEndX(data, i, s.noCtl)
			if ke < 0 {
				return unknown, -1
			}
			key := s.str(i, ke, kesc)
			p, isProp := n.props[key]
			for k, r := range n.required {
				if k < 64 && r == key {
					seen |= 1 << k
				}
			}
			if n.minProps > 0 {
				keys = append(keys, string(key))
			}
			count++
			if i = jsontext.WS(data, ke); i >= len(data) || data[i] != ':' {
				return unknown, -1
			}
			i = jsontext.WS(data, i+1)
			var v verdict
			switch {
			case isProp:
				v, i = p.scan(s, i, depth+1, -1)
			case n.addlFalse:
				return rejectAll()
			case n.addl != nil:
				v, i = n.addl.scan(s, i, depth+1, -1)
			default:
				v, i = accept, skipX(data, i, depth+1, s.noCtl)
			}
			if i < 0 {
				return unknown, -1
			}
			if res = and(res, v); res == reject {
				return rejectAll()
			}
			if i = jsontext.WS(data, i); i >= len(data) {
				return unknown, -1
			}
			if data[i] == '}' {
				i++
				break
			}
			if data[i] != ',' {
				return unknown, -1
			}
			i = jsontext.WS(data, i+1)
		}
	}
	if len(n.required) <= 64 && seen != (uint64(1)<<len(n.required))-1 {
		return reject, i
	}
	if n.maxProps >= 0 && count > n.maxProps {
		// Duplicate members may make count larger than the decoded
		// object: a rejection is only a detour through the library.
		return reject, i
	}
	if n.minProps > 0 {
		distinct := 0
		for k, x := range keys {
			dup := false
			for _, y := range keys[k+1:] {
				if x == y {
					dup = true
					break
				}
			}
			if !dup {
				distinct++
			}
		}
		if distinct < n.minProps {
			return reject, i
		}
	}
	return res, i
}

func (n *fnode) scanArray(s *scanner, i, depth, known int) (verdict, int) {
	base := len(s.elems)
	v, end := n.scanArrayAt(s, i, depth, known, base)
	s.elems = s.elems[:base]
	return v, end
}

// scanArrayAt is scanArray; the elements' offsets (for uniqueItems) go to
// s.elems from base on.
func (n *fnode) scanArrayAt(s *scanner, i, depth, known, base int) (verdict, int) {
	data := s.data
	start := i
	res := accept
	count := 0
	i = jsontext.WS(data, i+1)
	if i < len(data) && data[i] == ']' {
		i++
	} else {
		for {
			es := i
			var v verdict
			if n.items != nil {
				v, i = n.items.scan(s, i, depth+1, -1)
			} else {
				v, i = accept, skipX(data, i, depth+1, s.noCtl)
			}
			if i < 0 {
				return unknown, -1
			}
			count++
			if n.uniqueItem {
				s.elems = append(s.elems, [2]int{es, i})
			}
			if res = and(res, v); res == reject {
				if known >= 0 {
					return reject, known
				}
				return reject, skipX(data, start, depth, s.noCtl)
			}
			if i = jsontext.WS(data, i); i >= len(data) {
				return unknown, -1
			}
			if data[i] == ']' {
				i++
				break
			}
			if data[i] != ',' {
				return unknown, -1
			}
			i = jsontext.WS(data, i+1)
		}
	}
	if count < n.minItems || (n.maxItems >= 0 && count > n.maxItems) {
		return reject, i
	}
	if n.uniqueItem {
		res = and(res, uniqueRaw(data, s.elems[base:]))
	}
	return res, i
}

// uniqueRaw decides uniqueItems from the elements' bytes when they are
// strings without escapes or plain integers (equal values then have equal
// bytes); anything else is Unknown.
func uniqueRaw(data []byte, elems [][2]int) verdict {
	for _, e := range elems {
		b := data[e[0]:e[1]]
		switch {
		case b[0] == '"':
			if _, esc := strEnd(b, 0); esc {
				return unknown
			}
		case plainInt(view(b)) && view(b) != "-0":
		default:
			return unknown
		}
	}
	for k, x := range elems {
		for _, y := range elems[k+1:] {
			if view(data[x[0]:x[1]]) == view(data[y[0]:y[1]]) {
				return reject
			}
		}
	}
	return accept
}

// tagAt returns the branch a tagged union's value at data[i] selects, as
// tagBranch does for a decoded value (ok false when not dispatched by
// tag, i -1 when none can match or on a syntax error).
func (n *fnode) tagAt(s *scanner, i int, tb uint8) (int, bool) {
	if n.byTag == nil {
		return 0, false
	}
	if tb != tObject {
		return -1, true
	}
	tv, ok, end := s.member(i, n.tag)
	if end < 0 || !ok {
		return -1, true
	}
	if b, ok := n.byTag[tv]; ok {
		return b, true
	}
	if n.fallback >= 0 && !s.nofb {
		s.fb++
	}
	return n.fallback, true
}

func (n *fnode) scanOneOf(s *scanner, i int, tb uint8, depth int, sub func(*fnode) verdict) verdict {
	if b, ok := n.tagAt(s, i, tb); ok {
		if b < 0 {
			return reject
		}
		return sub(n.oneOf[b])
	}
	return oneOfVerdict(n.oneOf, sub)
}

func (n *fnode) scanAnyOf(s *scanner, i int, tb uint8, sub func(*fnode) verdict) verdict {
	if b, ok := n.tagAt(s, i, tb); ok {
		if b < 0 {
			return reject
		}
		return sub(n.anyOf[b])
	}
	return anyOfVerdict(n.anyOf, sub)
}

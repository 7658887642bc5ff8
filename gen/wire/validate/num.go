package validate

// Exact arithmetic on JSON numbers, and the guard in front of the
// validation library.
//
// santhosh-tekuri/jsonschema/v5 turns a number into a math/big.Rat wherever
// a keyword looks at its value (type "integer", minimum/maximum and the
// exclusive forms, multipleOf, const, enum, uniqueItems). big.Rat.SetString
// gives up (nil) on an exponent beyond about ±10^6 and the library then
// dereferences the nil: `{"id":1e99999999999999999999}` panicked inside it.
// Below that limit the conversion of a long mantissa or a large exponent
// costs time and memory that grow faster than the number's length.
//
// So no number reaches the library as it was sent unless it is tame (at
// most tameDigits significant digits and a decimal exponent within
// ±tameExp); every other number is replaced, in the copy of the value the
// library sees, by a tame surrogate that every such keyword judges the same
// way (see surrogate), and the messages name the number as it was sent. The
// fast check (fast.go) decides integer-ness, bounds and equality with the
// exact decimal comparison below, which costs one pass over the digits, so
// a valid value is accepted exactly whatever its numbers are: JSON Schema's
// "integer" is any number with a zero fractional part, and
// 1e99999999999999999999 is one.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Bounds of a tame number: what the library gets as it was sent.
const (
	tameDigits = 1500 // significant digits
	tameExp    = 1000 // |exponent| of 0.DIGITS × 10^exp
	// satExp stands for an exponent too large for int64 (its text has
	// more than 18 digits): beyond every tame number by far, since a
	// mantissa cannot move it by more than the frame's length.
	satExp = int64(1) << 62
)

// decimal is a JSON number as sign × 0.digits × 10^exp, digits without
// leading or trailing zeros ("" for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int64
	// sat: the exponent's text overflowed (exp is ±satExp); expText is
	// then the exponent's digits without leading zeros, for equality.
	sat     bool
	expText string
}

// parseDecimal parses the text of a JSON number (as the decoder checked
// it); ok is false for anything else.
func parseDecimal(s string) (d decimal, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[intStart:i]
	if intPart == "" {
		return d, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return d, false
		}
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		et := strings.TrimLeft(s[es:i], "0")
		if i == es {
			return d, false
		}
		if len(et) > 18 {
			d.sat, d.expText = true, et
			e = satExp
		} else if et != "" {
			e, _ = strconv.ParseInt(et, 10, 64)
		}
		if eneg {
			e = -e
			if d.sat {
				d.expText = "-" + et
			}
		}
	}
	if i != len(s) {
		return d, false
	}
	// value = intPart.frac × 10^e = 0.(intPart frac) × 10^(e + len(intPart)).
	lead := 0
	all := intPart + frac
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	digits := strings.TrimRight(all[lead:], "0")
	if digits == "" {
		// Zero, whatever its sign and exponent (kept for tame).
		return decimal{exp: e, sat: d.sat, expText: d.expText}, true
	}
	d.digits = digits
	if !d.sat {
		d.exp = e + int64(len(intPart)) - int64(lead)
	} else {
		d.exp = e // ±satExp: the mantissa's shift is immaterial
	}
	return d, true
}

// float64 returns d as the nearest float64 and whether that is exactly d.
func (d decimal) float64() (float64, bool) {
	if d.sat {
		return 0, false
	}
	s := "0"
	if !d.isZero() {
		s = "0." + d.digits + "e" + strconv.FormatInt(d.exp, 10)
		if d.neg {
			s = "-" + s
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return f, false
	}
	back, ok := parseDecimal(strconv.FormatFloat(f, 'g', -1, 64))
	return f, ok && back.cmp(d) == 0
}

// isZero reports whether d is 0 (exp is then the exponent as written).
func (d decimal) isZero() bool { return d.digits == "" }

// isInt reports whether d has no fractional part.
func (d decimal) isInt() bool { return d.isZero() || d.exp >= int64(len(d.digits)) }

// cmp compares a and b exactly (-1, 0, +1); two numbers whose exponents
// both overflowed compare by their exponent text, then digits.
func (a decimal) cmp(b decimal) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	m := a.cmpAbs(b)
	if sa < 0 {
		return -m
	}
	return m
}

func (d decimal) sign() int {
	switch {
	case d.isZero():
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (a decimal) cmpAbs(b decimal) int {
	if a.sat && b.sat && a.exp == b.exp {
		// Both beyond int64 on the same side: by exponent text.
		if c := cmpIntText(a.expText, b.expText); c != 0 {
			return c
		}
	} else if a.exp != b.exp {
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	return strings.Compare(a.digits, b.digits)
}

// cmpIntText compares two decimal integers written without leading zeros
// ("-" for negative).
func cmpIntText(a, b string) int {
	an, bn := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	if an != bn {
		if an {
			return -1
		}
		return 1
	}
	a, b = strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")
	c := 0
	if len(a) != len(b) {
		c = -1
		if len(a) > len(b) {
			c = 1
		}
	} else {
		c = strings.Compare(a, b)
	}
	if an {
		return -c
	}
	return c
}

// plainInt reports whether s is a short integer without fraction or
// exponent (the common case, which needs no parsing).
func plainInt(s string) bool {
	if len(s) == 0 || len(s) > 18 {
		return false
	}
	return !strings.ContainsAny(s, ".eE")
}

// numIsInteger reports exactly whether a JSON number is an integer (1, -3,
// 1.0, 2e3, 1e99999999999999999999).
func numIsInteger(n json.Number) bool {
	s := n.String()
	if plainInt(s) {
		return true
	}
	d, ok := parseDecimal(s)
	return ok && d.isInt()
}

// numEqual reports whether two JSON numbers have the same value.
func numEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	da, ok1 := parseDecimal(a.String())
	db, ok2 := parseDecimal(b.String())
	return ok1 && ok2 && da.cmp(db) == 0
}

// tame reports whether the library may get the number as it was sent.
func tame(s string) bool {
	if len(s) <= 24 && !strings.ContainsAny(s, "eE") {
		return true // at most 24 characters and no exponent: cheap
	}
	d, ok := parseDecimal(s)
	if !ok {
		return false
	}
	if d.isZero() {
		// "0e99999999999999999999" is 0, but big.Rat cannot read it.
		return !d.sat && d.exp >= -tameExp && d.exp <= tameExp && len(s) <= tameDigits+64
	}
	return !d.sat && len(d.digits) <= tameDigits && d.exp >= -tameExp && d.exp <= tameExp && len(s) <= tameDigits+64
}

// surrogates maps each surrogate number text in a value given to the
// library to the number as it was sent (for messages).
type surrogates struct {
	byText map[string]string // surrogate → original
	bySrc  map[string]string // original → surrogate (one per distinct value)
}

// surrogate returns a tame number that every keyword of the library judges
// as it would judge d (sent as src): the same sign, the same integer-ness,
// the same order against every schema number with at most 200 significant
// digits and a magnitude within 10^±300, and, through the index k, distinct
// for distinct values (uniqueItems). multipleOf is not preserved (the
// shipped schema has none).
//   - zero: "0";
//   - |d| ≥ 10^tameExp: ±1k·10^(tameExp+7) for an integer, plus 0.5 if not;
//   - 0 < |d| < 10^-tameExp: ±1k·10^-(tameExp+20), not an integer;
//   - otherwise (too many digits): the first tameDigits digits, then "1"
//     and k, so it lies strictly between the same two tameDigits-digit
//     neighbours as d and is not an integer (d is not either: it has more
//     digits than its exponent).
func (ss *surrogates) surrogate(src string, d decimal) string {
	if s, ok := ss.bySrc[src]; ok {
		return s
	}
	k := fmt.Sprintf("%06d", len(ss.byText)+1)
	sign := ""
	if d.neg {
		sign = "-"
	}
	var out string
	switch {
	case d.isZero():
		out = "0"
	case d.exp > tameExp:
		if d.isInt() {
			out = sign + "1" + k + "e" + strconv.Itoa(tameExp+7)
		} else {
			out = sign + "1" + k + strings.Repeat("0", tameExp+7) + ".5"
		}
	case d.exp < -tameExp:
		out = sign + "1" + k + "e-" + strconv.Itoa(tameExp+20)
	default:
		out = sign + "0." + d.digits[:tameDigits] + "1" + k + "e" + strconv.FormatInt(d.exp, 10)
	}
	if ss.byText == nil {
		ss.byText, ss.bySrc = map[string]string{}, map[string]string{}
	}
	ss.byText[out] = src
	ss.bySrc[src] = out
	return out
}

// tameValue returns val with every number that is not tame replaced by its
// surrogate, copying only the containers on the way to one; changed is
// false (and val returned as it is) when there is none.
func tameValue(val any, ss *surrogates) (out any, changed bool) {
	switch x := val.(type) {
	case json.Number:
		s := x.String()
		if tame(s) {
			return val, false
		}
		d, ok := parseDecimal(s)
		if !ok {
			return val, false
		}
		return json.Number(ss.surrogate(s, d)), true
	case map[string]any:
		var m map[string]any
		for k, e := range x {
			if ne, ch := tameValue(e, ss); ch {
				if m == nil {
					m = make(map[string]any, len(x))
					for k2, e2 := range x {
						m[k2] = e2
					}
				}
				m[k] = ne
			}
		}
		if m != nil {
			return m, true
		}
	case []any:
		var a []any
		for i, e := range x {
			if ne, ch := tameValue(e, ss); ch {
				if a == nil {
					a = append([]any(nil), x...)
				}
				a[i] = ne
			}
		}
		if a != nil {
			return a, true
		}
	}
	return val, false
}

// showNumber is how a number that was replaced is named in a message.
func showNumber(src string) string {
	if len(src) <= 48 {
		return src
	}
	return fmt.Sprintf("%s…%s (a number of %d characters)", src[:24], src[len(src)-12:], len(src))
}

// restore puts the numbers as they were sent back into the messages of
// issues found on a tamed value.
func (ss *surrogates) restore(is []issue) {
	if len(ss.byText) == 0 {
		return
	}
	for i := range is {
		for s, src := range ss.byText {
			if strings.Contains(is[i].msg, s) {
				is[i].msg = strings.ReplaceAll(is[i].msg, s, showNumber(src))
			}
		}
	}
}

// Package jsontext holds the byte-level JSON helpers that the validator's
// byte plan and the rule sets' params views (ruleset.Value) share: finding
// the end of a value known to be valid JSON, and unescaping a string's
// text. Nothing here allocates except Unescape growing dst.
package jsontext

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// SkipTrust returns the index after the value at data[i] when data is
// known to be valid JSON there: it finds the end and checks nothing (a
// validating pass reads the bytes elsewhere); -1 when the end is not found.
func SkipTrust(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			j := i + 1
			for {
				q := bytes.IndexByte(data[j:], '"')
				if q < 0 {
					return -1
				}
				q += j
				n := 0
				for k := q - 1; k > i && data[k] == '\\'; k-- {
					n++
				}
				if n%2 == 0 {
					i = q + 1
					break
				}
				j = q + 1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return -1
			}
		default:
			if depth == 0 {
				j := i
				for j < len(data) && !Delim(data[j]) {
					j++
				}
				return j
			}
		}
		i++
	}
	return -1
}

// Delim reports whether c ends a number or literal (a structural character
// or whitespace).
func Delim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// WS returns the index of the first non-whitespace byte at or after i.
func WS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// HexVal is the value of the four hex digits at b[0:4] (known to be hex).
func HexVal(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
}

// Unescape appends to dst the text of a string whose JSON content (between
// the quotes) is raw, known to hold only valid escapes. A lone surrogate
// becomes U+FFFD, as encoding/json decodes it; other bytes are copied as
// they are (the caller knows them to be valid UTF-8).
func Unescape(dst, raw []byte) []byte {
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		k++
		switch raw[k] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := HexVal(raw[k+1:])
			k += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if k+6 < len(raw) && raw[k+1] == '\\' && raw[k+2] == 'u' {
					r2 = HexVal(raw[k+3:])
				}
				if dec := utf16.DecodeRune(r, r2); r2 >= 0 && dec != utf8.RuneError {
					r = dec
					k += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // " \ /
			dst = append(dst, raw[k])
		}
	}
	return dst
}

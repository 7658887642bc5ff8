// Package jsonvalue compares JSON documents as values: member order and
// insignificant white space aside, numbers compared exactly by value (1.0
// equals 1, 1e3 equals 1000; no float rounding), strings after unescaping.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Diff returns an empty what when a and b are the same JSON value, else the
// RFC 6901 JSON pointer of the first difference (in member-name order; "" is
// the root) and a short description of it. A parse error of either side is returned as err.
func Diff(a, b []byte) (pointer, what string, err error) {
	va, err := parse(a)
	if err != nil {
		return "", "", fmt.Errorf("first value: %w", err)
	}
	vb, err := parse(b)
	if err != nil {
		return "", "", fmt.Errorf("second value: %w", err)
	}
	p, w, same := diff(va, vb, "")
	if same {
		return "", "", nil
	}
	return p, w, nil
}

// Equal reports whether a and b are the same JSON value.
func Equal(a, b []byte) (bool, error) {
	_, w, err := Diff(a, b)
	return err == nil && w == "", err
}

func parse(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func esc(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func diff(a, b any, at string) (string, string, bool) {
	if kind(a) != kind(b) {
		return at, fmt.Sprintf("%s %s vs %s %s", kind(a), short(a), kind(b), short(b)), false
	}
	switch x := a.(type) {
	case nil:
		return "", "", true
	case bool:
		if x != b.(bool) {
			return at, fmt.Sprintf("%v vs %v", x, b), false
		}
	case string:
		if x != b.(string) {
			return at, fmt.Sprintf("%s vs %s", short(x), short(b)), false
		}
	case json.Number:
		ra, ok1 := new(big.Rat).SetString(x.String())
		rb, ok2 := new(big.Rat).SetString(b.(json.Number).String())
		if !ok1 || !ok2 || ra.Cmp(rb) != 0 {
			return at, fmt.Sprintf("%s vs %s", x, b), false
		}
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if p, w, same := diff(x[i], y[i], at+"/"+strconv.Itoa(i)); !same {
				return p, w, false
			}
		}
		if len(x) != len(y) {
			return at, fmt.Sprintf("array of %d items vs %d items", len(x), len(y)), false
		}
	case map[string]any:
		y := b.(map[string]any)
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			xv, inX := x[k]
			yv, inY := y[k]
			switch {
			case !inX:
				return at + "/" + esc(k), "member missing in the first value", false
			case !inY:
				return at + "/" + esc(k), "member missing in the second value", false
			}
			if p, w, same := diff(xv, yv, at+"/"+esc(k)); !same {
				return p, w, false
			}
		}
	}
	return "", "", true
}

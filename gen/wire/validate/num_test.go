package validate

import (
	"encoding/json"
	"math/big"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// TestDecimal checks the exact arithmetic of num.go against math/big on
// numbers big.Rat can still read.
func TestDecimal(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "0e5", "1", "-1", "1.0", "1.5", "10", "1e1", "1E+1", "100e-2", "0.001e3",
		"9007199254740991", "9007199254740992", "-9007199254740991", "1.000000000000000000001", "12345678901234567890123",
		"1e-7", "-2.5e-3", "7e300", "123.456e-1", "0.1", "0.10", "99999999999999999999e-19"}
	for _, a := range nums {
		da, ok := parseDecimal(a)
		if !ok {
			t.Fatalf("parseDecimal(%q) failed", a)
		}
		ra, _ := new(big.Rat).SetString(a)
		if got, want := da.isInt(), ra.IsInt(); got != want {
			t.Errorf("%s: isInt %v, big.Rat says %v", a, got, want)
		}
		for _, b := range nums {
			db, _ := parseDecimal(b)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := da.cmp(db), ra.Cmp(rb); got != want {
				t.Errorf("cmp(%s, %s) = %d, big.Rat says %d", a, b, got, want)
			}
		}
	}
	// Beyond big.Rat: exact by construction.
	for _, c := range []struct {
		n   string
		int bool
	}{
		{"1e99999999999999999999", true}, {"-1.5e99999999999999999999", true}, {"1e-99999999999999999999", false},
		{"0e-99999999999999999999", true}, {"1" + strings.Repeat("0", 5000), true}, {"1" + strings.Repeat("0", 5000) + ".5", false},
		{"1e1000000000", true}, {"25e-1", false},
	} {
		if got := numIsInteger(json.Number(c.n)); got != c.int {
			t.Errorf("numIsInteger(%.40s) = %v", c.n, got)
		}
	}
	big1, _ := parseDecimal("1e99999999999999999999")
	big2, _ := parseDecimal("1e99999999999999999998")
	max, _ := parseDecimal("9007199254740991")
	if big1.cmp(big2) != 1 || big2.cmp(big1) != -1 || big1.cmp(big1) != 0 || big1.cmp(max) != 1 {
		t.Errorf("saturated exponents compare wrong")
	}
	if !numEqual("1e2", "100") || numEqual("1e99999999999999999999", "1e99999999999999999998") {
		t.Errorf("numEqual")
	}
}

// TestSurrogates: a surrogate is short, not tame (so it equals no tame
// number of the value) and judged like the number it
// stands for against the schema's bounds and integer-ness.
func TestSurrogates(t *testing.T) {
	bounds := []string{"0", "1", "-1", "9007199254740991", "-9007199254740991", "0.5", "1e300", "-1e-300"}
	for _, n := range []string{"1e99999999999999999999", "-1e99999999999999999999", "1.5e1000000", "1e-99999999999999999999",
		"-1e-5000", "1" + strings.Repeat("0", 3000) + ".5", "0." + strings.Repeat("3", 4000), "-7." + strings.Repeat("9", 3000) + "1",
		"1" + strings.Repeat("7", 3000), "0e99999999999999999999", "-0.0e10000000000000000000", "0e5000"} {
		d, _ := parseDecimal(n)
		var ss surrogates
		s := ss.surrogate(n, d)
		if len(s) > tameDigits+tameExp+64 || (tame(s) && !d.isZero()) {
			// Cheap for big.Rat, and apart from every tame number.
			t.Errorf("surrogate of %.30s…: %.60s (%d characters)", n, s, len(s))
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("big.Rat cannot read the surrogate %.60s", s)
		}
		if r.IsInt() != d.isInt() {
			t.Errorf("%.30s…: integer %v, surrogate %v", n, d.isInt(), r.IsInt())
		}
		for _, b := range bounds {
			db, _ := parseDecimal(b)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := r.Cmp(rb), d.cmp(db); got != want {
				t.Errorf("%.30s… vs %s: surrogate compares %d, the number %d", n, b, got, want)
			}
		}
	}
}

// TestHugeNumbers: the frames of the issue (a huge exponent where an
// integer is checked) no longer panic inside the library, and get the
// verdict JSON Schema gives them.
func TestHugeNumbers(t *testing.T) {
	v := shipped(t, Options{})
	huge := "1e99999999999999999999"
	cases := []struct {
		frames []string
		want   string
	}{
		// An integer id (JsonRpcId allows any integer): valid.
		{[]string{`{"jsonrpc":"2.0","id":` + huge + `,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m"}}`, initRes(huge)}, ""},
		{[]string{`{"jsonrpc":"2.0","id":1e-99999999999999999999,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m"}}`}, "1:envelope.id:error 1:request.unanswered:info"},
		// maxTokens: an integer above the maximum 2^53-1.
		{[]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m","maxTokens":` + huge + `}}`, errRes("1")}, "1:params.schema:error"},
		{[]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m","maxTokens":12` + strings.Repeat("0", 100000) + `}}`, initRes("1")}, "1:params.schema:error"},
		// error.code: any integer.
		{[]string{initReq("1"), `{"jsonrpc":"2.0","id":1,"error":{"code":` + huge + `,"message":"x"}}`}, ""},
		{[]string{initReq("1"), `{"jsonrpc":"2.0","id":1,"error":{"code":1.5e-99999999999999999999,"message":"x"}}`}, "2:error.schema:error"},
	}
	for i, c := range cases {
		got := rulesOf(feedSteps(v, true, stepsOf(c.frames)))
		if got != c.want {
			t.Errorf("case %d: got %q, want %q", i, got, c.want)
		}
	}
	// The message names the number as it was sent.
	fs := feedSteps(v, false, stepsOf([]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"cwd":"/w","provider":"deepseek-official","model":"m","maxTokens":-` + huge + `}}`}))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "-"+huge) {
		t.Errorf("message: %s", dumpFindings(fs))
	}
}

func stepsOf(frames []string) []step {
	var out []step
	for _, f := range frames {
		out = append(out, step{"", f})
	}
	return out
}

// numTemplate is a frame with one number position marked.
type numTemplate struct {
	pre   []string // frames fed before (the request a response answers)
	frame string   // with numMark where the number goes
	where string
}

const numMark = `"\u0000num\u0000"`

var (
	numOnce      sync.Once
	numTemplates []numTemplate
)

// numberTemplates returns one template per number position of the shipped
// protocol's frames: every number in every frame of the real captures
// (seq, turn, step, time, token counts, maxTokens …; one per method, event
// type and pointer with array indices folded), every id of a request or a
// response, and error.code.
func numberTemplates(t testing.TB) []numTemplate {
	numOnce.Do(func() {
		seen := map[string]bool{}
		add := func(pre []string, obj map[string]any, key string) {
			if seen[key] {
				return
			}
			seen[key] = true
			b, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			numTemplates = append(numTemplates, numTemplate{pre: pre, frame: string(b), where: key})
		}
		var frames []string
		for _, sc := range []string{"text-turn", "bash-tool", "subagent", "parallel-sessions", "stdin-eof-idle", "unknown-method", "invalid-max-tokens"} {
			for _, r := range loadCapture(t, sc) {
				frames = append(frames, string(r.payload))
			}
		}
		frames = append(frames, initReq(`"r1"`), initRes(`"r1"`), errRes(`"r1"`))
		var lastReq string
		for _, f := range frames {
			val, ok := fastDecode([]byte(f))
			obj, isObj := val.(map[string]any)
			if !ok || !isObj {
				continue
			}
			method, _ := obj["method"].(string)
			_, hasID := obj["id"]
			kind := method
			if kind == "" {
				kind = "response"
			}
			var pre []string
			if method == "" && lastReq != "" {
				pre = []string{lastReq}
			}
			if method != "" && hasID {
				lastReq = f
			}
			if ev, ok := lookup(obj, "/params/event/type"); ok {
				kind += "/" + jsonText(ev)
			}
			var walk func(x any, ptr string, set func(any))
			walk = func(x any, ptr string, set func(any)) {
				switch y := x.(type) {
				case json.Number:
					set(json.RawMessage(numMark))
					key := kind + " " + ptr
					if strings.HasPrefix(ptr, "/params/event/") && !strings.HasPrefix(ptr, "/params/event/data/") {
						key = "session.event " + ptr // the envelope of every event type
					}
					add(pre, obj, key)
					set(y)
				case map[string]any:
					for _, k := range sortedKeys(y) {
						if ptr == "" && k == "id" {
							continue
						}
						e := y[k]
						walk(e, ptr+"/"+k, func(v any) { y[k] = v })
					}
				case []any:
					for i := range y {
						walk(y[i], ptr+"/*", func(v any) { y[i] = v })
					}
				}
			}
			walk(obj, "", nil)
			if hasID && method != "" {
				// The request's id; its response follows in the same stream.
				id := obj["id"]
				obj["id"] = json.RawMessage(numMark)
				add(nil, obj, kind+" /id")
				obj["id"] = id
			}
		}
		// The response's id, paired with a request of that id.
		numTemplates = append(numTemplates,
			numTemplate{pre: []string{strings.Replace(initReq(`1`), `"id":1`, `"id":`+numMark, 1)}, frame: strings.Replace(initRes(`1`), `"id":1`, `"id":`+numMark, 1), where: "response /id"},
			numTemplate{pre: []string{initReq(`1`)}, frame: `{"jsonrpc":"2.0","id":1,"error":{"code":` + numMark + `,"message":"boom"}}`, where: "error /error/code"},
		)
		sort.SliceStable(numTemplates, func(i, j int) bool { return numTemplates[i].where < numTemplates[j].where })
	})
	return numTemplates
}

// FuzzNumbers puts one JSON number (the fuzzer's) into every number
// position of the shipped protocol's frames (numberTemplates: ids,
// error.code, maxTokens, seq, turn, step, time, token counts …) and checks
// that validating never panics, that the fast check and the library (on
// the tamed value) agree on every value, that no surrogate shows in a
// message. On the code
// before num.go it finds the big.Rat panic from the seed "1e5" within
// seconds (an exponent the library's big.Rat cannot read).
//
//	go test -run XXX -fuzz FuzzNumbers -fuzztime 10m -parallel 1 ./gen/wire/validate/
func FuzzNumbers(f *testing.F) {
	for _, s := range []string{"0", "1", "-1", "1e5", "1.5", "1E+2", "-0.0e-7", "9007199254740991", "9007199254740992",
		"0e10000000000000000000", "1e20", // found on the code before num.go (a panic; an inexact integer check)
		"123456789012345678901234567890", "0.000001", "2.0", "1e-5"} {
		f.Add(s)
	}
	v := shipped(f, Options{})
	tpls := numberTemplates(f)
	if len(tpls) < 30 {
		f.Fatalf("only %d number positions", len(tpls))
	}
	f.Fuzz(func(t *testing.T, num string) {
		if len(num) > 1<<16 {
			return
		}
		if val, ok := fastDecode([]byte(num)); !ok {
			return
		} else if _, isNum := val.(json.Number); !isNum {
			return
		}
		num = strings.TrimSpace(num)
		for _, tp := range tpls {
			frame := strings.ReplaceAll(tp.frame, numMark, num)
			var lines []string
			for _, p := range tp.pre {
				lines = append(lines, strings.ReplaceAll(p, numMark, num))
			}
			lines = append(lines, frame)
			s := v.NewStream(StreamConfig{Name: "n", Both: true})
			var dirs []ir.Direction
			for range lines {
				dirs = append(dirs, "")
			}
			fs := feedLines(s, dirs, lines...)
			for _, fd := range fs {
				if strings.Contains(fd.Message, "1000001") && !strings.Contains(num, "1000001") {
					t.Fatalf("%s: a surrogate in the message: %s", tp.where, fd.Message)
				}
				if fd.Rule == RuleFrameJSON {
					t.Fatalf("%s: the frame does not decode: %s", tp.where, fd.Message)
				}
			}
			checkFastAgainstLibrary(t, v, tp.where, frame)
		}
	})
}

// checkFastAgainstLibrary checks every typed value of a frame with the
// fast check and with the library (numbers tamed) and fails when their
// verdicts differ.
func checkFastAgainstLibrary(t *testing.T, v *Validator, where, frame string) {
	val, ok := fastDecode([]byte(frame))
	obj, _ := val.(map[string]any)
	if !ok || obj == nil {
		t.Fatalf("%s: not an object", where)
	}
	type check struct {
		t *ir.Type
		x any
	}
	var cs []check
	if id, has := obj["id"]; has && v.idType != nil {
		cs = append(cs, check{v.idType, id})
	}
	if m := v.methods[jsonStr(obj["method"])]; m != nil && m.Params != nil {
		if p, has := obj["params"]; has {
			cs = append(cs, check{m.Params, p})
		}
		if ev, has := lookup(obj, "/params/event"); has {
			// The library is slow on the 49-branch SessionEvent union:
			// compare on the branch the tag selects instead.
			cs = cs[:len(cs)-1]
			if u := v.model.TypeByName("SessionEvent"); u != nil && u.Union != nil {
				tag, _ := lookup(ev, "/"+u.Union.Tag)
				for _, x := range u.Union.Variants {
					if x.TagValue == tag && x.Type != nil {
						cs = append(cs, check{x.Type, ev})
					}
				}
			}
		}
	}
	if e, has := obj["error"]; has && v.errType != nil {
		cs = append(cs, check{v.errType, e})
	}
	for _, c := range cs {
		fv := v.fast[c.t.Pointer].check(c.x, 0, nil)
		if fv == unknown {
			continue
		}
		sch, err := v.schemaAt(c.t.Pointer)
		if err != nil {
			t.Fatal(err)
		}
		lib := len(v.libraryIssues(sch, c.x)) == 0
		if lib != (fv == accept) {
			t.Fatalf("%s: %s: fast check says %v, the library %v", where, c.t.Name, fv == accept, lib)
		}
	}
}

func jsonStr(x any) string { s, _ := x.(string); return s }

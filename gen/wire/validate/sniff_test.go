package validate

import (
	"bytes"
	"reflect"
	"testing"
)

// threeWays returns validators for the shipped schema that take the three
// ways a frame can be checked: the quick path and the byte plan (the
// default), every frame decoded (plan off), and every value through the
// validation library (fast check off).
func threeWays(t testing.TB) map[string]*Validator {
	quick := shipped(t, Options{})
	planOff := shipped(t, Options{})
	planOff.noPlan = true
	library := shipped(t, Options{})
	library.fast = nil
	return map[string]*Validator{"quick": quick, "plan off": planOff, "library": library}
}

// sameThreeWays validates data (NDJSON, --direction auto, one worker) with
// each of threeWays and fails unless the three Results are equal; it
// returns the quick path's.
func sameThreeWays(t *testing.T, vs map[string]*Validator, data []byte) Result {
	t.Helper()
	var want Result
	for _, name := range []string{"quick", "plan off", "library"} {
		got, err := vs[name].ValidateReader(bytes.NewReader(data), Input{Name: "in", Workers: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "quick" {
			want = got
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s (mixed %v) differs from the quick path (mixed %v):\n%s\nquick path:\n%s", name, got.Mixed, want.Mixed, dumpFindings(got.Findings), dumpFindings(want.Findings))
		}
	}
	return want
}

// TestAutoDirectionSniff: --direction auto reads the head of an NDJSON
// input to tell a mixed file (both sides) from a one-direction one
// (looksMixed). It must read each head frame as the stream then checks it
// (prep), whichever way the frame is checked: a frame that is not valid
// UTF-8 is checked with U+FFFD in place of the bad bytes, so its id pairs
// with a response holding U+FFFD (or other bad bytes) there, whether the
// frame is plain (the byte path) or not (decoded); a byte order mark at
// the start of a later line is not part of the frame. Each input is
// checked the three ways (threeWays) with the same findings, and the sniff
// must call it mixed or not as want says (a mixed file checks the result
// against the request's method: result.schema on line 2).
func TestAutoDirectionSniff(t *testing.T) {
	vs := threeWays(t)
	errResp := "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"error\":{\"code\":-32603,\"message\":\"x\"}}\n"
	for _, tc := range []struct {
		name  string
		in    string
		mixed bool
		rule  string // a finding of line 2 that only a mixed stream gives
	}{
		{"plain request, id not UTF-8; error response",
			"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"shutdown\"}\n" + errResp, true, ""},
		{"escaped member name (decoded), id not UTF-8; error response",
			"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"\\u006dethod\":\"shutdown\"}\n" + errResp, true, ""},
		{"plain request, id not UTF-8; plain response",
			"{\"jsonrpc\":\"2.0\",\"id\":\"\xfe\",\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":5}\n", true, RuleResult},
		{"request id U+FFFD; response id not UTF-8",
			"{\"jsonrpc\":\"2.0\",\"id\":\"\uFFFD\",\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":5}\n", true, RuleResult},
		{"request id not UTF-8; response id U+FFFD",
			"{\"jsonrpc\":\"2.0\",\"id\":\"a\xc0\",\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"a\uFFFD\",\"result\":5}\n", true, RuleResult},
		{"params not UTF-8",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\",\"params\":{\"x\":\"\xff\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":5}\n", true, RuleResult},
		{"byte order mark at the start of line 2",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\n\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":5}\n", true, RuleResult},
		{"byte order marks of the stream and of line 1",
			"\xef\xbb\xbf\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":5}\n", false, ""},
		{"server notification not UTF-8, then a client request",
			"{\"jsonrpc\":\"2.0\",\"method\":\"session.status\",\"params\":{\"sessionId\":\"\xff\",\"status\":\"idle\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\n", true, ""},
		{"method name not UTF-8 (unknown either way)",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shut\xffdown\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"session.status\",\"params\":{\"sessionId\":\"s\",\"status\":\"idle\"}}\n", false, ""},
		{"one direction, id not UTF-8",
			"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"\xfe\",\"method\":\"shutdown\"}\n", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := sameThreeWays(t, vs, []byte(tc.in))
			if res.Mixed != tc.mixed {
				t.Errorf("mixed %v, want %v:\n%s", res.Mixed, tc.mixed, dumpFindings(res.Findings))
			}
			if tc.rule == "" {
				return
			}
			for _, f := range res.Findings {
				if f.Line == 2 && f.Rule == tc.rule {
					return
				}
			}
			t.Errorf("no %s finding on line 2:\n%s", tc.rule, dumpFindings(res.Findings))
		})
	}
}

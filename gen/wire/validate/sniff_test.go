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

// sameThreeWays validates data (NDJSON as in says, one worker) with each
// of threeWays and fails unless the three Results are equal; it returns
// the quick path's.
func sameThreeWays(t *testing.T, vs map[string]*Validator, data []byte, in Input) Result {
	t.Helper()
	in.Name, in.Workers = "in", 1
	var want Result
	for _, name := range []string{"quick", "plan off", "library"} {
		got, err := vs[name].ValidateReader(bytes.NewReader(data), in)
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
			res := sameThreeWays(t, vs, []byte(tc.in), Input{})
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

// TestIDPairsByValue: a numeric id is the number's value, not its
// spelling. 1.0, 1e0 and 10E-1 are the integer 1 (JSON Schema's integer;
// one number to JSON.parse and to Python's json, so the peers pair them),
// -0 is 0, 1e400 and 10e399 are one (beyond maxKeyBytes zeros, kept
// short), 1.5 and 15e-1 one (not a JsonRpcId: envelope.id). Each
// response pairs with its request (no response.unknown-id, no
// request.unanswered); a request reusing an in-flight id spelled
// differently is a request.duplicate-id. The same the three ways, mixed
// file and --direction auto (the sniff pairs the same way).
func TestIDPairsByValue(t *testing.T) {
	vs := threeWays(t)
	pairs := [][2]string{{"1", "1.0"}, {"2e0", "2"}, {"30E-1", "3"}, {"0", "-0"}, {"-0", "0.0e5"}, {"-7", "-70e-1"},
		{"1e400", "10e399"}, {"123456789012345678901234567890", "1.2345678901234567890123456789e29"}, {"1.5", "15e-1"}}
	for _, in := range []Input{{Both: true}, {}} {
		for _, p := range pairs {
			data := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"0.0.1","cwd":"/","provider":"p","model":"m"}}` + "\n" +
				`{"jsonrpc":"2.0","id":` + p[0] + `,"method":"shutdown"}` + "\n" +
				`{"jsonrpc":"2.0","id":` + p[1] + `,"result":{}}` + "\n"
			res := sameThreeWays(t, vs, []byte(data), in)
			for _, f := range res.Findings {
				if f.Line == 3 && f.Rule != RuleEnvID || f.Rule == RuleRequestUnanswered && f.Line == 2 {
					t.Errorf("%+v, ids %s and %s: %s", in, p[0], p[1], TextLine(&f))
				}
			}
			dup := `{"jsonrpc":"2.0","id":` + p[0] + `,"method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","id":` + p[1] + `,"method":"shutdown"}` + "\n"
			res = sameThreeWays(t, vs, []byte(dup), Input{Both: true})
			found := false
			for _, f := range res.Findings {
				found = found || f.Line == 2 && f.Rule == RuleRequestDuplicate
			}
			if !found {
				t.Errorf("requests with ids %s and %s in flight together: no %s:\n%s", p[0], p[1], RuleRequestDuplicate, dumpFindings(res.Findings))
			}
		}
	}
}

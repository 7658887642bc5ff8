package validate_test

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// Fuzz target for the validator (issue 9). Seeds are in
// testdata/fuzz/FuzzValidate/ (real frames and captures from
// ../shared/fixtures, the frame cases 15 and 18); `go test` runs them as
// regression tests.
//
//	go test -run XXX -fuzz FuzzValidate -fuzztime 10m ./gen/wire/validate/

var (
	fuzzOnce sync.Once
	fuzzV    *validate.Validator
	fuzzErr  error
)

func fuzzValidator(t testing.TB) *validate.Validator {
	fuzzOnce.Do(func() {
		m, err := ir.LoadBytes(schema.FileName, schema.Bytes())
		if err != nil {
			fuzzErr = err
			return
		}
		fuzzV, fuzzErr = validate.New(m, validate.Options{})
	})
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzV
}

// FuzzValidate runs arbitrary bytes through the validator as an NDJSON
// stream (one direction, inferred), a mixed stream (both directions), lines
// of one type (--type SessionEvent), or lines fed one by one to a Stream
// with Stream.FeedRaw as the live proxy does (directions chosen by the
// fuzzer), with an arbitrary frame limit,
// and checks that it never panics and that the findings are well formed:
//   - a known rule id and a severity of error, warning or info,
//   - a one-line, non-empty message; a pointer that is "" or starts with "/",
//   - a line number and byte offset inside the input, a frame index no
//     larger than the frame count,
//   - sorted, and the same findings on a second run (deterministic),
//   - every non-blank line of an NDJSON input that is not valid UTF-8 (and
//     not over the limit) gets a frame.utf8 finding: bad bytes are reported,
//     never silently replaced.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		``, "\n", `{}`, `[]`, `null`, `{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"x\xff\"}",
		"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\r\n",
		"C->S\t0\t{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\nS->C\t1\t{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		for mode := uint8(0); mode < 4; mode++ {
			f.Add([]byte(s), mode, uint8(0))
		}
	}
	v := fuzzValidator(f)
	f.Fuzz(func(t *testing.T, data []byte, mode, mb uint8) {
		max := int64(0)
		if mb != 0 {
			max = int64(mb) * 8
		}
		run := func() (validate.Result, error) {
			in := validate.Input{Name: "fuzz", MaxFrameBytes: max}
			switch mode % 4 {
			case 3:
				return feedRaw(v, data, mode), nil
			case 1:
				in.Both = true
				return v.ValidateReader(bytes.NewReader(data), in)
			case 2:
				return v.ValidateValues(bytes.NewReader(data), "SessionEvent", in)
			}
			return v.ValidateReader(bytes.NewReader(data), in)
		}
		res, err := run()
		if err != nil {
			t.Fatalf("error from an in-memory reader: %v", err)
		}
		checkFindings(t, data, res)
		again, _ := run()
		if !reflect.DeepEqual(res, again) {
			t.Fatalf("two runs over the same input differ:\n%v\n%v", res.Findings, again.Findings)
		}
		if !res.Capture && mode%4 != 3 {
			checkUTF8Reported(t, data, max, res)
		}
		if mode%4 == 3 {
			checkUTF8Raw(t, data, res)
		}
	})
}

// feedRaw splits data into lines and feeds them to one Both stream with
// FeedRaw, as dshgen tap does; the direction of line i is bit i%8 of mode
// (client-to-server for 0). Offsets are per direction, as in the tap.
func feedRaw(v *validate.Validator, data []byte, mode uint8) validate.Result {
	s := v.NewStream(validate.StreamConfig{Name: "fuzz", Both: true})
	var out []validate.Finding
	var off [2]int64
	var num [2]int
	for i := 0; len(data) > 0; i++ {
		d := int(mode>>(uint(i)%8)) & 1
		dir := ir.ClientToServer
		if d == 1 {
			dir = ir.ServerToClient
		}
		line, rest, terminated := data, []byte(nil), false
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			line, rest, terminated = data[:j], data[j+1:], true
		}
		num[d]++
		out = append(out, s.FeedRaw(dir, num[d], off[d], line, terminated)...)
		off[d] += int64(len(line))
		if terminated {
			off[d]++
		}
		data = rest
	}
	out = append(out, s.Close()...)
	validate.SortFindings(out)
	return validate.Result{Findings: out, Frames: s.Frames()}
}

func checkFindings(t *testing.T, data []byte, res validate.Result) {
	t.Helper()
	lines := bytes.Count(data, []byte("\n")) + 1
	for i, fd := range res.Findings {
		if _, ok := validate.RuleByID(fd.Rule); !ok {
			t.Errorf("finding %d: unknown rule %q: %+v", i, fd.Rule, fd)
		}
		switch fd.Severity {
		case validate.Error, validate.Warning, validate.Info:
		default:
			t.Errorf("finding %d: severity %q: %+v", i, fd.Severity, fd)
		}
		if fd.Stream != "fuzz" {
			t.Errorf("finding %d: stream %q", i, fd.Stream)
		}
		if fd.Message == "" || strings.ContainsAny(fd.Message, "\n\r") {
			t.Errorf("finding %d: message is not one line: %q", i, fd.Message)
		}
		if !utf8.ValidString(fd.Message) || !utf8.ValidString(fd.Pointer) {
			t.Errorf("finding %d: message or pointer is not valid UTF-8: %q %q", i, fd.Message, fd.Pointer)
		}
		if fd.Pointer != "" && !strings.HasPrefix(fd.Pointer, "/") {
			t.Errorf("finding %d: pointer %q", i, fd.Pointer)
		}
		if fd.Line < 0 || fd.Line > lines {
			t.Errorf("finding %d: line %d of an input of %d lines", i, fd.Line, lines)
		}
		if fd.Offset < 0 || fd.Offset > int64(len(data)) {
			t.Errorf("finding %d: offset %d of an input of %d bytes", i, fd.Offset, len(data))
		}
		if fd.Frame < 0 || fd.Frame > res.Frames {
			t.Errorf("finding %d: frame %d of %d", i, fd.Frame, res.Frames)
		}
	}
	sorted := append([]validate.Finding(nil), res.Findings...)
	validate.SortFindings(sorted)
	if !reflect.DeepEqual(sorted, res.Findings) {
		t.Errorf("findings are not sorted")
	}
	if t.Failed() {
		t.FailNow()
	}
}

// checkUTF8Reported requires a frame.utf8 finding on every non-blank line
// with invalid UTF-8 that the reader kept (not over the limit).
func checkUTF8Reported(t *testing.T, data []byte, max int64, res validate.Result) {
	t.Helper()
	if max <= 0 {
		max = frame.DefaultMaxFrameBytes
	}
	got := map[int]bool{}
	for _, fd := range res.Findings {
		if fd.Rule == validate.RuleFrameUTF8 {
			got[fd.Line] = true
		}
	}
	r := frame.NewReaderSize(bytes.NewReader(data), max)
	for {
		l, err := r.Next()
		if err != nil {
			break
		}
		if l.TooLarge || l.Blank() || utf8.Valid(l.Bytes) {
			continue
		}
		if !got[l.Num] {
			t.Fatalf("line %d is not valid UTF-8 (%q) but has no %s finding: %v", l.Num, l.Bytes, validate.RuleFrameUTF8, res.Findings)
		}
	}
}

// checkUTF8Raw: with FeedRaw (no reader, no limit) every non-blank line
// that is not valid UTF-8 gets a frame.utf8 finding, by its line number in
// its direction; the findings are counted, as lines of the two directions
// share numbers.
func checkUTF8Raw(t *testing.T, data []byte, res validate.Result) {
	t.Helper()
	want := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		l := frame.Line{Bytes: bytes.TrimSuffix(line, []byte("\r"))}
		if !l.Blank() && !utf8.Valid(line) {
			want++
		}
	}
	got := 0
	for _, fd := range res.Findings {
		if fd.Rule == validate.RuleFrameUTF8 {
			got++
		}
	}
	if got != want {
		t.Fatalf("%d lines are not valid UTF-8, %d frame.utf8 findings: %v", want, got, res.Findings)
	}
}

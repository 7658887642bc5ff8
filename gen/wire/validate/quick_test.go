package validate

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
)

// TestQuickAllocs pins the allocations of a valid frame. Every frame of
// the clean real captures (both directions) takes the quick path, and
// checking it there (prep: envelope, method table, params and id by the
// byte plan, the rule sets' view of the params) allocates nothing. A whole
// stream (ValidateReader over the 1 MB benchmark corpus, one worker:
// reading, prep, pairing, rule sets, findings) allocates at most
// maxAllocsPerFrame per frame on average: what is left is the rule sets'
// state (a new session's entry, a tool call's), not the frames.
func TestQuickAllocs(t *testing.T) {
	const maxAllocsPerFrame = 0.5
	v := shipped(t, Options{})
	s := v.NewStream(StreamConfig{Name: "allocs", Both: true})
	n := 0
	for _, sc := range cleanScenarios {
		for i, r := range loadCapture(t, sc) {
			dir := ir.ClientToServer
			if r.dir == "S->C" {
				dir = ir.ServerToClient
			}
			l := frame.Line{Num: i + 1, Bytes: r.payload, LF: true, Size: int64(len(r.payload))}
			var p prepared
			s.prep(&p, dir, &l)
			if !p.quick || len(p.c.out) > 0 || len(p.held) > 0 {
				t.Errorf("%s line %d: not checked by the quick path (findings %v %v): %s", sc, i+1, p.c.out, p.held, r.payload)
				continue
			}
			if a := testing.AllocsPerRun(5, func() { s.prep(&p, dir, &l) }); a != 0 {
				t.Errorf("%s line %d: %v allocations to check a valid frame: %s", sc, i+1, a, r.payload)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no frames")
	}

	t.Setenv("DSHGEN_BENCH_MB", "1")
	data, frames := benchCorpus(t)
	allocs := func(data []byte, frames int) float64 {
		var res Result
		a := testing.AllocsPerRun(2, func() {
			var err error
			if res, err = v.ValidateReader(bytes.NewReader(data), Input{Name: "corpus", Workers: 1}); err != nil {
				t.Fatal(err)
			}
		})
		if len(res.Findings) != 0 || res.Frames != frames {
			t.Fatalf("corpus: %d frames of %d, %d findings", res.Frames, frames, len(res.Findings))
		}
		return a
	}
	// The stream's own cost (buffers, tables) is that of its first frame.
	fixed := allocs(data[:bytes.IndexByte(data, '\n')+1], 1)
	a := allocs(data, frames)
	if per := (a - fixed) / float64(frames-1); per > maxAllocsPerFrame {
		t.Errorf("a stream of %d valid frames: %.0f allocations (%.0f for the first), %.2f per further frame (at most %v)", frames, a, fixed, per, maxAllocsPerFrame)
	} else {
		t.Logf("a stream of %d valid frames: %.0f allocations (%.0f for the first), %.3f per further frame", frames, a, fixed, per)
	}
}

// FuzzQuick: any NDJSON stream gives the same findings with the quick
// path and the byte plan as with every frame decoded and checked by the
// fast check and the library (noPlan), one direction, both and
// --direction auto (whose sniff reads plain frames from their bytes too).
//
//	go test -run XXX -fuzz FuzzQuick -fuzztime 5m ./gen/wire/validate/
func FuzzQuick(f *testing.F) {
	v := shipped(f, Options{})
	slow := shipped(f, Options{})
	slow.noPlan = true
	corpus := planCorpus(f)
	for i := 0; i+3 < len(corpus); i += 11 {
		f.Add(bytes.Join(corpus[i:i+3], []byte("\n")))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e2,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a\u0041","result":{}}`,
		`{"jsonrpc":"2.0","id":"x","result":{},"result":1}`,
		`{"jsonrpc":"2\u002e0","method":"session.status","params":{"sessionId":"s","status":"idle"}}`,
		`{"jsonrpc":"2.0","\u006dethod":"session.status","params":{"sessionId":"s","status":"idle"}}`,
		`{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle"},"extra":1}`,
		`{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"s","status":"idle"} x`,
		`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}},"sessionId":"t"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"shutdown\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"error\":{\"code\":-32603,\"message\":\"x\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}\n\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":5}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range []Input{
			{Direction: ir.ServerToClient}, // one direction
			{Both: true},                   // both
			{},                             // --direction auto (the sniff)
		} {
			in.Name, in.Workers = "fuzz", 1
			got, err1 := v.ValidateReader(bytes.NewReader(data), in)
			want, err2 := slow.ValidateReader(bytes.NewReader(data), in)
			if err1 != nil || err2 != nil {
				t.Fatalf("errors %v, %v", err1, err2)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v: quick path %d findings (mixed %v), decoded %d (mixed %v):\n%s\nwant:\n%s", in, len(got.Findings), got.Mixed, len(want.Findings), want.Mixed,
					dumpFindings(got.Findings), dumpFindings(want.Findings))
			}
		}
	})
}

package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/out/go/dshproto"
)

// deepContentParams is the params of the deepest frame TestDriversDeepValues
// sends through the bindings' own recursion: a session.event whose user
// message holds tool-result blocks nested inside each other's content to
// frame.MaxDepth (levels levels of ContentBlock).
func deepContentParams(levels int) []byte {
	return []byte(`{"sessionId":"","event":{"type":"user/message","seq":0,"time":0,"data":{"id":"x","role":"user","content":[` +
		strings.Repeat(`{"type":"tool-result","toolCallId":"","content":[`, levels) + strings.Repeat(`]}`, levels) +
		`],"source":{"kind":"user"}},"surfaceOp":"append"}}`)
}

// BenchmarkDeepContentBlock decodes (DecodeParams) and re-encodes
// (json.Marshal) the shipped schema's Go bindings' session.event params
// with ContentBlocks nested to frame.MaxDepth, as the Go conformance driver
// does: the cost of a recursive type at the depth limit. Numbers in
// gen/wire/conformance/README.md.
func BenchmarkDeepContentBlock(b *testing.B) {
	for _, levels := range []int{(frame.MaxDepth - 5) / 8, (frame.MaxDepth - 5) / 4, (frame.MaxDepth - 5) / 2} {
		raw := deepContentParams(levels)
		v, err := dshproto.DecodeParams("session.event", raw)
		if err != nil {
			b.Fatal(err)
		}
		if out, err := json.Marshal(v); err != nil || !bytes.Equal(out, raw) {
			b.Fatalf("%d levels: re-encodes differently (%v)", levels, err)
		}
		b.Run("decode/levels="+strconv.Itoa(levels), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := dshproto.DecodeParams("session.event", raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode/levels="+strconv.Itoa(levels), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVectorFrames decodes (DecodeParams) and re-encodes the params of
// every request and notification of testdata/conformance/valid.log with
// the shipped schema's Go bindings: the cost on ordinary, shallow frames.
func BenchmarkVectorFrames(b *testing.B) {
	valid, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "conformance", "valid.log"))
	if err != nil {
		b.Fatal(err)
	}
	type call struct {
		method string
		params json.RawMessage
	}
	var calls []call
	size := 0
	for _, l := range strings.Split(strings.TrimSpace(string(valid)), "\n") {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(l[strings.LastIndexByte(l, '\t')+1:]), &m) == nil && m.Method != "" && m.Params != nil {
			if _, err := dshproto.DecodeParams(m.Method, m.Params); err == nil {
				calls = append(calls, call{m.Method, m.Params})
				size += len(m.Params)
			}
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, c := range calls {
			v, err := dshproto.DecodeParams(c.method, c.params)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

package conformance

import (
	"bytes"
	"encoding/json"
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

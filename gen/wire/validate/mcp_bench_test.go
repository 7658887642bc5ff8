package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// mcpCorpus builds a capture of about DSHGEN_BENCH_MB megabytes (default
// 8) from the valid MCP 2025-11-25 frame suite (testdata/protocols, both
// directions), each repetition with its own request ids (so pairing,
// duplicate-id and cancellation stay valid and every frame is checked in
// full), and the validator for the unmodified published schema with the
// suite's overlay.
func mcpCorpus(tb testing.TB) (*Validator, []byte, int) {
	mb := 8
	if s := os.Getenv("DSHGEN_BENCH_MB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			mb = n
		}
	}
	root := moduleRoot(tb)
	suite := filepath.Join(root, "testdata", "protocols", "mcp-2025-11-25")
	schema := filepath.Join(root, "..", "shared", "protocols", "mcp", "2025-11-25", "schema.json")
	m, err := ir.LoadSource(ir.Source{Path: schema, Overlays: []string{filepath.Join(suite, "overlay.json")}})
	if err != nil {
		tb.Fatal(err)
	}
	v, err := New(m, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(suite, "frames", "valid", "*.log"))
	var src [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		src = append(src, raw)
	}
	if len(src) == 0 {
		tb.Fatal("no valid MCP frames")
	}
	ids := regexp.MustCompile(`"(id|requestId)":(-?\d+|"[^"]*")`)
	var b bytes.Buffer
	n := 0
	for k := 0; b.Len() < mb<<20; k++ {
		suffix := "-" + strconv.Itoa(k)
		for _, raw := range src {
			b.Write(ids.ReplaceAllFunc(raw, func(x []byte) []byte {
				sm := ids.FindSubmatch(x)
				val := sm[2]
				if val[0] == '"' {
					val = append(append(append([]byte(nil), val[:len(val)-1]...), suffix...), '"')
				} else {
					val = []byte(strconv.Quote(string(val) + suffix))
				}
				return append([]byte(`"`+string(sm[1])+`":`), val...)
			}))
			n += bytes.Count(raw, []byte("\n"))
		}
	}
	return v, b.Bytes(), n
}

func TestMCPBenchCorpusClean(t *testing.T) {
	t.Setenv("DSHGEN_BENCH_MB", "1")
	v, data, n := mcpCorpus(t)
	res := run(t, v, "mcp-corpus", data, Input{})
	if len(res.Findings) != 0 || res.Frames != n {
		t.Fatalf("corpus of %d frames: %d read, findings:\n%s", n, res.Frames, dumpFindings(res.Findings[:min(len(res.Findings), 20)]))
	}
}

// BenchmarkValidateMCP is BenchmarkValidate over MCP 2025-11-25 frames
// (both directions, the published schema): its MB/s against
// BenchmarkValidate's is the per-byte cost of a published protocol against
// the shipped one (README.md "Speed").
func BenchmarkValidateMCP(b *testing.B) {
	v, data, n := mcpCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := v.ValidateReader(bytes.NewReader(data), Input{Name: "mcp-corpus"})
		if err != nil || len(res.Findings) != 0 {
			b.Fatalf("%v, %d findings", err, len(res.Findings))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

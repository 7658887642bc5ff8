package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// benchCorpus builds an NDJSON corpus of about DSHGEN_BENCH_MB megabytes
// (default 8) from the real server-to-client frames of the clean
// scenarios, each repetition with its own session ids (so seq and turn
// numbering stay valid and every frame is checked in full).
func benchCorpus(tb testing.TB) ([]byte, int) {
	mb := 8
	if s := os.Getenv("DSHGEN_BENCH_MB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			mb = n
		}
	}
	var frames [][]byte
	for _, sc := range cleanScenarios {
		for _, r := range loadCapture(tb, sc) {
			if r.dir == "S->C" {
				frames = append(frames, r.payload)
			}
		}
	}
	re := regexp.MustCompile(`"(?:sessionId|childSessionId|parentSessionId|agentId)":"[^"]+"`)
	var b bytes.Buffer
	n := 0
	for k := 0; b.Len() < mb<<20; k++ {
		suffix := "-" + strconv.Itoa(k)
		for _, f := range frames {
			g := re.ReplaceAllFunc(f, func(m []byte) []byte {
				return append(append(append([]byte(nil), m[:len(m)-1]...), suffix...), '"')
			})
			b.Write(g)
			b.WriteByte('\n')
			n++
		}
	}
	return b.Bytes(), n
}

func TestBenchCorpusClean(t *testing.T) {
	t.Setenv("DSHGEN_BENCH_MB", "1")
	data, n := benchCorpus(t)
	v := shipped(t, Options{})
	res := run(t, v, "corpus", data, Input{})
	if len(res.Findings) != 0 || res.Frames != n {
		t.Fatalf("corpus of %d frames: %d read, findings:\n%s", n, res.Frames, dumpFindings(res.Findings[:min(len(res.Findings), 20)]))
	}
}

// benchWorkers is $DSHGEN_BENCH_WORKERS (default 0: GOMAXPROCS).
func benchWorkers() int {
	n, _ := strconv.Atoi(os.Getenv("DSHGEN_BENCH_WORKERS"))
	return n
}

func benchValidate(b *testing.B, v *Validator) {
	data, n := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu := cpuSeconds()
	for i := 0; i < b.N; i++ {
		res, err := v.ValidateReader(bytes.NewReader(data), Input{Name: "corpus", Workers: benchWorkers()})
		if err != nil || len(res.Findings) != 0 {
			b.Fatalf("%v, %d findings", err, len(res.Findings))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	if cpu = cpuSeconds() - cpu; cpu > 0 {
		// The process's CPU time (garbage collection included): the
		// steadier figure on a shared machine.
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu, "MB/cpu-s")
	}
}

// BenchmarkValidate is the whole validator (framing, envelope, fast check,
// walker for unknown tags, state rules) over real frames.
func BenchmarkValidate(b *testing.B) { benchValidate(b, shipped(b, Options{})) }

// BenchmarkValidateNoPlan is BenchmarkValidate with the byte plan off:
// every frame decoded in full, checked by the fast check on Go values.
func BenchmarkValidateNoPlan(b *testing.B) {
	v := shipped(b, Options{})
	v.noPlan = true
	benchValidate(b, v)
}

// BenchmarkValidateLibraryOnly is the same with the fast check off: every
// value goes through santhosh-tekuri/jsonschema/v5.
func BenchmarkValidateLibraryOnly(b *testing.B) {
	v := shipped(b, Options{})
	v.fast = nil
	benchValidate(b, v)
}

// BenchmarkDecodeOnly is the floor of any design that decodes each frame
// into map[string]any (encoding/json with UseNumber).
func BenchmarkDecodeOnly(b *testing.B) {
	data, n := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			d := json.NewDecoder(bytes.NewReader(line))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkJSONValid is the floor of a byte-scanning design.
func BenchmarkJSONValid(b *testing.B) {
	data, n := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				b.Fatal("invalid")
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// TestWriteBenchCorpus writes the benchmark corpus to $DSHGEN_BENCH_OUT
// (for bench/run.sh, which times the CLI and ajv on the same bytes).
func TestWriteBenchCorpus(t *testing.T) {
	out := os.Getenv("DSHGEN_BENCH_OUT")
	if out == "" {
		t.Skip("DSHGEN_BENCH_OUT not set")
	}
	data, _ := benchCorpus(t)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFastDecodeOnly is the validator's own single-pass decoder
// (decode.go) on the same corpus, for comparison with BenchmarkDecodeOnly.
func BenchmarkFastDecodeOnly(b *testing.B) {
	data, n := benchCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			if _, ok := fastDecode(line); !ok {
				b.Fatal("invalid")
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

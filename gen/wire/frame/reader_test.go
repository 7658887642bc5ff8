package frame

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, r *Reader) []Line {
	t.Helper()
	var out []Line
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if l.Bytes != nil {
			l.Bytes = append([]byte(nil), l.Bytes...)
		}
		out = append(out, l)
	}
}

type lineWant struct {
	num      int
	off      int64
	text     string
	size     int64
	lf, cr   bool
	bom      bool
	tooLarge bool
}

func check(t *testing.T, got []Line, want []lineWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Num != w.num || g.Offset != w.off || string(g.Bytes) != w.text || g.Size != w.size ||
			g.LF != w.lf || g.CR != w.cr || g.BOM != w.bom || g.TooLarge != w.tooLarge {
			t.Errorf("line %d: got {num %d off %d %q size %d lf %v cr %v bom %v big %v}, want %+v",
				i, g.Num, g.Offset, g.Bytes, g.Size, g.LF, g.CR, g.BOM, g.TooLarge, w)
		}
	}
}

func TestReaderBasics(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []lineWant
	}{
		{"empty", "", nil},
		{"one", "{}\n", []lineWant{{1, 0, "{}", 2, true, false, false, false}}},
		{"no final newline", "a\nbc", []lineWant{
			{1, 0, "a", 1, true, false, false, false},
			{2, 2, "bc", 2, false, false, false, false}}},
		{"crlf", "a\r\nb\r\n", []lineWant{
			{1, 0, "a", 1, true, true, false, false},
			{2, 3, "b", 1, true, true, false, false}}},
		{"lone cr stays", "a\rb\n", []lineWant{{1, 0, "a\rb", 3, true, false, false, false}}},
		{"cr at eof without lf stays", "a\r", []lineWant{{1, 0, "a\r", 2, false, false, false, false}}},
		{"blank lines counted", "a\n\n  \t\nb\n", []lineWant{
			{1, 0, "a", 1, true, false, false, false},
			{2, 2, "", 0, true, false, false, false},
			{3, 3, "  \t", 3, true, false, false, false},
			{4, 7, "b", 1, true, false, false, false}}},
		{"bom", "\xef\xbb\xbf{}\n{}\n", []lineWant{
			{1, 0, "{}", 2, true, false, true, false},
			{2, 6, "{}", 2, true, false, false, false}}},
		{"bom only", "\xef\xbb\xbf", []lineWant{{1, 0, "", 0, false, false, true, false}}},
		{"bom not at start is content", "a\n\xef\xbb\xbfb\n", []lineWant{
			{1, 0, "a", 1, true, false, false, false},
			{2, 2, "\xef\xbb\xbfb", 4, true, false, false, false}}},
		{"single newline", "\n", []lineWant{{1, 0, "", 0, true, false, false, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, readAll(t, NewReader(strings.NewReader(c.in))), c.want)
			// Same result when the input arrives one byte at a time.
			check(t, readAll(t, NewReader(iotest.OneByteReader(strings.NewReader(c.in)))), c.want)
		})
	}
}

func TestReaderLimit(t *testing.T) {
	long := strings.Repeat("x", 200000)
	in := "a\n" + long + "\r\n" + "b\n" + strings.Repeat("y", 10) + "\r\n" + strings.Repeat("z", 11)
	r := NewReaderSize(strings.NewReader(in), 10)
	got := readAll(t, r)
	check(t, got, []lineWant{
		{1, 0, "a", 1, true, false, false, false},
		{2, 2, "", 200000, true, true, false, true},
		{3, 200004, "b", 1, true, false, false, false},
		// exactly the limit, with a CR: not too large
		{4, 200006, "yyyyyyyyyy", 10, true, true, false, false},
		{5, 200018, "", 11, false, false, false, true},
	})
	if string(got[1].Head) != long[:headBytes] {
		t.Errorf("head of the long line: %q", got[1].Head)
	}
	if string(got[4].Head) != strings.Repeat("z", 11) {
		t.Errorf("head of the last line: %q", got[4].Head)
	}
}

// TestReaderMemoryBounded reads a 256 MiB line with a 1 MiB limit and checks
// that the heap does not grow with the line.
func TestReaderMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const n = 256 << 20
	src := io.MultiReader(&repeatReader{b: 'q', n: n}, strings.NewReader("\n{}\n"))
	r := NewReaderSize(src, 1<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if !l.TooLarge || l.Size != n {
		t.Fatalf("got TooLarge %v size %d", l.TooLarge, l.Size)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("allocated %d bytes reading one oversized line", grew)
	}
	l, err = r.Next()
	if err != nil || string(l.Bytes) != "{}" || l.Num != 2 || l.Offset != n+1 {
		t.Fatalf("line after the long one: %+v %v", l, err)
	}
}

type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	if len(p) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.b
	}
	r.n -= len(p)
	return len(p), nil
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	l, err := r.Next()
	if err != nil || string(l.Bytes) != "a" {
		t.Fatal(l, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("want boom, got %v", err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("sticky error: got %v", err)
	}
}

// TestReaderLines reassembles every input from its lines.
func TestReaderReassemble(t *testing.T) {
	for _, in := range []string{"", "a", "a\n", "\xef\xbb\xbfa\r\nb", "\n\n\r\n", "x\r"} {
		var buf bytes.Buffer
		r := NewReader(strings.NewReader(in))
		for _, l := range readAll(t, r) {
			if l.BOM {
				buf.Write(bom)
			}
			buf.Write(l.Bytes)
			if l.CR {
				buf.WriteByte('\r')
			}
			if l.LF {
				buf.WriteByte('\n')
			}
			if l.End() != int64(buf.Len()) {
				t.Errorf("%q: End %d, want %d", in, l.End(), buf.Len())
			}
		}
		if buf.String() != in {
			t.Errorf("reassembled %q, want %q", buf.String(), in)
		}
	}
}

// sharedDir returns ../shared relative to the module root.
func sharedDir(t testing.TB) string {
	t.Helper()
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			s := filepath.Join(d, "..", "shared")
			if _, err := os.Stat(s); err != nil {
				t.Skipf("no ../shared beside the module root: %v", err)
			}
			return s
		}
	}
	t.Skip("module root not found")
	return ""
}

// TestReaderCase15 reads the framing-edge files of case 15 byte-exactly.
func TestReaderCase15(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "cases", "15-crlf-bom-final-newline")
	want := map[string]struct {
		lines          int
		crs, bom, nolf bool
		blank          []int
	}{
		"frames-crlf.jsonl":             {3, true, false, false, nil},
		"frames-bom.jsonl":              {3, false, true, false, nil},
		"frames-no-final-newline.jsonl": {3, false, false, true, nil},
		"frames-blank-lines.jsonl":      {4, false, false, false, []int{2, 3}},
	}
	for name, w := range want {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := readAll(t, NewReader(bytes.NewReader(raw)))
		if len(lines) != w.lines {
			t.Fatalf("%s: %d lines", name, len(lines))
		}
		for i, l := range lines {
			if l.CR != w.crs {
				t.Errorf("%s line %d: CR %v", name, l.Num, l.CR)
			}
			if l.BOM != (w.bom && i == 0) {
				t.Errorf("%s line %d: BOM %v", name, l.Num, l.BOM)
			}
			if l.LF == (w.nolf && i == len(lines)-1) {
				t.Errorf("%s line %d: LF %v", name, l.Num, l.LF)
			}
			isBlank := false
			for _, b := range w.blank {
				isBlank = isBlank || b == l.Num
			}
			if l.Blank() != isBlank {
				t.Errorf("%s line %d: Blank %v", name, l.Num, l.Blank())
			}
			if !isBlank && (len(l.Bytes) == 0 || l.Bytes[0] != '{' || l.Bytes[len(l.Bytes)-1] != '}') {
				t.Errorf("%s line %d: not a clean frame: %q", name, l.Num, l.Bytes)
			}
		}
		if got := lines[len(lines)-1].End(); got != int64(len(raw)) {
			t.Errorf("%s: last End %d, file %d bytes", name, got, len(raw))
		}
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\xef\xbb\xbf{}\r\n", "\n\r\n\r", strings.Repeat("x", 40) + "\nab"} {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		r := NewReaderSize(iotest.HalfReader(bytes.NewReader(in)), int64(max)+1)
		var total int64
		num := 0
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			num++
			if l.Num != num || l.Offset != total {
				t.Fatalf("line %d at %d, want %d at %d", l.Num, l.Offset, num, total)
			}
			if l.TooLarge != (l.Size > int64(max)+1) || (!l.TooLarge && int64(len(l.Bytes)) != l.Size) {
				t.Fatalf("size %d, TooLarge %v, len %d", l.Size, l.TooLarge, len(l.Bytes))
			}
			total = l.End()
		}
		if total != int64(len(in)) {
			t.Fatalf("consumed %d of %d bytes", total, len(in))
		}
	})
}

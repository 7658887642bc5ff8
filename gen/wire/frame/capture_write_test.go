package frame

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// parseCaptureForTest splits a capture back into the two byte streams and
// the list of tags, checking the record syntax strictly.
func parseCaptureForTest(t *testing.T, capture []byte) (streams [2][]byte, tags []string) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(capture))
	for {
		rec, err := r.ReadBytes('\n')
		if err == io.EOF && len(rec) == 0 {
			return
		}
		if err != nil {
			t.Fatalf("capture ends without newline: %q", rec)
		}
		tag, rest, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			t.Fatalf("record without tab: %q", rec)
		}
		ms, body, ok := bytes.Cut(rest, []byte{'\t'})
		if !ok || len(ms) == 0 {
			t.Fatalf("record without time: %q", rec)
		}
		for _, c := range ms {
			if (c < '0' || c > '9') && c != '.' {
				t.Fatalf("bad time %q", ms)
			}
		}
		tags = append(tags, string(tag))
		base, suffix, _ := strings.Cut(string(tag), "(")
		d, err := captureDirIndex(base)
		if err != nil {
			t.Fatalf("bad tag %q", tag)
		}
		switch suffix {
		case "":
			streams[d] = append(streams[d], body...)
		case "no-newline)":
			streams[d] = append(streams[d], body[:len(body)-1]...)
		case "EOF)":
			if len(body) != 1 {
				t.Fatalf("EOF record with body %q", body)
			}
		default:
			t.Fatalf("bad tag %q", tag)
		}
	}
}

func TestCaptureWriterFixtureFormat(t *testing.T) {
	var buf bytes.Buffer
	c := NewCaptureWriter(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Write(CaptureClientToServer, 4*time.Millisecond+999*time.Microsecond, []byte("{\"a\":1}\n{\"b\"")))
	must(c.Write(CaptureServerToClient, 230*time.Millisecond, []byte("x\r\n\n")))
	must(c.Write(CaptureClientToServer, 231*time.Millisecond, []byte(":2}\ntail")))
	must(c.EOF(CaptureClientToServer, 313*time.Millisecond))
	must(c.EOF(CaptureServerToClient, 331*time.Millisecond))
	must(c.Flush())
	want := "C->S\t4\t{\"a\":1}\n" +
		"S->C\t230\tx\r\n" +
		"S->C\t230\t\n" +
		"C->S\t231\t{\"b\":2}\n" +
		"C->S(no-newline)\t313\ttail\n" +
		"C->S(EOF)\t313\t\n" +
		"S->C(EOF)\t331\t\n"
	if got := buf.String(); got != want {
		t.Errorf("capture:\n%q\nwant\n%q", got, want)
	}
	if err := c.Write(CaptureClientToServer, 0, []byte("x")); err != ErrCaptureEnded {
		t.Errorf("write after EOF: %v", err)
	}
	if err := c.Write("X", 0, nil); err != ErrCaptureDirection {
		t.Errorf("bad direction: %v", err)
	}
}

func TestCaptureWriterMsDecimals(t *testing.T) {
	for _, tc := range []struct {
		at   time.Duration
		dec  int
		want string
	}{
		{0, 0, "0"},
		{1500 * time.Microsecond, 0, "1"},
		{1500 * time.Microsecond, 3, "1.500"},
		{12*time.Millisecond + 34567*time.Nanosecond, 3, "12.034"},
		{12*time.Millisecond + 34567*time.Nanosecond, 6, "12.034567"},
		{-time.Second, 1, "0.0"},
	} {
		if got := string(AppendCaptureMs(nil, tc.at, tc.dec)); got != tc.want {
			t.Errorf("AppendCaptureMs(%v, %d) = %q, want %q", tc.at, tc.dec, got, tc.want)
		}
	}
}

// TestCaptureWriterMatchesFixtures rebuilds each real-capture interleaved.log
// from its two stream files plus the recorded order and times, and checks
// that the writer produces the same bytes.
func TestCaptureWriterMatchesFixtures(t *testing.T) {
	dirs, _ := filepath.Glob("../../../../shared/fixtures/real-captures/*/interleaved.log")
	if len(dirs) == 0 {
		t.Skip("../shared/fixtures/real-captures not present")
	}
	for _, logPath := range dirs {
		want, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		streams, _ := parseCaptureForTest(t, want)
		for i, name := range []string{"client-to-server.jsonl", "server-to-client.jsonl"} {
			raw, err := os.ReadFile(filepath.Join(filepath.Dir(logPath), name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, streams[i]) {
				t.Errorf("%s: %s differs from its interleaved.log", logPath, name)
			}
		}
		// Replay the records one line per Write.
		var buf bytes.Buffer
		c := NewCaptureWriter(&buf)
		for _, rec := range bytes.SplitAfter(want, []byte{'\n'}) {
			if len(rec) == 0 {
				continue
			}
			f := bytes.SplitN(rec, []byte{'\t'}, 3)
			var ms int64
			for _, d := range f[1] {
				ms = ms*10 + int64(d-'0')
			}
			at := time.Duration(ms) * time.Millisecond
			tag := string(f[0])
			if base, ok := strings.CutSuffix(tag, CaptureEOFSuffix); ok {
				c.EOF(base, at)
			} else {
				c.Write(tag, at, f[2])
			}
		}
		c.Flush()
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: writer output differs from the fixture", logPath)
		}
	}
}

// TestCaptureWriterRandomChunks feeds random streams (long lines, CR, empty
// lines, binary, no final newline) in random chunk sizes from both
// directions and parses the capture back to the same bytes.
func TestCaptureWriterRandomChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 30; iter++ {
		var src [2][]byte
		for d := range src {
			src[d] = captureRandomStream(rng, 1+rng.IntN(50))
		}
		var buf bytes.Buffer
		c := NewCaptureWriter(&buf)
		pos := [2]int{}
		at := time.Duration(0)
		for pos[0] < len(src[0]) || pos[1] < len(src[1]) {
			d := rng.IntN(2)
			if pos[d] >= len(src[d]) {
				d = 1 - d
			}
			n := 1 + rng.IntN(70000)
			if n > len(src[d])-pos[d] {
				n = len(src[d]) - pos[d]
			}
			at += time.Duration(rng.IntN(2000)) * time.Microsecond
			if err := c.Write([]string{CaptureClientToServer, CaptureServerToClient}[d], at, src[d][pos[d]:pos[d]+n]); err != nil {
				t.Fatal(err)
			}
			pos[d] += n
		}
		c.EOF(CaptureServerToClient, at)
		c.EOF(CaptureClientToServer, at)
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		got, tags := parseCaptureForTest(t, buf.Bytes())
		for d := range src {
			if !bytes.Equal(got[d], src[d]) {
				t.Fatalf("iter %d dir %d: round trip differs (%d vs %d bytes)", iter, d, len(got[d]), len(src[d]))
			}
		}
		if tags[len(tags)-1] != "C->S(EOF)" || !slices.Contains(tags, "S->C(EOF)") {
			t.Fatalf("EOF records missing: %v", tags[len(tags)-3:])
		}
	}
}

func captureRandomStream(rng *rand.Rand, lines int) []byte {
	var b []byte
	for i := 0; i < lines; i++ {
		switch rng.IntN(6) {
		case 0:
			// empty line
		case 1:
			b = append(b, '\r')
		case 2:
			n := rng.IntN(300000)
			for j := 0; j < n; j++ {
				b = append(b, byte('a'+j%26))
			}
		default:
			n := rng.IntN(200)
			for j := 0; j < n; j++ {
				c := byte(rng.IntN(256))
				if c == '\n' {
					c = 0xff
				}
				b = append(b, c)
			}
		}
		b = append(b, '\n')
	}
	if rng.IntN(2) == 0 {
		b = append(b, "tail\xff\x00"...)
	}
	return b
}

// TestCaptureWriterSpillsLongLines: a line longer than CaptureSpillBytes
// is held in a temporary file (unlinked at once) while the other
// direction's lines go on, and comes out as one record, byte for byte; a
// final fragment of such a line too.
func TestCaptureWriterSpillsLongLines(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	c := NewCaptureWriter(&buf)
	c.SpillDir = dir
	rng := rand.New(rand.NewPCG(3, 4))
	long := make([]byte, 3*CaptureSpillBytes+12345)
	for i := range long {
		long[i] = 'a' + byte(rng.IntN(26))
	}
	var want bytes.Buffer
	for off, i := 0, 0; off < len(long); i++ {
		n := min(100<<10, len(long)-off)
		if err := c.Write(CaptureServerToClient, 0, long[off:off+n]); err != nil {
			t.Fatal(err)
		}
		off += n
		short := fmt.Sprintf("{\"n\":%d}\n", i)
		if err := c.Write(CaptureClientToServer, 0, []byte(short)); err != nil {
			t.Fatal(err)
		}
		want.WriteString("C->S\t0\t" + short)
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("the spill file is visible: %v", ents)
		}
	}
	if err := c.Write(CaptureServerToClient, 0, []byte("\r\nnext")); err != nil {
		t.Fatal(err)
	}
	want.WriteString("S->C\t0\t" + string(long) + "\r\n")
	if err := c.Write(CaptureServerToClient, 0, long); err != nil { // a fragment that never ends
		t.Fatal(err)
	}
	if err := c.EOF(CaptureServerToClient, 0); err != nil {
		t.Fatal(err)
	}
	want.WriteString("S->C(no-newline)\t0\tnext" + string(long) + "\n")
	want.WriteString("S->C(EOF)\t0\t\n")
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want.Bytes()) {
		t.Fatalf("capture differs: %d bytes, want %d", buf.Len(), want.Len())
	}
}

package frame

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readCapture(t *testing.T, in string, max int64) ([]CaptureRecord, []error) {
	t.Helper()
	c := NewCaptureReader(strings.NewReader(in), max)
	var recs []CaptureRecord
	var errs []error
	for {
		r, err := c.Next()
		if err == io.EOF {
			return recs, errs
		}
		var fe *CaptureFormatError
		if errors.As(err, &fe) {
			errs = append(errs, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		r.Payload = append([]byte(nil), r.Payload...)
		recs = append(recs, r)
	}
}

func TestCaptureParse(t *testing.T) {
	in := "C->S\t5\t\xef\xbb\xbf{\"a\":1}\r\n" +
		"S->C\t7.25\t{}\n" +
		"C->S\t9\t\n" +
		"S->C(no-newline)\t10\t{\"x\"\n" +
		"S->C(EOF)\t11\t\n" +
		"C->S(EOF)\t12\t\n"
	recs, errs := readCapture(t, in, 0)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Dir != CaptureClientToServer || r.Millis != 5 || string(r.Payload) != `{"a":1}` || !r.CR || !r.BOM ||
		r.PayloadOffset != 7 || r.PayloadSize != 7 {
		t.Errorf("record 1: %+v", r)
	}
	fl := r.FrameLine()
	if fl.Num != 1 || fl.Offset != 7 || !fl.LF || !fl.CR || !fl.BOM || string(fl.Bytes) != `{"a":1}` {
		t.Errorf("frame line 1: %+v", fl)
	}
	if r := recs[1]; r.Dir != CaptureServerToClient || r.Millis != 7.25 || string(r.Payload) != "{}" || r.BOM || r.CR ||
		r.Line.Num != 2 || r.PayloadOffset != int64(len("C->S\t5\t\xef\xbb\xbf{\"a\":1}\r\n")+len("S->C\t7.25\t")) {
		t.Errorf("record 2: %+v", r)
	}
	if r := recs[2]; len(r.Payload) != 0 || r.EOF || r.PayloadSize != 0 {
		t.Errorf("record 3 (blank frame): %+v", r)
	}
	if r := recs[3]; !r.NoNewline || r.Dir != CaptureServerToClient || string(r.Payload) != `{"x"` || r.FrameLine().LF {
		t.Errorf("record 4: %+v", r)
	}
	if r := recs[4]; !r.EOF || r.Dir != CaptureServerToClient {
		t.Errorf("record 5: %+v", r)
	}
	if r := recs[5]; !r.EOF || r.Dir != CaptureClientToServer {
		t.Errorf("record 6: %+v", r)
	}
}

func TestCaptureBadLines(t *testing.T) {
	in := "C->S\t1\t{}\n" + "nonsense\n" + "X->Y\t1\t{}\n" + "C->S\tabc\t{}\n" + "C->S\t1\n" + "S->C(EOF)\t2\tjunk\n" + "S->C\t3\t{}\n"
	recs, errs := readCapture(t, in, 0)
	if len(recs) != 2 || len(errs) != 5 {
		t.Fatalf("%d records, %d errors: %v", len(recs), len(errs), errs)
	}
	var fe *CaptureFormatError
	if !errors.As(errs[0], &fe) || fe.Line != 2 || fe.Offset != 10 {
		t.Errorf("first error: %#v", errs[0])
	}
	if recs[1].Line.Num != 7 {
		t.Errorf("reading went on: %+v", recs[1])
	}
}

func TestCaptureTooLarge(t *testing.T) {
	big := strings.Repeat("x", 5000)
	in := "S->C\t1\t" + big + "\n" + "C->S\t2\t" + strings.Repeat("y", 100) + "\n" + "S->C\t3\t{}\n"
	recs, errs := readCapture(t, in, 100)
	if len(errs) != 0 || len(recs) != 3 {
		t.Fatal(recs, errs)
	}
	if r := recs[0]; !r.TooLarge || r.PayloadSize != 5000 || r.Dir != CaptureServerToClient || r.Payload != nil ||
		!strings.HasPrefix(big, string(r.Head)) || len(r.Head) == 0 {
		t.Errorf("record 1: %+v", r)
	}
	if r := recs[1]; r.TooLarge || r.PayloadSize != 100 {
		t.Errorf("record 2 at the limit: TooLarge %v size %d", r.TooLarge, r.PayloadSize)
	}
	// Within the prefix slack the line is read, but the payload is over the limit.
	in2 := "S->C\t1\t" + strings.Repeat("z", 101) + "\n"
	recs, _ = readCapture(t, in2, 100)
	if r := recs[0]; !r.TooLarge || r.PayloadSize != 101 || len(r.Head) != 101 {
		t.Errorf("slack record: %+v", r)
	}
}

func TestLooksLikeCapture(t *testing.T) {
	for s, want := range map[string]bool{
		"C->S\t5\t{}":           true,
		"S->C(EOF)\t824\t":      true,
		"S->C(no-newline)\t1\t": true,
		"\xef\xbb\xbfC->S\t0\t": true,
		`{"jsonrpc":"2.0"}`:     false,
		"C->S 5 {}":             false,
		"C->S\tx":               false,
		"":                      false,
	} {
		if got := LooksLikeCapture([]byte(s)); got != want {
			t.Errorf("LooksLikeCapture(%q) = %v", s, got)
		}
	}
}

// TestCaptureRealFixtures reads every real interleaved.log: each record is
// well-formed, and the frames of each direction, reassembled, equal that
// direction's .jsonl file byte for byte.
func TestCaptureRealFixtures(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(sharedDir(t), "fixtures", "real-captures", "*", "interleaved.log"))
	if len(dirs) == 0 {
		t.Skip("no captures")
	}
	for _, p := range dirs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !LooksLikeCapture(raw) {
			t.Errorf("%s: not detected as a capture", p)
		}
		recs, errs := readCapture(t, string(raw), 0)
		if len(errs) > 0 {
			t.Errorf("%s: %v", p, errs)
		}
		var streams [2]bytes.Buffer
		for _, r := range recs {
			if r.EOF {
				continue
			}
			i := 0
			if r.Dir == CaptureServerToClient {
				i = 1
			}
			b := &streams[i]
			b.Write(r.Payload)
			if r.CR {
				b.WriteByte('\r')
			}
			if !r.NoNewline {
				b.WriteByte('\n')
			}
			if got := string(raw[r.PayloadOffset : r.PayloadOffset+r.PayloadSize]); got != string(r.Payload) {
				t.Errorf("%s line %d: payload offset wrong", p, r.Line.Num)
			}
		}
		for i, name := range []string{"client-to-server.jsonl", "server-to-client.jsonl"} {
			want, err := os.ReadFile(filepath.Join(filepath.Dir(p), name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(streams[i].Bytes(), want) {
				t.Errorf("%s: %s differs from the capture's frames", p, name)
			}
		}
	}
}

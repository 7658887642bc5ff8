package ir

import (
	"bytes"
	"testing"
)

// TestSpool: a file put into a spool, or written into it, reads back as
// the same bytes with the same size and sha256; Remove deletes it.
func TestSpool(t *testing.T) {
	s := NewSpool()
	mem := File{Path: "python/p/types.py", Data: []byte("x = 1\n")}
	put, err := s.Put(mem)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Create()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("x = ")
	w.Write([]byte("1\n"))
	written, err := w.Close("python/p/types.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []File{put, written} {
		b, err := f.Bytes()
		if err != nil || !bytes.Equal(b, mem.Data) || f.Data != nil || f.Size() != 6 || f.SHA256() != mem.SHA256() || f.Path != mem.Path {
			t.Errorf("%+v: %q %v", f, b, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := put.Bytes(); err == nil {
		t.Error("a spooled file is still readable after Close")
	}
}

// TestTidyWriter: the stream form tidies exactly as TidyLines, whatever
// the chunks it is given.
func TestTidyWriter(t *testing.T) {
	for _, in := range []string{"", "\n\n", "a", "a\n", "\n\n a  \n\n\n\n\tb\t\n \n\nc", "x\n\n\ny\n\n\n\n\nz\n\n\n"} {
		for _, max := range []int{1, 2} {
			want := string(TidyLines([]byte(in), max))
			for chunk := 1; chunk <= len(in)+1; chunk++ {
				var b bytes.Buffer
				w := NewTidyWriter(&b, max)
				for i := 0; i < len(in); i += chunk {
					w.Write([]byte(in[i:min(i+chunk, len(in))]))
				}
				if err := w.Close(); err != nil || b.String() != want {
					t.Errorf("%q max %d in chunks of %d: %q, want %q (%v)", in, max, chunk, b.String(), want, err)
				}
			}
		}
	}
}

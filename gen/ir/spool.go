package ir

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
)

// Spooled is a generated file's bytes kept in a file on disk instead of in
// memory (see Spool).
type Spooled struct {
	f      *os.File // unlinked: its bytes go when it is closed or the process ends
	Size   int64
	SHA256 string // lowercase hex
}

// Open returns the file's bytes as a reader (from disk for a spooled file).
func (f File) Open() (io.ReadCloser, error) {
	if f.Spool != nil {
		return io.NopCloser(io.NewSectionReader(f.Spool.f, 0, f.Spool.Size)), nil
	}
	return io.NopCloser(bytes.NewReader(f.Data)), nil
}

// Bytes returns the file's bytes, read from disk for a spooled file.
func (f File) Bytes() ([]byte, error) {
	if f.Spool != nil {
		b := make([]byte, f.Spool.Size)
		_, err := io.ReadFull(io.NewSectionReader(f.Spool.f, 0, f.Spool.Size), b)
		return b, err
	}
	return f.Data, nil
}

// Size returns the number of bytes of the file.
func (f File) Size() int64 {
	if f.Spool != nil {
		return f.Spool.Size
	}
	return int64(len(f.Data))
}

// SHA256 returns the lowercase hex sha256 of the file's bytes.
func (f File) SHA256() string {
	if f.Spool != nil {
		return f.Spool.SHA256
	}
	s := sha256.Sum256(f.Data)
	return hex.EncodeToString(s[:])
}

// Spool holds generated files' bytes on disk while a generation too large
// to keep in memory runs (for a schema of B bytes the bindings are about
// 5 B: gen/emit/BENCH.md): a file is written into it as it is printed
// (Create) or once an emitter returns it (Put), and the output step copies
// it from there into place. Each file is created in the system's temporary
// directory ($TMPDIR) and unlinked at once: it has no name, nothing is
// left behind by a run that is killed, and Close (or the end of the
// process) frees it. Safe for concurrent use.
type Spool struct {
	mu    sync.Mutex
	files []*os.File
}

// NewSpool returns an empty spool.
func NewSpool() *Spool { return &Spool{} }

// Close frees every file of the spool; their Files must not be read after.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, f := range s.files {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	s.files = nil
	return err
}

// Discard frees one spooled file early (a part no longer needed).
func (s *Spool) Discard(f File) {
	if f.Spool == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, g := range s.files {
		if g == f.Spool.f {
			s.files = append(s.files[:i], s.files[i+1:]...)
			g.Close()
			return
		}
	}
}

// SpoolWriter is one file being written into a Spool: Write its bytes,
// then Close to get the File.
type SpoolWriter struct {
	f   *os.File
	w   *bufio.Writer
	h   hash.Hash
	n   int64
	err error
}

// Create starts a file in the spool (its generated path is given to
// Close).
func (s *Spool) Create() (*SpoolWriter, error) {
	f, err := os.CreateTemp("", "dshgen-spool-")
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("spool: %w", err)
	}
	s.mu.Lock()
	s.files = append(s.files, f)
	s.mu.Unlock()
	return &SpoolWriter{f: f, w: bufio.NewWriterSize(f, 256<<10), h: sha256.New()}, nil
}

// Write appends p to the file. An error sticks: Close reports it too.
func (w *SpoolWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.h.Write(p)
	n, err := w.w.Write(p)
	w.n += int64(n)
	w.err = err
	return n, err
}

// WriteString appends s to the file.
func (w *SpoolWriter) WriteString(s string) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	io.WriteString(w.h, s)
	n, err := w.w.WriteString(s)
	w.n += int64(n)
	w.err = err
	return n, err
}

// WriteByte appends c to the file.
func (w *SpoolWriter) WriteByte(c byte) error {
	_, err := w.Write([]byte{c})
	return err
}

// Close finishes the file and returns it as the File at path (the file
// stays open for reading until the spool is closed).
func (w *SpoolWriter) Close(path string) (File, error) {
	err := w.err
	if err == nil {
		err = w.w.Flush()
	}
	if err != nil {
		return File{}, fmt.Errorf("spool %s: %w", path, err)
	}
	return File{Path: path, Spool: &Spooled{f: w.f, Size: w.n, SHA256: hex.EncodeToString(w.h.Sum(nil))}}, nil
}

// Put moves a file's bytes from memory into the spool: the File returned
// has Spool set and no Data.
func (s *Spool) Put(f File) (File, error) {
	if f.Spool != nil {
		return f, nil
	}
	w, err := s.Create()
	if err != nil {
		return File{}, err
	}
	w.Write(f.Data)
	return w.Close(f.Path)
}

// CreateTidy prints a file into the spool through an ir.TidyWriter keeping
// at most maxBlank blank lines in a row (the bytes of TidyLines over what
// write writes): write is given the tidying writer; its error, or the
// spool's, is returned.
func (s *Spool) CreateTidy(path string, maxBlank int, write func(io.Writer) error) (File, error) {
	w, err := s.Create()
	if err != nil {
		return File{}, err
	}
	tw := NewTidyWriter(w, maxBlank)
	err = write(tw)
	if cerr := tw.Close(); err == nil {
		err = cerr
	}
	f, cerr := w.Close(path)
	if err == nil {
		err = cerr
	}
	if err != nil {
		s.Discard(f)
		return File{}, err
	}
	return f, nil
}

package schemadoc

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Limits of what one load reads. A file over MaxFileBytes, or files over
// MaxTotalBytes together, are refused before they are read; the shipped
// schema is 0.26 MB and the largest published protocol schema we know of
// (MCP) 0.2 MB, so the caps leave room for 30 times that and keep a load's
// memory bounded on any input.
const (
	MaxFileBytes  = 8 << 20  // one schema, sibling or overlay file
	MaxTotalBytes = 32 << 20 // every file of one load together
	MaxFiles      = 1000     // files one load reads
)

// LimitScaleEnv names the environment variable that multiplies the caps
// on bytes and values (MaxFileBytes, MaxTotalBytes, MaxNodes) for one
// process: for benchmarks on synthetic schemas far larger than any real
// one (gen/emit/BENCH.md), e.g. DSHGEN_SCHEMA_LIMIT_SCALE=64. Unset, or
// not an integer above 1: the caps as they are.
const LimitScaleEnv = "DSHGEN_SCHEMA_LIMIT_SCALE"

var limitScale = func() int64 {
	n, err := strconv.ParseInt(os.Getenv(LimitScaleEnv), 10, 64)
	if err != nil || n < 1 || n > 1<<20 {
		return 1
	}
	return n
}()

func maxFileBytes() int64  { return MaxFileBytes * limitScale }
func maxTotalBytes() int64 { return MaxTotalBytes * limitScale }
func maxNodes() int        { return MaxNodes * int(limitScale) }

// readFile reads a schema or overlay file with the guards every input gets:
// it must be a regular file (a device such as /dev/zero, a FIFO, a socket
// or a directory is refused before it is opened, so nothing blocks or
// streams forever), not on a kernel pseudo-filesystem (/proc, /sys: their
// files claim a size of 0 and may block on read, as /proc/kmsg does), not
// empty, and at most max bytes. The read is bounded by the size the file
// had when it was opened checked, so no read can run past max.
func readFile(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, plainErr(err)
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, plainErr(err)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, plainErr(err)
	}
	if !os.SameFile(st, fst) {
		return nil, errors.New("the file was replaced while it was opened")
	}
	if err := regular(fst); err != nil {
		return nil, err
	}
	if fs := pseudoFS(f); fs != "" {
		return nil, fmt.Errorf("it is on the kernel's %s pseudo-filesystem, not a schema file (its files are never read)", fs)
	}
	size := fst.Size()
	if size == 0 {
		return nil, errors.New("the file is empty: no JSON document")
	}
	if size > max {
		return nil, fmt.Errorf("the file is %d bytes, over the %d-byte limit for a schema file", size, max)
	}
	raw := make([]byte, size)
	n, err := io.ReadFull(f, raw)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("the file shrank from %d to %d bytes while it was read", size, n)
		}
		return nil, plainErr(err)
	}
	return raw, nil
}

// regular refuses anything but a regular file, naming what it is.
func regular(st os.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("it is a directory, not a schema file")
	case m&os.ModeNamedPipe != 0:
		return errors.New("it is a FIFO (named pipe), not a schema file: only regular files are read")
	case m&os.ModeSocket != 0:
		return errors.New("it is a socket, not a schema file: only regular files are read")
	case m&os.ModeDevice != 0:
		return errors.New("it is a device, not a schema file: only regular files are read")
	}
	return errors.New("it is not a regular file: only regular files are read")
}

// plainErr drops the operation and path os errors repeat (the caller names
// the file).
func plainErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, os.ErrNotExist) {
			return errors.New("no such file")
		}
		return pe.Err
	}
	return err
}

// within reports whether path is dir or below it (both cleaned, absolute).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// realDir resolves symbolic links in an absolute directory path; a path
// that does not exist (the directory of an in-memory schema) is kept.
func realDir(abs string) string {
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return filepath.Clean(abs)
}

func fileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

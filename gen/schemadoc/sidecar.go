package schemadoc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Sidecar reads a JSON file that a protocol publishes beside its schema
// (ACP's meta.json: the method names per side) from the root schema's own
// directory, with the same guards as a schema file (regular file, size cap,
// inside the schema's directory tree). It returns (nil, nil) when the file
// is not there, or when the root schema was not read from a file (the
// schema embedded in the binary). The document is not a schema: it is
// neither meta-validated nor compiled, and overlays cannot target it.
func (s *Set) Sidecar(name string) (*Doc, error) {
	if s.root == nil || filepath.Base(name) != name {
		return nil, fmt.Errorf("sidecar %q: a bare file name is needed", name)
	}
	if st, err := os.Stat(s.root.Path); err != nil || !st.Mode().IsRegular() {
		return nil, nil
	}
	abs := filepath.Join(filepath.Dir(s.root.Path), name)
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if d := s.docs[abs]; d != nil {
		return d, nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", s.show(abs), plainErr(err))
	}
	if !s.allowed(real) {
		return nil, s.outside(real)
	}
	raw, err := readFile(real, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", s.show(abs), err)
	}
	n := len(s.problems)
	d := s.parseDoc(abs, s.show(abs), raw)
	if d == nil {
		msg := s.problems[n].String()
		s.problems = s.problems[:n]
		return nil, errors.New(msg)
	}
	return d, nil
}

package schemadoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The validation library sees exactly the files a Set loaded, as they were
// read (overlays add only extension keywords, which assert nothing, so the
// library is given the unmodified schema): one compiler per Set, shared by
// every reader (the loader's meta-validation, the validator, the
// conformance vectors), so each file is parsed and meta-validated by the
// library once per load.

type compilerState struct {
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
}

// Compile returns the validation library's compiled schema at a model
// pointer ("#/$defs/X", "file.json#/$defs/X", or "" for the root). Nothing
// outside the Set is reachable: no file is read and nothing is fetched.
// Compiled schemas are cached; Compile is safe for concurrent use, and so
// is the returned schema's Validate.
func (s *Set) Compile(ptr string) (*jsonschema.Schema, error) {
	d, frag, ok := s.split(ptr)
	if !ok {
		return nil, fmt.Errorf("no schema file for %s", ptr)
	}
	if s.dropped {
		return nil, errDropped
	}
	key := d.URL + "#" + frag
	s.comp.mu.Lock()
	defer s.comp.mu.Unlock()
	if s.comp.st == nil {
		s.comp.st = &compilerState{c: s.newCompiler(), cache: map[string]*jsonschema.Schema{}}
	}
	if sch, ok := s.comp.st.cache[key]; ok {
		return sch, nil
	}
	sch, err := s.comp.st.c.Compile(key)
	if err != nil {
		return nil, err
	}
	s.comp.st.cache[key] = sch
	return sch, nil
}

// newCompiler returns a compiler that knows every document of the load.
func (s *Set) newCompiler() *jsonschema.Compiler {
	c := baseCompiler()
	known := map[string]bool{}
	for _, d := range s.order {
		known[d.URL] = true
		_ = c.AddResource(d.URL, bytes.NewReader(d.Raw))
	}
	// A document with an absolute $id is also known by it, so relative
	// $refs resolved against that $id find the sibling files.
	for _, d := range s.order {
		id := d.Root.Member("$id").Str()
		base, err := url.Parse(id)
		if id == "" || err != nil || !base.IsAbs() {
			continue
		}
		for _, o := range s.order {
			rel, err := filepath.Rel(filepath.Dir(d.Path), o.Path)
			if err != nil {
				continue
			}
			u := base.ResolveReference(&url.URL{Path: filepath.ToSlash(rel)}).String()
			if !known[u] {
				known[u] = true
				_ = c.AddResource(u, bytes.NewReader(o.Raw))
			}
		}
	}
	return c
}

// baseCompiler returns a compiler of dshgen's settings that knows no
// document and loads none.
func baseCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = false
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("refusing to load %s: dshgen never fetches or reads a schema the loader did not", s)
	}
	return c
}

// MetaValidate compiles the root schema with the validation library, which
// checks each file against the meta-schema of the draft it declares. A
// failure is returned as an *Error locating the offending keyword (one
// problem per piece that fails, for a document meta-validated in pieces:
// see pieces.go). A large document's pieces are compiled by compilers of
// their own, which are dropped: a later Compile compiles the document
// whole.
func (s *Set) MetaValidate() error {
	if s.Verified() {
		return nil
	}
	if s.dropped {
		return errDropped
	}
	plan := s.metaPieces()
	if plan == nil {
		if _, err := s.Compile(""); err != nil {
			return NewError([]Problem{s.libraryProblem(err)})
		}
		return nil
	}
	var problems []Problem
	for i := range plan.groups {
		c := baseCompiler()
		err := c.AddResource(s.root.URL, bytes.NewReader(plan.piece(i)))
		if err == nil {
			_, err = c.Compile(s.root.URL + "#")
		}
		if err != nil {
			problems = append(problems, s.libraryProblem(err))
		}
	}
	return NewError(problems)
}

// libraryProblem turns a validation-library compile error into a Problem.
func (s *Set) libraryProblem(err error) Problem {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) {
		d := s.docByURL(se.SchemaURL)
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			leaf := ve
			for len(leaf.Causes) > 0 {
				leaf = leaf.Causes[0]
			}
			p := s.Problem(Loc{d, leaf.InstanceLocation}, fmt.Sprintf("not a valid %s schema: %s", d.Draft, leaf.Message), "")
			return p
		}
		return Problem{File: d.Show, Msg: "schema does not compile: " + strings.TrimPrefix(se.Err.Error(), "jsonschema: ")}
	}
	return Problem{File: s.root.Show, Msg: "schema does not compile: " + strings.TrimPrefix(err.Error(), "jsonschema: ")}
}

func (s *Set) docByURL(u string) *Doc {
	base, _, _ := strings.Cut(u, "#")
	for _, d := range s.order {
		if d.URL == base {
			return d
		}
	}
	return s.root
}

// Verified reports whether every schema document of the load is one of
// Source.Verified (known to pass meta-validation): MetaValidate is then a
// no-op, and compiling a schema with the library can wait for its first
// use.
func (s *Set) Verified() bool {
	if len(s.verified) == 0 {
		return false
	}
	for _, d := range s.order {
		if !s.verified[d.SHA256] {
			return false
		}
	}
	return true
}

package schemadoc

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Doc is one parsed file: the root schema, a sibling schema file reached by
// a relative $ref, or an overlay.
type Doc struct {
	// Path is the absolute path; Show is the path as shown in messages
	// (relative to the working directory when the user gave it so).
	Path, Show string
	// Raw is the file's bytes as read; SHA256 their lowercase hex sha256.
	Raw    []byte
	SHA256 string
	// Root is the parsed document (with overlay values merged in, for a
	// schema document an overlay targets).
	Root *Node
	// URL is the file:// URL the validation library knows the file by.
	URL string
	// Draft is the JSON Schema dialect the document declares with $schema
	// (Draft2020 when it declares none).
	Draft Draft

	linesOnce sync.Once
	lines     []int // offsets of line starts
}

func newDoc(abs, show string, raw []byte, root *Node) *Doc {
	sum := sha256.Sum256(raw)
	return &Doc{Path: abs, Show: show, Raw: raw, SHA256: hex.EncodeToString(sum[:]), Root: root, URL: fileURL(abs), Draft: Draft2020}
}

// Line returns the 1-based line of a byte offset in the file.
func (d *Doc) Line(offset int64) int {
	line, _ := d.LineCol(offset)
	return line
}

// LineCol returns the 1-based line and column (in bytes) of a byte offset.
func (d *Doc) LineCol(offset int64) (int, int) {
	d.linesOnce.Do(func() {
		d.lines = []int{0}
		for i, c := range d.Raw {
			if c == '\n' {
				d.lines = append(d.lines, i+1)
			}
		}
	})
	if offset < 0 {
		offset = 0
	}
	if offset > int64(len(d.Raw)) {
		offset = int64(len(d.Raw))
	}
	i := sort.SearchInts(d.lines, int(offset)+1) - 1
	return i + 1, int(offset) - d.lines[i] + 1
}

// Loc is a place in a schema document: the document and a JSON pointer
// fragment in it ("" for the whole document).
type Loc struct {
	Doc *Doc
	Ptr string
}

// Child returns the location of a member (string token) or element (int
// token) below l, one token per argument.
func (l Loc) Child(toks ...any) Loc {
	p := l.Ptr
	for _, t := range toks {
		switch v := t.(type) {
		case string:
			p += "/" + EscapeToken(v)
		case int:
			p += "/" + strconv.Itoa(v)
		}
	}
	return Loc{l.Doc, p}
}

// Key identifies the location across documents (absolute path#pointer).
func (l Loc) Key() string { return l.Doc.Path + "#" + l.Ptr }

// Node returns the node at the location (nil when there is none).
func (l Loc) Node() *Node {
	if l.Doc == nil {
		return nil
	}
	n, _ := Resolve(l.Doc.Root, l.Ptr)
	return n
}

// Last returns the last token of the pointer, unescaped ("" for the root).
func (l Loc) Last() string {
	i := strings.LastIndexByte(l.Ptr, '/')
	if i < 0 {
		return ""
	}
	return UnescapeToken(l.Ptr[i+1:])
}

// Parent returns the location one token up (the root stays the root).
func (l Loc) Parent() Loc {
	i := strings.LastIndexByte(l.Ptr, '/')
	if i < 0 {
		return l
	}
	return Loc{l.Doc, l.Ptr[:i]}
}

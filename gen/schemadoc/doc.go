package schemadoc

import (
	"bytes"
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
	// Raw is the file's bytes as read (nil once the set's text is dropped:
	// see Set.DropText); SHA256 their lowercase hex sha256.
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

	size      int64 // len(Raw), kept when Raw is dropped
	linesOnce sync.Once
	lines     []uint32 // offsets of line starts (the file is under 4 GiB: see indexLines)
}

func newDoc(abs, show string, raw []byte, root *Node) *Doc {
	sum := sha256.Sum256(raw)
	return &Doc{Path: abs, Show: show, Raw: raw, SHA256: hex.EncodeToString(sum[:]), Root: root, URL: fileURL(abs), Draft: Draft2020, size: int64(len(raw))}
}

// maxIndexed is the size up to which a file's line starts fit the
// uint32 line index (larger files number every offset as line 1: no
// reader accepts a file that large, see MaxFileBytes).
const maxIndexed = 1<<32 - 1

// indexLines builds the line index from Raw, once (4 bytes per line).
func (d *Doc) indexLines() {
	d.linesOnce.Do(func() {
		d.lines = []uint32{0}
		if d.size > maxIndexed {
			return
		}
		n := bytes.Count(d.Raw, []byte{'\n'})
		d.lines = make([]uint32, 1, n+1)
		for i, c := range d.Raw {
			if c == '\n' {
				d.lines = append(d.lines, uint32(i+1))
			}
		}
	})
}

// Line returns the 1-based line of a byte offset in the file.
func (d *Doc) Line(offset int64) int {
	line, _ := d.LineCol(offset)
	return line
}

// LineCol returns the 1-based line and column (in bytes) of a byte offset.
func (d *Doc) LineCol(offset int64) (int, int) {
	d.indexLines()
	if offset < 0 {
		offset = 0
	}
	if offset > d.size {
		offset = d.size
	}
	i := sort.Search(len(d.lines), func(i int) bool { return int64(d.lines[i]) > offset }) - 1
	return i + 1, int(offset-int64(d.lines[i])) + 1
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

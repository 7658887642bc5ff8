package schemadoc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write writes files (path relative to dir → content) and returns dir.
func write(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// problemsOf returns the problems of an Open error (failing on any other
// error).
func problemsOf(t *testing.T, err error) []Problem {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *Error, got %v", err)
	}
	return e.Problems
}

// hasProblem reports whether ps has a problem at pointer whose text
// contains every word.
func hasProblem(ps []Problem, pointer string, words ...string) bool {
	for _, p := range ps {
		if p.Pointer != pointer {
			continue
		}
		all := true
		for _, w := range words {
			all = all && strings.Contains(p.String(), w)
		}
		if all {
			return true
		}
	}
	return false
}

func TestRefsAcrossFiles(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{
		"schema.json":   `{"$defs":{"A":{"$ref":"sub/b.json#/$defs/B"},"W":{"$ref":"sub/b.json"}}}`,
		"sub/b.json":    `{"$defs":{"B":{"$ref":"../c.json#/$defs/C"}},"type":"object"}`,
		"c.json":        "{\n\"$defs\":{\"C\":{\"type\":\"string\"}}}",
		"unused/x.json": `not json`,
	})
	s, err := Open(Source{Path: filepath.Join(dir, "schema.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Docs()) != 3 {
		t.Errorf("docs: %d", len(s.Docs()))
	}
	at, n, ok := s.Lookup("#/$defs/A")
	if !ok {
		t.Fatal("no #/$defs/A")
	}
	tat, tn := s.Deref(at, n)
	if s.PointerOf(tat) != "c.json#/$defs/C" || tn.StrOf("type") != "string" || tat.Doc.Line(tn.Offset()) != 2 {
		t.Errorf("deref: %s %s line %d", s.PointerOf(tat), tn.Compact(), tat.Doc.Line(tn.Offset()))
	}
	if kw, ok := s.Keywords("sub/b.json#/$defs/B"); !ok || kw["type"] != "string" {
		t.Errorf("keywords: %v", kw)
	}
	if _, err := s.Compile("#/$defs/A"); err != nil {
		t.Errorf("compile across files: %v", err)
	}
	if err := s.MetaValidate(); err != nil {
		t.Error(err)
	}
}

// Relative $refs stay in the schema's directory tree (symbolic links
// resolved) unless AllowRefDirs widens it.
func TestRefConfinement(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"outside/o.json": `{"$defs":{"O":{"type":"string"}}}`,
		"s/schema.json": `{"$defs":{
			"Up":{"$ref":"../outside/o.json#/$defs/O"},
			"Abs":{"$ref":"` + filepath.ToSlash(filepath.Join(root, "outside", "o.json")) + `#/$defs/O"},
			"Link":{"$ref":"link.json#/$defs/O"}}}`,
	})
	if err := os.Symlink(filepath.Join(root, "outside", "o.json"), filepath.Join(root, "s", "link.json")); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(root, "s", "schema.json")
	_, err := Open(Source{Path: schema}, nil)
	ps := problemsOf(t, err)
	for _, p := range []string{"/$defs/Up/$ref", "/$defs/Abs/$ref", "/$defs/Link/$ref"} {
		if !hasProblem(ps, p, "outside the schema's directory tree", "--allow-ref-dir "+filepath.Join(root, "outside")) {
			t.Errorf("%s not refused: %v", p, err)
		}
	}
	if _, err := Open(Source{Path: schema, AllowRefDirs: []string{filepath.Join(root, "outside")}}, nil); err != nil {
		t.Errorf("with --allow-ref-dir: %v", err)
	}
	_, err = Open(Source{Path: schema, AllowRefDirs: []string{filepath.Join(root, "nope")}}, nil)
	if ps := problemsOf(t, err); !strings.Contains(ps[0].String(), "--allow-ref-dir: no such file") {
		t.Errorf("missing allow dir: %v", err)
	}
}

// Every reference keyword that could make the loader or the validation
// library fetch or read something else is refused with its pointer.
func TestReferenceKeywordsRefused(t *testing.T) {
	for _, c := range []struct{ schema, pointer, words string }{
		{`{"$defs":{"A":{"$ref":"https://example.com/a.json"}}}`, "/$defs/A/$ref", "remote $ref"},
		{`{"$defs":{"A":{"$ref":"//example.com/a.json"}}}`, "/$defs/A/$ref", "remote $ref"},
		{`{"$defs":{"A":{"$ref":"urn:x:y"}}}`, "/$defs/A/$ref", "remote $ref"},
		{`{"$defs":{"A":{"$ref":"#anchor"}}}`, "/$defs/A/$ref", "anchor"},
		{`{"$defs":{"A":{"$ref":"#/$defs/Nope"}}}`, "/$defs/A/$ref", "does not resolve"},
		{`{"$defs":{"A":{"$dynamicRef":"https://example.com/a.json#x"}}}`, "/$defs/A/$dynamicRef", "remote $dynamicRef"},
		{`{"$defs":{"A":{"$dynamicRef":"other.json#x"}}}`, "/$defs/A/$dynamicRef", "names another file"},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"A":{"$recursiveRef":"http://x/y.json"}}}`, "/$defs/A/$recursiveRef", "remote $recursiveRef"},
		{`{"$schema":"https://example.com/meta.json"}`, "/$schema", "remote $schema"},
		{`{"$schema":"http://json-schema.org/draft-03/schema#"}`, "/$schema", "remote $schema"},
		{`{"$schema":"my-dialect"}`, "/$schema", "unknown $schema"},
		{`{"$defs":{"A":{"$schema":"https://example.com/meta.json"}}}`, "/$defs/A/$schema", "remote $schema"},
		{`{"$vocabulary":{"https://example.com/vocab":true}}`, "/$vocabulary/https:~1~1example.com~1vocab", "$vocabulary"},
		{`{"$defs":{"A":{"$id":"https://example.com/a.json","properties":{"x":{"$ref":"#/$defs/B"}}},"B":{}}}`, "/$defs/A/$id", "remote $id"},
		{`{"$defs":{"A":{"$id":"sub/a.json"}}}`, "/$defs/A/$id", "new base URI"},
		{`{"$id":"../elsewhere/x.json"}`, "/$id", "neither an absolute URI"},
		{`{"properties":{"p":{"items":[{"$ref":"http://x/y"}]}}}`, "/properties/p/items/0/$ref", "remote $ref"},
		{`{"definitions":{"A":{"dependencies":{"b":{"$ref":"http://x/y"}}}}}`, "/definitions/A/dependencies/b/$ref", "remote $ref"},
		{`{"x-methods":{"m":{"params":{"$ref":"http://x/p"}}}}`, "/x-methods/m/params/$ref", "remote $ref"},
	} {
		path := filepath.Join(t.TempDir(), "schema.json")
		os.WriteFile(path, []byte(c.schema), 0o644)
		_, err := Open(Source{Path: path}, nil)
		if err == nil {
			t.Errorf("%s: accepted", c.schema)
			continue
		}
		if ps := problemsOf(t, err); !hasProblem(ps, c.pointer, c.words) {
			t.Errorf("%s: %v\nwant %q at %s", c.schema, err, c.words, c.pointer)
		}
	}
}

// What is accepted: data that looks like references (enum, const, default,
// examples, unknown keywords, member names), the draft dialect URIs, the
// root's absolute $id, draft-07 anchors and $id beside $ref, standard
// vocabularies.
func TestReferenceLookalikesAccepted(t *testing.T) {
	for _, c := range []string{
		`{"properties":{"$ref":{"type":"string"},"$id":{"const":"http://x"},"$schema":{"enum":["http://x/y"]}},"default":{"$ref":"http://x"},"examples":[{"$ref":"http://x"}]}`,
		`{"x-vendor":{"$ref":"http://x"},"$comment":"http://x"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"$id":"#a"},"B":{"$ref":"#/definitions/A","$id":"http://ignored"}}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/root.json","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://example.com/root.json"}`,
		`{"$id":"schema.json","$defs":{"A":{"$dynamicRef":"#meta"}}}`,
	} {
		path := filepath.Join(t.TempDir(), "schema.json")
		os.WriteFile(path, []byte(c), 0o644)
		if _, err := Open(Source{Path: path}, nil); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}

func TestDialects(t *testing.T) {
	for uri, want := range map[string]Draft{
		"https://json-schema.org/draft/2020-12/schema":  Draft2020,
		"http://json-schema.org/draft/2020-12/schema#":  Draft2020,
		"https://json-schema.org/draft/2019-09/schema":  Draft2019,
		"http://json-schema.org/draft-07/schema#":       Draft7,
		"http://json-schema.org/draft-07/schema":        Draft7,
		"http://json-schema.org/draft-06/schema#":       Draft6,
		"http://json-schema.org/draft-04/schema#":       Draft4,
		"http://json-schema.org/draft-03/schema#":       0,
		"https://json-schema.org/draft/2020-12/schema/": 0,
		"ftp://json-schema.org/draft-07/schema#":        0,
	} {
		if got := DraftOf(uri); got != want {
			t.Errorf("%s: %v, want %v", uri, got, want)
		}
	}
	// Meta-validation follows the declared draft: "definitions" must hold
	// schemas in draft-07, and an array "items" is a tuple there but not
	// in 2020-12.
	dir := t.TempDir()
	d7 := write(t, dir, map[string]string{"d7.json": `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`})
	s, err := Open(Source{Path: filepath.Join(d7, "d7.json")}, nil)
	if err != nil || s.Root().Draft != Draft7 {
		t.Fatalf("%v %v", err, s)
	}
	if err := s.MetaValidate(); err != nil {
		t.Errorf("draft-07 tuple items: %v", err)
	}
	write(t, dir, map[string]string{"d2020.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","items":[{"type":"string"}]}`})
	s, err = Open(Source{Path: filepath.Join(dir, "d2020.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.MetaValidate()
	if ps := problemsOf(t, err); !hasProblem(ps, "/items", "not a valid draft 2020-12 schema") || ps[0].Line != 1 {
		t.Errorf("2020-12 tuple items: %v", err)
	}
}

func TestLimits(t *testing.T) {
	dir := t.TempDir()
	// Five sibling files of MaxFileBytes-1 (sparse): the total cap stops the
	// fifth before it is read.
	refs := ""
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, "big"+string(rune('0'+i))+".json")
		f, _ := os.Create(p)
		f.Truncate(MaxFileBytes - 1)
		f.Close()
		if i > 0 {
			refs += ","
		}
		refs += `"B` + string(rune('0'+i)) + `":{"$ref":"big` + string(rune('0'+i)) + `.json"}`
	}
	write(t, dir, map[string]string{"schema.json": `{"$defs":{` + refs + `}}`})
	_, err := Open(Source{Path: filepath.Join(dir, "schema.json")}, nil)
	ps := problemsOf(t, err)
	if !hasProblem(ps, "/$defs/B4/$ref", "over the") || !hasProblem(ps, "/$defs/B0/$ref", "not valid JSON") {
		t.Errorf("%v", err)
	}
	// Too many values in the files of one load (the budget is MaxNodes).
	budget := 10
	if _, err := parse([]byte("["+strings.Repeat("0,", 10)+"0]"), &budget); err == nil || !strings.Contains(err.Error(), "more than 2000000 JSON values") {
		t.Errorf("node budget: %v", err)
	}
}

// TestVerifiedSkipsMetaValidation: a load skips meta-validation only when
// every document's sha256 is listed in Source.Verified.
func TestVerifiedSkipsMetaValidation(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{
		"root.json":  `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"A": {"type": 5}, "B": {"$ref": "other.json"}}}`,
		"other.json": `{"type": "string"}`,
	})
	root := filepath.Join(dir, "root.json")
	open := func(verified map[string]bool) *Set {
		s, err := Open(Source{Path: root, Verified: verified}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open(nil)
	if s.Verified() || s.MetaValidate() == nil {
		t.Fatal("a schema with \"type\": 5 passed meta-validation")
	}
	sums := map[string]bool{}
	for _, d := range s.Docs() {
		sums[d.SHA256] = true
	}
	if s := open(sums); !s.Verified() || s.MetaValidate() != nil {
		t.Error("every document verified: meta-validation was not skipped")
	}
	delete(sums, s.Docs()[1].SHA256)
	if s := open(sums); s.Verified() || s.MetaValidate() == nil {
		t.Error("a document not verified: meta-validation was skipped")
	}
}

// TestLimitScale: DSHGEN_SCHEMA_LIMIT_SCALE (read once at start, here set
// directly) lifts the per-file cap; without it the same file is refused.
func TestLimitScale(t *testing.T) {
	big := `{"$defs": {"A": {"description": "` + strings.Repeat("x", MaxFileBytes) + `"}}}`
	dir := write(t, t.TempDir(), map[string]string{"big.json": big})
	path := filepath.Join(dir, "big.json")
	if _, err := Open(Source{Path: path}, nil); err == nil {
		t.Fatal("a file over MaxFileBytes was read")
	}
	defer func(n int64) { limitScale = n }(limitScale)
	limitScale = 2
	if _, err := Open(Source{Path: path}, nil); err != nil {
		t.Fatalf("with the caps doubled: %v", err)
	}
}

// TestDropText: once a set's text is dropped, problems still name the
// line of the node (from the line index built before the bytes went),
// every file's Raw is gone, and the library steps refuse instead of
// compiling nothing.
func TestDropText(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{
		"schema.json": "{\n  \"$defs\": {\n    \"A\": {\"$ref\": \"b.json#/$defs/B\"},\n    \"C\": {\n      \"type\": \"string\"\n    }\n  }\n}\n",
		"b.json":      "{\"$defs\":\n{\"B\":\n{\"type\":\"integer\"}}}",
	})
	s, err := Open(Source{Path: filepath.Join(dir, "schema.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MetaValidate(); err != nil {
		t.Fatal(err)
	}
	before := []Problem{s.Problem(Loc{s.Root(), "/$defs/C/type"}, "m", ""), s.Problem(Loc{s.Docs()[1], "/$defs/B"}, "m", "")}
	s.DropText()
	after := []Problem{s.Problem(Loc{s.Root(), "/$defs/C/type"}, "m", ""), s.Problem(Loc{s.Docs()[1], "/$defs/B"}, "m", "")}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("problem %d: %+v before DropText, %+v after", i, before[i], after[i])
		}
	}
	if after[0].Line != 5 || after[1].Line != 3 {
		t.Errorf("lines %d and %d, want 5 and 3", after[0].Line, after[1].Line)
	}
	if line, col := s.Docs()[1].LineCol(1 << 20); line != 3 || col != 21 {
		t.Errorf("an offset past the end: line %d column %d, want just past the last byte (3, 21)", line, col)
	}
	for _, d := range s.Docs() {
		if d.Raw != nil {
			t.Errorf("%s: Raw kept", d.Show)
		}
	}
	if _, err := s.Compile("#/$defs/C"); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Errorf("Compile after DropText: %v, want the text-dropped error", err)
	}
	if err := s.MetaValidate(); err == nil {
		t.Error("MetaValidate after DropText passed")
	}
}

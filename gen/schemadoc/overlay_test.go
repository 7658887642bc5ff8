package schemadoc

import (
	"path/filepath"
	"strings"
	"testing"
)

var testKeywords = []Keyword{
	{Name: "x-name", Shape: ShapeString, Where: "a named schema"},
	{Name: "x-enum-names", Shape: ShapeStrings},
	{Name: "x-validation-only", Shape: ShapeBool},
	{Name: "x-methods", Shape: ShapeObject, RootOnly: true},
}

const overlaySchema = `{
  "$defs": {
    "Foo": {"anyOf": [{"type": "string"}, {"$ref": "other.json#/$defs/Bar"}]},
    "Color": {"enum": ["red", "blue"], "x-name": "Colour"}
  }
}`

func TestOverlayApplies(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{
		"schema.json": overlaySchema,
		"other.json":  `{"$defs":{"Bar":{"type":"object"}}}`,
		"o.json": `{
  "description": "names for the schema",
  "overlay": {
    "/$defs/Foo/anyOf/0": {"x-name": "FooText"},
    "#/$defs/Color": {"x-name": "Color", "x-enum-names": ["Red", "Blue"]},
    "other.json#/$defs/Bar": {"x-name": "Baz"},
    "": {"x-methods": {"m": {"params": {"$ref": "#/$defs/Foo"}}}}
  }
}`,
	})
	s, err := Open(Source{Path: filepath.Join(dir, "schema.json"), Overlays: []string{filepath.Join(dir, "o.json")}}, testKeywords)
	if err != nil {
		t.Fatal(err)
	}
	_, color, _ := s.Lookup("#/$defs/Color")
	// The overlay wins over the schema where both set a key.
	if color.StrOf("x-name") != "Color" || len(color.Get("x-enum-names").Items()) != 2 {
		t.Errorf("Color: %s", color.Compact())
	}
	if got := strings.Join(color.Keys(), ","); got != "enum,x-name,x-enum-names" {
		t.Errorf("Color keys %s", got)
	}
	// Nothing else read yet: three entries unused, each located in the
	// overlay file with its own pointer.
	un := s.Unused()
	if len(un) != 3 {
		t.Fatalf("unused: %v", un)
	}
	if p := un[0]; p.File != filepath.Join(dir, "o.json") || p.Line != 4 || p.Pointer != "/overlay/~1$defs~1Foo~1anyOf~10/x-name" || !strings.Contains(p.Msg, "never used") {
		t.Errorf("unused[0]: %+v", p)
	}
	for _, ptr := range []string{"/$defs/Foo/anyOf/0", "other.json#/$defs/Bar", "#"} {
		_, n, _ := s.Lookup(ptr)
		if n.Get("x-name") == nil {
			n.Get("x-methods")
		}
	}
	if un := s.Unused(); len(un) != 0 {
		t.Errorf("after reading every entry: %v", un)
	}
	// A problem at an overlay-provided value is located in the overlay.
	p := s.Problem(Loc{s.Root(), "/x-methods/m/params"}, "bad", "")
	if p.File != filepath.Join(dir, "o.json") || p.Line != 7 || p.Pointer != "/overlay//x-methods/m/params" || !strings.Contains(p.Msg, "set by this overlay on /x-methods/m/params") {
		t.Errorf("problem in overlay value: %+v", p)
	}
	// The validation library sees the unmodified schema.
	if _, err := s.Compile("#/$defs/Color"); err != nil {
		t.Error(err)
	}
}

func TestOverlayChecks(t *testing.T) {
	for _, c := range []struct{ overlay, pointer, words string }{
		{`[]`, "", "must be a JSON object"},
		{`{"overlays": {}}`, "/overlays", "unknown overlay member"},
		{`{"description": "no entries"}`, "", "no \"overlay\" member"},
		{`{"overlay": []}`, "/overlay", "must be an object"},
		{`{"overlay": {"/$defs/Nope": {"x-name": "N"}}}`, "/overlay/~1$defs~1Nope", "no node at /$defs/Nope"},
		{`{"overlay": {"/$defs/Foo/anyOf/7": {"x-name": "N"}}}`, "/overlay/~1$defs~1Foo~1anyOf~17", "deepest existing node on the way is /$defs/Foo/anyOf"},
		{`{"overlay": {"missing.json#/$defs/X": {"x-name": "N"}}}`, "/overlay/missing.json#~1$defs~1X", "names no loaded schema file"},
		{`{"overlay": {"/$defs/Color/enum": {"x-name": "N"}}}`, "/overlay/~1$defs~1Color~1enum", "is a JSON array, not a schema object"},
		{`{"overlay": {"/$defs/Color": "Colour"}}`, "/overlay/~1$defs~1Color", "must be an object of keywords"},
		{`{"overlay": {"/$defs/Color": {"x-nmae": "N"}}}`, "/overlay/~1$defs~1Color/x-nmae", "unknown overlay keyword \"x-nmae\""},
		{`{"overlay": {"/$defs/Color": {"description": "no"}}}`, "/overlay/~1$defs~1Color/description", "only dshgen's extension keywords: x-enum-names, x-methods, x-name, x-validation-only"},
		{`{"overlay": {"/$defs/Color": {"x-name": 5}}}`, "/overlay/~1$defs~1Color/x-name", "must be a non-empty string, not a number"},
		{`{"overlay": {"/$defs/Color": {"x-name": ""}}}`, "/overlay/~1$defs~1Color/x-name", "not an empty string"},
		{`{"overlay": {"/$defs/Color": {"x-enum-names": ["a", 1]}}}`, "/overlay/~1$defs~1Color/x-enum-names", "an array of strings"},
		{`{"overlay": {"/$defs/Color": {"x-methods": {}}}}`, "/overlay/~1$defs~1Color/x-methods", "read only at the root"},
		{`{"overlay": {"#": {"x-methods": {"m": {"params": {"$ref": "https://x/p.json"}}}}}}`, "/overlay/#/x-methods/m/params/$ref", "remote $ref"},
	} {
		dir := write(t, t.TempDir(), map[string]string{"schema.json": overlaySchema, "other.json": `{"$defs":{"Bar":{}}}`, "o.json": c.overlay})
		_, err := Open(Source{Path: filepath.Join(dir, "schema.json"), Overlays: []string{filepath.Join(dir, "o.json")}}, testKeywords)
		if err == nil {
			t.Errorf("%s: accepted", c.overlay)
			continue
		}
		ps := problemsOf(t, err)
		if !hasProblem(ps, c.pointer, c.words) || ps[0].File != filepath.Join(dir, "o.json") {
			t.Errorf("%s: %v\nwant %q at %s in o.json", c.overlay, err, c.words, c.pointer)
		}
	}
	// Two overlays setting one key on one node: refused, naming both.
	dir := write(t, t.TempDir(), map[string]string{"schema.json": overlaySchema, "other.json": `{"$defs":{"Bar":{}}}`,
		"a.json": `{"overlay": {"/$defs/Foo": {"x-name": "A"}}}`, "b.json": `{"overlay": {"/$defs/Foo": {"x-name": "B"}}}`})
	_, err := Open(Source{Path: filepath.Join(dir, "schema.json"), Overlays: []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}}, testKeywords)
	if ps := problemsOf(t, err); !hasProblem(ps, "/overlay/~1$defs~1Foo/x-name", "set by two overlays", "a.json line 1") {
		t.Errorf("two overlays: %v", err)
	}
	// The overlay file gets the file guards too.
	_, err = Open(Source{Path: filepath.Join(dir, "schema.json"), Overlays: []string{"/dev/zero"}}, testKeywords)
	if ps := problemsOf(t, err); !strings.Contains(ps[0].String(), "/dev/zero: cannot read the overlay: it is a device") {
		t.Errorf("/dev/zero overlay: %v", err)
	}
}

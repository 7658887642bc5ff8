package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The cases under testdata/validate/cases are copies of ../shared/cases
// (public bug reports); each test turns its CASE.md "Expected behaviour"
// into assertions.

type want struct {
	line    int
	rule    string
	sev     Severity
	pointer string
	// each of these must be a substring of the finding's field
	msg, branch, schema []string
}

func checkFindings(t *testing.T, got []Finding, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(wants), dumpFindings(got))
	}
	for i, w := range wants {
		g := got[i]
		bad := g.Line != w.line || g.Rule != w.rule || g.Pointer != w.pointer || (w.sev != "" && g.Severity != w.sev)
		for _, s := range w.msg {
			bad = bad || !strings.Contains(g.Message, s)
		}
		for _, s := range w.branch {
			bad = bad || !strings.Contains(g.Branch, s)
		}
		for _, s := range w.schema {
			bad = bad || !strings.Contains(g.Schema, s)
		}
		if bad {
			t.Errorf("finding %d:\n got  %s (pointer %q, branch %q, schema %q)\n want %+v", i, TextLine(&g), g.Pointer, g.Branch, g.Schema, w)
		}
	}
}

// Case 18: a bad member inside a tagged union gives one precise finding per
// bad line, naming the selected branch and its schema location; no finding
// mentions another branch.
func TestCase18OneOfErrorNoise(t *testing.T) {
	dir := caseDir(t, "18-oneof-error-noise")
	v := newValidator(t, filepath.Join(dir, "schema.json"), Options{})
	res, err := v.ValidateFile(filepath.Join(dir, "frames.jsonl"), Input{Name: "frames.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, res.Findings, []want{
		{line: 2, rule: RuleParams, sev: Error, pointer: "/params/event/data/turn",
			msg: []string{"expected integer, but got string"}, branch: []string{"type=turn/end"},
			schema: []string{"#/$defs/TurnEndEvent/properties/data/properties/turn/type"}},
		{line: 3, rule: RuleParams, sev: Error, pointer: "/params/event/data/chunk",
			msg: []string{"missing properties: 'text'"}, branch: []string{"type=assistant/chunk"},
			schema: []string{"#/$defs/TextDeltaChunk/required"}},
		// SessionEvent is closed in this schema, so an unknown tag is an
		// error (open unions: a warning); one finding, known tags sorted.
		{line: 4, rule: RuleUnionUnknownTag, sev: Error, pointer: "/params/event/type",
			msg: []string{`"bogus/event"`, `not one of its 4 known tags`}},
		{line: 5, rule: RuleUnionMissingTag, sev: Error, pointer: "/params/event",
			msg: []string{`discriminator "type" missing`}},
		{line: 6, rule: RuleParams, sev: Error, pointer: "/params/event/data/reason",
			msg: []string{"missing properties: 'reason'"}, branch: []string{"type=turn/end", "kind=aborted"},
			schema: []string{"#/$defs/TurnEndAborted/required"}},
		{line: 7, rule: RuleParams, sev: Error, pointer: "/params/event/data/reason/reason/kind",
			msg: []string{`"timeout"`, `"user", "parent", "disposed", "legacy"`}, branch: []string{"type=turn/end", "kind=aborted"},
			schema: []string{"#/$defs/TurnEndCancelCause/properties/kind/enum"}},
	})
	for _, f := range res.Findings {
		for _, bad := range []string{`must be "turn/start"`, `must be "tool/call"`, "missing properties: 'step'", "oneOf failed"} {
			if strings.Contains(f.Message, bad) {
				t.Errorf("line %d mentions another branch: %s", f.Line, f.Message)
			}
		}
	}
	if res.Frames != 8 {
		t.Errorf("frames %d, want 8", res.Frames)
	}
	// The unfiltered cause tree is there for debugging, off by default.
	full := newValidator(t, filepath.Join(dir, "schema.json"), Options{FullCauses: true})
	fres, err := full.ValidateFile(filepath.Join(dir, "frames.jsonl"), Input{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fres.Findings) <= len(res.Findings) {
		t.Errorf("--full-causes gave %d findings, the filtered run %d", len(fres.Findings), len(res.Findings))
	}
}

// Case 15: CRLF, a BOM, blank lines and a missing final newline each get a
// defined outcome; the only error is the invalid frame, at the right line.
func TestCase15Framing(t *testing.T) {
	dir := caseDir(t, "15-crlf-bom-final-newline")
	v := newValidator(t, filepath.Join(dir, "schema.json"), Options{})
	bad := want{rule: RuleParams, sev: Error, pointer: "/params/status", msg: []string{`"paused"`, `"idle", "running"`}}
	at := func(w want, line int) want { w.line = line; return w }
	cases := []struct {
		file   string
		frames int
		wants  []want
	}{
		{"frames-crlf.jsonl", 3, []want{
			{line: 1, rule: RuleFrameCRLF, sev: Warning}, at(bad, 2)}},
		{"frames-bom.jsonl", 3, []want{
			{line: 1, rule: RuleFrameBOM, sev: Warning, msg: []string{"byte order mark"}}, at(bad, 3)}},
		{"frames-no-final-newline.jsonl", 3, []want{
			{line: 3, rule: RuleFrameNoNewline, sev: Warning}, at(bad, 3)}},
		{"frames-blank-lines.jsonl", 2, []want{
			{line: 2, rule: RuleFrameBlank, sev: Warning}, {line: 3, rule: RuleFrameBlank, sev: Warning}, at(bad, 4)}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			// File mode and stdin mode (a plain reader) give the same.
			fres, err := v.ValidateFile(filepath.Join(dir, c.file), Input{Name: c.file})
			if err != nil {
				t.Fatal(err)
			}
			sres := run(t, v, c.file, data, Input{})
			for _, res := range []Result{fres, sres} {
				checkFindings(t, res.Findings, c.wants)
				if res.Frames != c.frames {
					t.Errorf("frames %d, want %d", res.Frames, c.frames)
				}
			}
			if c.file == "frames-bom.jsonl" && fres.Findings[0].Offset != 0 {
				t.Errorf("BOM finding at offset %d, want 0", fres.Findings[0].Offset)
			}
		})
	}
}

// makeCase14 writes case 14's frames.jsonl (1.2 MB, not committed) into a
// temporary directory with the case's own make.py and checks its hash.
func makeCase14(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: case 14's frames are generated by make.py")
	}
	tmp := t.TempDir()
	src, err := os.ReadFile(filepath.Join(caseDir(t, "14-long-frame-lines"), "make.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "make.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "make.py")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make.py: %v\n%s", err, out)
	}
	p := filepath.Join(tmp, "frames.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != "fbffe200ceebafd212ca98f2127f8cbc327e49bfff183281a7468ce3b70a14ab" {
		t.Fatalf("frames.jsonl sha256 %s differs from CASE.md", got)
	}
	return p
}

// Case 14: lines over 64 KiB and over 1 MiB are read; the one invalid frame
// is reported at its line and byte offset; with a 1 MiB limit the long line
// is reported with its real size and skipped, and reading goes on.
func TestCase14LongFrameLines(t *testing.T) {
	p := makeCase14(t)
	data, _ := os.ReadFile(p)
	v := newValidator(t, filepath.Join(caseDir(t, "14-long-frame-lines"), "schema.json"), Options{})
	seq := want{line: 4, rule: RuleParams, sev: Error, pointer: "/params/event/seq", msg: []string{"must be >= 0"}, branch: []string{"type=turn/start"}}
	fres, err := v.ValidateFile(p, Input{})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []Result{fres, run(t, v, "-", data, Input{})} {
		checkFindings(t, res.Findings, []want{seq})
		if f := res.Findings[0]; f.Offset != 1198232 || f.Method != "session.event" {
			t.Errorf("offset %d method %q", f.Offset, f.Method)
		}
		if res.Frames != 5 {
			t.Errorf("frames %d, want 5", res.Frames)
		}
	}
	small := run(t, v, "-", data, Input{MaxFrameBytes: 1 << 20})
	checkFindings(t, small.Findings, []want{
		{line: 3, rule: RuleFrameTooLarge, sev: Error, msg: []string{"1126399 bytes", "1048576"}},
		seq,
	})
	if small.Frames != 5 {
		t.Errorf("frames %d with a 1 MiB limit, want 5 (line 5 still read)", small.Frames)
	}
}

// Cases 01, 02, 09, 11, 13 (validator part, --type mode): one finding per
// bad line at the pointer the case names.
func TestCaseValues(t *testing.T) {
	type line struct {
		n       int
		rule    string
		pointer string
		msg     []string
	}
	cases := []struct {
		dir, schema, typ, file string
		lines                  []line
	}{
		{"01-discriminated-oneof-const", "schema.json", "Drawing", "values.jsonl", []line{
			{3, RuleValue, "/shapes/0", []string{"side"}},
			// The case asks for /shapes/0; the finding points at the tag
			// inside it, as case 18 asks for unknown tags.
			{4, RuleUnionUnknownTag, "/shapes/0/kind", []string{`"hexagon"`, `not one of its 3 known tags`}},
			{5, RuleUnionMissingTag, "/shapes/0", []string{`"kind"`}},
		}},
		{"02-object-oneof-not-flattened", "schema.json", "IndexRequest", "values.jsonl", []line{
			{2, RuleValue, "/selectors/0", []string{"no branch of FileSelector matched", "PathSelector: additionalProperties 'glob' not allowed", "GlobSelector: additionalProperties 'path' not allowed"}},
			{3, RuleValue, "/selectors/0", []string{"PathSelector: missing properties: 'path'", "GlobSelector: missing properties: 'glob'"}},
			{4, RuleValue, "/selectors/0", []string{"PathSelector: missing properties: 'path'", "GlobSelector:"}},
			{5, RuleValue, "/selectors/0", []string{"PathSelector:", "GlobSelector: additionalProperties 'recursive' not allowed"}},
		}},
		{"09-null-vs-absent", "schema.json", "Profile", "values.jsonl", []line{
			{5, RuleValue, "/name", []string{"expected string, but got null"}},
			{6, RuleValue, "/tags", []string{"expected array, but got null"}},
			{7, RuleValue, "/tags/0", []string{"expected string, but got null"}},
			{8, RuleValue, "", []string{"avatarUrl"}},
			{9, RuleValue, "", []string{"expected object, but got null"}},
			{10, RuleValue, "/tags", []string{"minimum 1 items"}},
		}},
		{"11-additional-properties", "schema.json", "Record", "values.jsonl", []line{
			{2, RuleValue, "/labels/team", []string{"expected string"}},
			{4, RuleValue, "/at", []string{"'z'"}},
			{6, RuleValue, "/labels/priority", []string{"expected integer"}},
		}},
		{"13-recursive-ref", "schema-ok.json", "TreeNode", "values.jsonl", []line{
			{2, RuleValue, "/children/0", []string{"'name'"}},
			{3, RuleValue, "/children/0", []string{"'extra'"}},
		}},
		{"13-recursive-ref", "schema-ok.json", "TreeNode", "deep-tree.json", nil},
		// 1000 nested arrays: the library alone takes ~12 s here (its
		// keyword locations grow with depth); the fast check accepts it
		// at once.
		{"13-recursive-ref", "schema-ok.json", "JsonValue", "deep-json-value.json", nil},
	}
	for _, c := range cases {
		t.Run(c.dir+"/"+c.file, func(t *testing.T) {
			dir := caseDir(t, c.dir)
			v := newValidator(t, filepath.Join(dir, c.schema), Options{})
			data, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := v.ValidateValues(bytes.NewReader(data), c.typ, Input{Name: c.file})
			if err != nil {
				t.Fatal(err)
			}
			var wants []want
			for _, l := range c.lines {
				wants = append(wants, want{line: l.n, rule: l.rule, sev: Error, pointer: l.pointer, msg: l.msg})
			}
			checkFindings(t, res.Findings, wants)
		})
	}
}

package validate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// TestPublishedMixedNDJSON: the MCP and ACP frame suites
// (testdata/protocols/*/frames, valid and invalid sessions, against the
// unmodified published schemas) written as one mixed NDJSON file, as a
// logger that writes both directions to one file does (the capture
// without its DIR<TAB>ms<TAB> prefixes), give the capture's findings, with
// --direction both and auto; but for method.direction, which needs the
// side a line came from. Both sides number their own requests from 0, so
// an id is often in flight on both sides at once: a response answers the
// request whose result type it matches, else the later one (it paired
// with the client's request first, and reported result.schema errors on
// valid sessions); and a notifications/cancelled, which both sides send,
// cancels the request it names (its side unknown, it cancelled nothing:
// request.unanswered).
func TestPublishedMixedNDJSON(t *testing.T) {
	root := moduleRoot(t)
	shared := sharedDir(t)
	for _, suite := range []struct{ dir, schema string }{
		{"mcp-2025-11-25", "mcp/2025-11-25/schema.json"},
		{"mcp-2026-07-28", "mcp/2026-07-28/schema.json"},
		{"acp", "acp/schema.json"},
	} {
		src := ir.Source{Path: filepath.Join(shared, "protocols", filepath.FromSlash(suite.schema))}
		overlay := filepath.Join(root, "testdata", "protocols", suite.dir, "overlay.json")
		if _, err := os.Stat(overlay); err == nil {
			src.Overlays = []string{overlay}
		}
		m, err := ir.LoadSource(src)
		if err != nil {
			t.Fatal(err)
		}
		v, err := New(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(root, "testdata", "protocols", suite.dir, "frames", "*", "*.log"))
		if len(files) == 0 {
			t.Fatalf("%s: no frame files", suite.dir)
		}
		for _, f := range files {
			capture, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := run(t, v, "in", capture, Input{})
			if !want.Capture {
				t.Fatalf("%s: not read as a capture", f)
			}
			var nd []byte
			for _, line := range bytes.SplitAfter(capture, []byte("\n")) {
				if i := bytes.IndexByte(line, '\t'); i >= 0 {
					if j := bytes.IndexByte(line[i+1:], '\t'); j >= 0 {
						nd = append(nd, line[i+1+j+1:]...)
					}
				}
			}
			name := suite.dir + "/" + filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
			for _, in := range []Input{{Both: true}, {}} {
				got := run(t, v, "in", nd, in)
				if !got.Mixed && !in.Both {
					t.Errorf("%s: --direction auto did not take it for a mixed file", name)
				}
				if g, w := sideless(got.Findings), sideless(want.Findings); g != w {
					t.Errorf("%s (both %v): as NDJSON:\n%s\nas a capture:\n%s", name, in.Both, g, w)
				}
			}
		}
	}
}

// sideless renders findings without what depends on the side a line came
// from (direction, offset, method.direction findings).
func sideless(fs []Finding) string {
	var b bytes.Buffer
	for _, f := range fs {
		if f.Rule != RuleMethodDirection {
			fmt.Fprintf(&b, "%d %s %s %s [%s %s] %s\n", f.Line, f.Severity, f.Rule, f.Pointer, f.Method, f.ID, f.Message)
		}
	}
	return b.String()
}

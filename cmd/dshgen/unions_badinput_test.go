package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad union input through the CLI, on the unmodified MCP 2026-07-28 schema:
// an overlay pointer that is not in the schema, an x-union-tag that does not
// tell the union's branches apart (ElicitRequestParams: "mode" is optional
// in the form branch), and a branch name that collides with a def (the
// overlay names an inline branch after an existing type) each exit 2 with
// file:line: pointer and a fix, and write nothing.
func TestGenerateBadUnionOverlays(t *testing.T) {
	schema, err := filepath.Abs(filepath.Join(repoRoot(t), "..", "shared", "protocols", "mcp", "2026-07-28", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(schema); err != nil {
		t.Fatalf("the published MCP schema is not beside the repository: %v", err)
	}
	for _, c := range []struct{ name, overlay, want string }{
		{"missing pointer", `{"overlay": {"/$defs/NoSuchType": {"x-name": "X"}}}`, "no node at /$defs/NoSuchType"},
		{"wrong tag", `{"overlay": {"/$defs/ElicitRequestParams": {"x-union-tag": "mode"}}}`, `x-union-tag names member "mode"`},
		{"name collision", `{"overlay": {"/$defs/CreateMessageResult/properties/content/anyOf/5": {"x-name": "TextContent"}}}`, "name collision"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ov := filepath.Join(dir, "overlay.json")
			if err := os.WriteFile(ov, []byte(c.overlay+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			before := treeHash(t, dir)
			code, _, stderr := runDshgen(t, dir, "generate", "--schema", schema, "--overlay", ov, "--out", out)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "(fix: ") || !strings.Contains(stderr, ".json:") {
				t.Errorf("stderr lacks %q, a fix or a file:line:\n%s", c.want, stderr)
			}
			if after := treeHash(t, dir); after != before {
				t.Errorf("something was written under %s", dir)
			}
		})
	}
}

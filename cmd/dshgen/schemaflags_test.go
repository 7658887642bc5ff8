package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshgen/dshgen/schema"
)

// runGuarded runs dshgen in dir with stdin and a deadline: an input that
// makes it block or read forever fails the test instead of hanging it.
func runGuarded(t *testing.T, dir, stdin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, dshgenBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("dshgen %s did not finish (a read that blocks or never ends?)\n%s", strings.Join(args, " "), out.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// located matches "file:line: pointer: message" for file and pointer.
func located(file, pointer string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(file) + `:[1-9][0-9]*: ` + regexp.QuoteMeta(pointer) + `: `)
}

// The inputs that hung, grew without bound or were accepted on main, rerun
// as written: each is exit 2 with a message naming the file (and, inside
// a schema, the line and the JSON pointer), and nothing is written.
func TestSchemaInputGuards(t *testing.T) {
	dir := t.TempDir()
	up := strings.Repeat("../", 24)
	files := map[string]string{
		"s/kmsg.json":  `{"$defs":{"A":{"type":"object","properties":{"k":{"$ref":"` + up + `proc/kmsg"}}}}}`,
		"s/climb.json": `{"$defs":{"A":{"type":"object","properties":{"k":{"$ref":"../leak.json"}}}}}`,
		"s/dyn.json": `{"$defs":{"A":{"type":"object","properties":{"k":{"$dynamicRef":"https://example.com/x.json#meta"}}}},
"x-methods":{"a":{"kind":"notification","direction":"client-to-server","params":{"$ref":"#/$defs/A"}}}}`,
		"leak.json": `{"description":"SECRET-LEAK"}`,
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	before := treeHash(t, out)
	for _, c := range []struct {
		args []string
		want *regexp.Regexp
	}{
		{[]string{"generate", "--schema", "s/kmsg.json", "--out", "out"}, located("s/kmsg.json", "/$defs/A/properties/k/$ref")},
		{[]string{"generate", "--schema", "s/kmsg.json", "--out", "out", "--allow-ref-dir", "/proc"}, regexp.MustCompile(`s/kmsg.json:1: /\$defs/A/properties/k/\$ref: .*proc pseudo-filesystem`)},
		{[]string{"generate", "--schema", "/dev/zero", "--out", "out"}, regexp.MustCompile(`/dev/zero: cannot read the schema: it is a device`)},
		{[]string{"generate", "--schema", "fifo", "--out", "out"}, regexp.MustCompile(`fifo: cannot read the schema: it is a FIFO`)},
		{[]string{"generate", "--schema", "s/dyn.json", "--out", "out"}, located("s/dyn.json", "/$defs/A/properties/k/$dynamicRef")},
		{[]string{"validate", "--schema", "s/dyn.json", "-"}, located("s/dyn.json", "/$defs/A/properties/k/$dynamicRef")},
		{[]string{"generate", "--schema", "s/climb.json", "--out", "out"}, located("s/climb.json", "/$defs/A/properties/k/$ref")},
		{[]string{"validate", "--schema", "fifo", "-"}, regexp.MustCompile(`fifo: cannot read the schema: it is a FIFO`)},
		{[]string{"conformance", "--schema", "/dev/zero"}, regexp.MustCompile(`/dev/zero: cannot read the schema: it is a device`)},
		{[]string{"tap", "--schema", "s/climb.json", "--", "true"}, located("s/climb.json", "/$defs/A/properties/k/$ref")},
		{[]string{"diff", "s/climb.json", schema.Path}, located("s/climb.json", "/$defs/A/properties/k/$ref")},
	} {
		code, text := runGuarded(t, dir, `{"jsonrpc":"2.0","method":"a","params":{"k":1}}`+"\n", c.args...)
		if code != 2 || !c.want.MatchString(text) {
			t.Errorf("dshgen %s: exit %d, want 2 and a message matching %s\n%s", strings.Join(c.args, " "), code, c.want, text)
		}
		if strings.Contains(text, "SECRET-LEAK") {
			t.Errorf("dshgen %s: the content of a file outside the schema's tree was read", strings.Join(c.args, " "))
		}
	}
	if treeHash(t, out) != before {
		t.Error("a refused schema wrote into the output directory")
	}
	// --allow-ref-dir widens the tree: the climbing $ref is then read.
	if code, text := runGuarded(t, dir, "", "generate", "--schema", "s/climb.json", "--out", "out", "--allow-ref-dir", "."); code != 0 {
		t.Errorf("with --allow-ref-dir .: exit %d\n%s", code, text)
	}
}

// --overlay on every command that loads a schema: applied (the header names
// it), checked (a bad one is exit 2 naming the overlay's line and pointer,
// nothing written), and per side for diff.
func TestOverlayFlag(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"overlay": {"/$defs/InitializeParams": {"x-go-name": "InitParams"}}}`), 0o644)
	os.WriteFile(bad, []byte("{\"overlay\": {\n  \"/$defs/InitializeParams\": {\"x-go-nam\": \"InitParams\"}}}"), 0o644)
	out := filepath.Join(dir, "out")
	code, text := runGuarded(t, root, "", "generate", "--overlay", good, "--out", out, "--lang", "go")
	if code != 0 {
		t.Fatalf("generate --overlay: exit %d\n%s", code, text)
	}
	types, _ := os.ReadFile(filepath.Join(out, "go", "dshproto", "types.go"))
	if !bytes.Contains(types, []byte("type InitParams struct")) || !bytes.Contains(types, []byte("// Overlay good.json sha256 ")) {
		t.Errorf("the overlay's name or the header's provenance is missing from types.go")
	}
	before := treeHash(t, out)
	badAt := located(bad, "/overlay/~1$defs~1InitializeParams/x-go-nam")
	for _, args := range [][]string{
		{"generate", "--overlay", bad, "--out", out},
		{"validate", "--overlay", bad, "-"},
		{"conformance", "--overlay", bad},
		{"tap", "--overlay", bad, "--", "true"},
		{"diff", "--new-overlay", bad, schema.Path, schema.Path},
		{"diff", "--old-overlay", bad, schema.Path, schema.Path},
	} {
		code, text := runGuarded(t, root, "", args...)
		if code != 2 || !badAt.MatchString(text) || !strings.Contains(text, `unknown overlay keyword "x-go-nam"`) {
			t.Errorf("dshgen %s: exit %d, want 2 naming %s:2\n%s", strings.Join(args, " "), code, bad, text)
		}
	}
	if treeHash(t, out) != before {
		t.Error("a bad overlay changed the output directory")
	}
	// diff with the overlay on one side sees the rename.
	code, text = runGuarded(t, root, "", "diff", "--new-overlay", good, "--fail-on", "none", schema.Path, schema.Path)
	if code != 0 || !strings.Contains(text, "InitParams") {
		t.Errorf("diff --new-overlay: exit %d, want the rename reported\n%s", code, text)
	}
	code, text = runGuarded(t, root, "", "diff", "--old-overlay", good, "--new-overlay", good, schema.Path, schema.Path)
	if code != 0 || strings.Contains(text, "InitParams") {
		t.Errorf("diff with the same overlay on both sides: exit %d\n%s", code, text)
	}
}

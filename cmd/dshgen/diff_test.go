package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// diffRoot is the module root as seen from this package's directory.
const diffRoot = "../.."

func diffCase(name, file string) string {
	return filepath.Join("testdata", "diff", name, file)
}

// TestDiffExitStatus checks --fail-on over corpus cases of every category,
// run from the repository root as a user would.
func TestDiffExitStatus(t *testing.T) {
	cases := []struct {
		name                          string
		def, none, wire, code, strict int
	}{
		{"x-no-changes", 0, 0, 0, 0, 0},
		{"optional-member-added", 0, 0, 0, 0, 0},                    // compatible
		{"union-variant-added", 0, 0, 0, 0, 1},                      // wire-strict-receivers
		{"enum-value-removed", 0, 0, 0, 1, 1},                       // strict + breaks code
		{"type-renamed", 0, 0, 0, 1, 1},                             // code-breaking
		{"required-member-added", 1, 0, 1, 1, 1},                    // wire-breaking-client-to-server
		{"x-required-member-added-server-to-client", 1, 0, 1, 1, 1}, // wire-breaking-server-to-client
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, n := diffCase(c.name, "old.json"), diffCase(c.name, "new.json")
			for _, fo := range []struct {
				args []string
				want int
			}{{nil, c.def}, {[]string{"--fail-on", "none"}, c.none}, {[]string{"--fail-on", "wire"}, c.wire},
				{[]string{"--fail-on=code"}, c.code}, {[]string{"--fail-on", "strict"}, c.strict}} {
				args := append(append([]string{"diff"}, fo.args...), o, n)
				code, out, errOut := runDshgen(t, diffRoot, args...)
				if code != fo.want {
					t.Errorf("dshgen %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, fo.want, out, errOut)
				}
				if errOut != "" {
					t.Errorf("dshgen %s: stderr %q", strings.Join(args, " "), errOut)
				}
			}
		})
	}
}

// TestDiffTextMatchesCorpus checks the CLI prints the corpus reports (the
// labels are the paths as given).
func TestDiffTextMatchesCorpus(t *testing.T) {
	dir := filepath.Join(diffRoot, "testdata", "diff", "required-member-added")
	code, out, _ := runDshgen(t, dir, "diff", "old.json", "new.json")
	want, err := os.ReadFile(filepath.Join(dir, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 || out != string(want) {
		t.Fatalf("exit %d, output:\n%s\nwant:\n%s", code, out, want)
	}
}

// TestDiffSeed001 runs the real pair: the shipped schema against the
// seed-001 revision, and compares with the committed report.
func TestDiffSeed001(t *testing.T) {
	code, out, errOut := runDshgen(t, diffRoot, "diff", "schema/0.0.1/dsh-sdk-protocol.schema.json",
		"testdata/diff/seed-001/dsh-sdk-protocol.seed-001.schema.json")
	want, err := os.ReadFile(filepath.Join(diffRoot, "testdata", "diff", "seed-001", "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 || out != string(want) || errOut != "" {
		t.Fatalf("exit %d, stderr %q, output:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	// --fail-on none reports the same and always exits 0.
	if code, _, _ := runDshgen(t, diffRoot, "diff", "--fail-on", "none", "schema/0.0.1/dsh-sdk-protocol.schema.json",
		"testdata/diff/seed-001/dsh-sdk-protocol.seed-001.schema.json"); code != 0 {
		t.Fatalf("--fail-on none: exit %d", code)
	}
}

// TestDiffJSON checks the machine format.
func TestDiffJSON(t *testing.T) {
	code, out, _ := runDshgen(t, diffRoot, "diff", "--format", "json",
		diffCase("x-type-used-both-ways", "old.json"), diffCase("x-type-used-both-ways", "new.json"))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Old, New string
		Worst    string
		Counts   map[string]int
		Findings []struct {
			Rule, Category, Direction, Breaks, Subject, Old, New, Message string
			Code                                                          bool
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Worst != "wire-breaking-client-to-server" || len(doc.Findings) != 2 ||
		doc.Counts["wire-breaking-client-to-server"] != 1 || doc.Counts["wire-breaking-server-to-client"] != 1 {
		t.Fatalf("report: %s", out)
	}
	for _, f := range doc.Findings {
		if f.Rule != "value-type-changed" || f.Subject != "Circle.r" || f.Old != "#/$defs/Circle/properties/r" || !f.Code || f.Breaks == "" {
			t.Errorf("finding %+v", f)
		}
	}
	// No changes: an empty list, not null.
	_, out, _ = runDshgen(t, diffRoot, "diff", "--format", "json", diffCase("x-no-changes", "old.json"), diffCase("x-no-changes", "new.json"))
	if !strings.Contains(out, `"findings": []`) || !strings.Contains(out, `"worst": ""`) {
		t.Fatalf("empty report: %s", out)
	}
}

// TestDiffUsageErrors checks every usage and input error exits 2 with a
// message on stderr and nothing on stdout.
func TestDiffUsageErrors(t *testing.T) {
	o, n := diffCase("x-no-changes", "old.json"), diffCase("x-no-changes", "new.json")
	bad := filepath.Join("testdata", "bad-schemas")
	var badSchema string
	if ents, err := os.ReadDir(filepath.Join(diffRoot, bad)); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				badSchema = filepath.Join(bad, e.Name())
				break
			}
		}
	}
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"one argument", []string{"diff", o}, "two schemas"},
		{"three arguments", []string{"diff", o, n, n}, "two schemas"},
		{"bad format", []string{"diff", "--format", "yaml", o, n}, "--format"},
		{"bad fail-on", []string{"diff", "--fail-on", "sometimes", o, n}, "--fail-on"},
		{"unknown flag", []string{"diff", "--colour", o, n}, "unknown flag"},
		{"missing old", []string{"diff", "no/such.json", n}, "old schema: no/such.json"},
		{"missing new", []string{"diff", o, "no/such.json"}, "new schema: no/such.json"},
	}
	if badSchema != "" {
		cases = append(cases, struct {
			name string
			args []string
			msg  string
		}{"bad schema", []string{"diff", badSchema, n}, "old schema"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runDshgen(t, diffRoot, c.args...)
			if code != 2 || out != "" || !strings.Contains(errOut, c.msg) {
				t.Errorf("dshgen %s: exit %d, stdout %q, stderr %q (want exit 2 mentioning %q)", strings.Join(c.args, " "), code, out, errOut, c.msg)
			}
		})
	}
}

// TestDiffGitRevisions compares REV:path against the working tree in a
// scratch repository, including a $ref'd sibling file that only changes
// between the revisions.
func TestDiffGitRevisions(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "x-methods": {"ping": {"kind": "request", "direction": "client-to-server",
    "params": {"$ref": "#/$defs/PingParams"}, "result": {"$ref": "#/$defs/PingResult"}}},
  "$defs": {
    "PingParams": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    "PingResult": {"type": "object", "properties": {"echo": {"$ref": "common.json#/$defs/Echo"}}, "required": ["echo"]}
  }
}
`
	write("schema/proto.json", root)
	write("schema/common.json", `{"$defs": {"Echo": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}`+"\n")
	gitIn("init", "-q")
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "one")
	// The second revision: a new required param, and the sibling file's Echo.n becomes a string.
	write("schema/proto.json", strings.Replace(root, `"properties": {"n": {"type": "integer"}}, "required": ["n"]},
    "PingResult"`, `"properties": {"n": {"type": "integer"}, "tag": {"type": "string"}}, "required": ["n", "tag"]},
    "PingResult"`, 1))
	write("schema/common.json", `{"$defs": {"Echo": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}}}`+"\n")

	code, out, errOut := runDshgen(t, dir, "diff", "HEAD:schema/proto.json", "schema/proto.json")
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"dshgen diff HEAD:schema/proto.json → schema/proto.json",
		"required-member-added  PingParams.tag",
		"value-type-changed  Echo.n",
		"common.json#/$defs/Echo/properties/n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// From a subdirectory, REV:path is relative to the current directory,
	// like the file path beside it.
	code, out, errOut = runDshgen(t, filepath.Join(dir, "schema"), "diff", "HEAD:proto.json", "proto.json")
	if code != 1 || !strings.Contains(out, "required-member-added  PingParams.tag") {
		t.Fatalf("from schema/: exit %d, stderr %q\n%s", code, errOut, out)
	}
	// Both sides at revisions: nothing changed between HEAD and HEAD.
	code, out, _ = runDshgen(t, dir, "diff", "HEAD:schema/proto.json", "HEAD:schema/proto.json")
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("HEAD vs HEAD: exit %d\n%s", code, out)
	}
	// A revision or path git does not have is an input error.
	code, out, errOut = runDshgen(t, dir, "diff", "no-such-rev:schema/proto.json", "schema/proto.json")
	if code != 2 || out != "" || !strings.Contains(errOut, `unknown git revision "no-such-rev"`) {
		t.Fatalf("unknown revision: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = runDshgen(t, dir, "diff", "HEAD:schema/nope.json", "schema/proto.json")
	if code != 2 || out != "" || !strings.Contains(errOut, "HEAD:schema/nope.json") {
		t.Fatalf("missing in revision: exit %d, stderr %q", code, errOut)
	}
	// A schema problem in a revision names REV:path, not the temporary copy.
	write("schema/proto.json", "{\"x-methods\": 3}\n")
	gitIn("commit", "-q", "-am", "broken")
	code, out, errOut = runDshgen(t, dir, "diff", "HEAD:schema/proto.json", "HEAD~1:schema/proto.json")
	if code != 2 || out != "" || !strings.Contains(errOut, "HEAD:schema/proto.json") || strings.Contains(errOut, "dshgen-diff-rev-") {
		t.Fatalf("broken revision: exit %d, stderr %q", code, errOut)
	}
	// Outside a repository REV:path is an input error.
	code, _, errOut = runDshgen(t, t.TempDir(), "diff", "HEAD:proto.json", filepath.Join(dir, "schema", "proto.json"))
	if code != 2 || !strings.Contains(errOut, "not inside a git repository") {
		t.Fatalf("outside a repository: exit %d, stderr %q", code, errOut)
	}
}

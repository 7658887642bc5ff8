package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runDshgen runs the built binary in dir and returns its exit code, stdout
// and stderr.
func runDshgen(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return runDshgenEnv(t, dir, nil, args...)
}

// runDshgenEnv is runDshgen with extra environment (later entries win).
// DSHGEN_TYPESCRIPT points at the repository's TypeScript unless env sets
// it, so conformance finds it from any directory.
func runDshgenEnv(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(dshgenBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "DSHGEN_TYPESCRIPT="+filepath.Join(repoRoot(t), repoTypeScript)), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// treeHash hashes every path and file under dir, so a test can tell that
// nothing at all changed (no file written, none left behind).
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00"))
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

func repoRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}

// TestGenerateBadSchemas: each broken schema exits 2 with the file, line
// and JSON pointer of the problem, and the output directory is untouched.
func TestGenerateBadSchemas(t *testing.T) {
	root := repoRoot(t)
	cases := []struct {
		file string
		want []string
	}{
		{"bad-json.json", []string{"bad-json.json:4:", "invalid JSON"}},
		{"unresolvable-ref.json", []string{":4: /$defs/A/properties/b/$ref:", `"#/$defs/Missing" does not resolve`}},
		{"remote-ref.json", []string{"/$defs/A/properties/b/$ref", "remote $ref", "refused", "never fetches"}},
		{"missing-file-ref.json", []string{"/$defs/A/properties/b/$ref", "no-such-file.json"}},
		{"collision.json", []string{"/$defs/Host/properties/host-name", "/$defs/Host/properties/host_name", "Go (HostName)", "Python (host_name)", "x-name"}},
		{"bad-method-entry.json", []string{"/x-methods/ping:", "'timeout' not allowed", "/x-methods/pong/kind:"}},
		{"method-unknown-type.json", []string{"/x-methods/ping/params/$ref", "does not resolve"}},
		{"ref-cycle.json", []string{"/$defs/A:", "#/$defs/A → #/$defs/B → #/$defs/A"}},
		{"required-cycle.json", []string{"/$defs/Node:", "cycle of required members"}},
		{"not-a-schema.json", []string{"/$defs/A/type:", "draft 2020-12"}},
		{"unnamed-branch.json", []string{"/$defs/U/oneOf/1:", "this union branch has no name", "x-name"}},
	}
	// An existing, fresh output must survive a failed run byte for byte:
	// the shipped schema is generated once and each case gets a copy of its
	// own (the same bytes as generating it per case, one generation instead
	// of eleven); the cases are independent and run in parallel.
	fresh := t.TempDir()
	if code, _, stderr := runDshgen(t, root, "generate", "--out", fresh, "--lang", "go"); code != 0 {
		t.Fatalf("generating the shipped schema: exit %d: %s", code, stderr)
	}
	freshHash := treeHash(t, fresh)
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			if err := os.CopyFS(out, os.DirFS(fresh)); err != nil {
				t.Fatal(err)
			}
			before := treeHash(t, out)
			if before != freshHash {
				t.Fatalf("the copy of the fresh output differs from it")
			}
			code, _, stderr := runDshgen(t, root, "generate", "--schema", filepath.Join("testdata", "bad-schemas", c.file), "--out", out)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if after := treeHash(t, out); after != before {
				t.Errorf("the output directory changed on a failed run")
			}
		})
	}
}

// TestGenerateDeterministic: two runs give the same bytes, and a fresh
// output passes --check.
func TestGenerateDeterministic(t *testing.T) {
	root := repoRoot(t)
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if code, _, stderr := runDshgen(t, root, "generate", "--out", d); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	if treeHash(t, a) != treeHash(t, b) {
		t.Fatal("two runs of generate wrote different output")
	}
	if code, stdout, stderr := runDshgen(t, root, "generate", "--check", "--out", a); code != 0 {
		t.Fatalf("--check on fresh output: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestGenerateCheckDrift: --check exits 1 with a unified diff and the fix
// command when a generated file was edited or a file an earlier run
// generated is no longer generated (stale), calls no user file stale, and
// writes nothing; generate then repairs both.
func TestGenerateCheckDrift(t *testing.T) {
	root := repoRoot(t)
	out := t.TempDir()
	if code, _, stderr := runDshgen(t, root, "generate", "--out", out, "--lang", "go", "--go-module", "example.com/x/dshproto"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	types := filepath.Join(out, "go", "dshproto", "types.go")
	src, _ := os.ReadFile(types)
	edited := bytes.Replace(src, []byte("type SessionEvent interface"), []byte("type SessionEventX interface"), 1)
	os.WriteFile(types, edited, 0o644)
	mine := filepath.Join(out, "go", "dshproto", "mine.go")
	os.WriteFile(mine, []byte("package dshproto\n"), 0o644)
	before := treeHash(t, out)
	code, stdout, stderr := runDshgen(t, root, "generate", "--check", "--out", out, "--lang", "go")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, w := range []string{"--- a/", "+++ b/", "-type SessionEventX interface", "+type SessionEvent interface", "stale file not generated from the schema: " + filepath.Join(out, "go", "dshproto", "go.mod")} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q", w)
		}
	}
	if strings.Contains(stdout+stderr, "mine.go") {
		t.Errorf("the user's mine.go is reported:\n%s%s", stdout, stderr)
	}
	if !strings.Contains(stderr, dshgenBin+" generate --lang go --out "+out+"\n") {
		t.Errorf("stderr lacks the fix command:\n%s", stderr)
	}
	if treeHash(t, out) != before {
		t.Error("--check changed the output directory")
	}
	// generate repairs both: the edit and the stale file.
	if code, _, stderr := runDshgen(t, root, "generate", "--out", out, "--lang", "go"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "go", "dshproto", "go.mod")); err == nil {
		t.Error("stale file left in place")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("the user's file was removed")
	}
	if code, _, _ := runDshgen(t, root, "generate", "--check", "--out", out, "--lang", "go"); code != 0 {
		t.Errorf("--check after generate: exit %d", code)
	}
}

// TestCommittedOutputFresh: out/ in the repository is what the shipped
// schema generates (the drift check CI relies on).
func TestCommittedOutputFresh(t *testing.T) {
	code, stdout, stderr := runDshgen(t, repoRoot(t), "generate", "--check")
	if code != 0 {
		t.Fatalf("out/ is stale (exit %d):\n%s%s", code, stdout, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runDshgen(t, repoRoot(t), "--version")
	if code != 0 || !strings.Contains(stdout, "dshgen "+version) || !strings.Contains(stdout, "sha256 ") {
		t.Fatalf("exit %d: %q", code, stdout)
	}
	b, _ := os.ReadFile(filepath.Join(repoRoot(t), "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	sum := sha256.Sum256(b)
	if !strings.Contains(stdout, hex.EncodeToString(sum[:])) {
		t.Errorf("--version does not print the schema's sha256: %q", stdout)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"generate", "--lang", "cobol"}, {"generate", "--no-such-flag"}, {"no-such-command"}} {
		if code, _, _ := runDshgen(t, repoRoot(t), args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestGenerateRevisions: without --revision generate writes both shipped
// revisions under one root (0.0.1 in DIR/{go,python,ts}, 0.2.1 in
// DIR/0.2.1/...), --revision one of them, and --check sees drift in
// either.
func TestGenerateRevisions(t *testing.T) {
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "o")
	if code, _, stderr := runDshgen(t, root, "generate", "--out", out, "--lang", "go"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	for _, p := range []string{"go/dshproto/types.go", "0.2.1/go/dshproto/types.go"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "0.2.1", "go", "dshproto", "methods.go"))
	if !strings.Contains(string(b), "session/wait") {
		t.Errorf("0.2.1 bindings lack session/wait")
	}
	p := filepath.Join(out, "0.2.1", "go", "dshproto", "methods.go")
	os.WriteFile(p, append(b, '\n'), 0o644)
	code, stdout, stderr := runDshgen(t, root, "generate", "--out", out, "--lang", "go", "--check")
	if code != 1 || !strings.Contains(stdout, "0.2.1/go/dshproto/methods.go") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	one := filepath.Join(t.TempDir(), "one")
	if code, _, stderr := runDshgen(t, root, "generate", "--revision", "0.2.1", "--out", one, "--lang", "go"); code != 0 {
		t.Fatalf("generate --revision: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(one, "go", "dshproto", "methods.go")); err != nil {
		t.Error(err)
	}
	if code, _, stderr := runDshgen(t, root, "generate", "--revision", "9.9"); code != 2 || !strings.Contains(stderr, "known: 0.0.1, 0.2.1") {
		t.Errorf("9.9: exit %d %s", code, stderr)
	}
}

// TestGeneratePackageNames: a --package name a selected language cannot
// take stops generate (and conformance) before anything is written: exit
// 2, the language and why, and a name that works; the same name is taken
// when only languages that accept it are selected.
func TestGeneratePackageNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kv.schema.json"), []byte(kvSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pkg  string
		want []string
	}{
		{"my-proto", []string{"Go rejects it: a Go package name is an identifier", "Python rejects it", "try --package my_proto"}},
		{"123abc", []string{"not starting with a digit", "try --package pkg_123abc"}},
		{"a.b", []string{"Go rejects it", "try --package a_b"}},
		{"type", []string{`Go rejects it: "type" is a Go keyword`, "try --package typeproto"}},
		{"go", []string{`"go" is a Go keyword`, "try --package goproto"}},
		{"class", []string{`Python rejects it: "class" is a Python keyword`, "try --package classproto"}},
		{"", []string{`--package "": Go, Python and TypeScript reject it: the name is empty`, "try --package dshproto"}},
		{"TodoProto", []string{"TypeScript rejects it: an npm package name is lower case", "try --package todoproto"}},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out-"+c.pkg)
		code, stdout, stderr := runDshgen(t, dir, "generate", "--schema", "kv.schema.json", "--out", out, "--package", c.pkg)
		if code != 2 {
			t.Errorf("--package %q: exit %d, want 2\n%s%s", c.pkg, code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("--package %q: stderr lacks %q:\n%s", c.pkg, w, stderr)
			}
		}
		if strings.Contains(stderr, "emitter") {
			t.Errorf("--package %q: an emitter's error got through:\n%s", c.pkg, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--package %q: %s was created", c.pkg, out)
		}
	}
	if code, _, stderr := runDshgen(t, dir, "conformance", "--schema", "kv.schema.json", "--package", "my-proto", "--lang", "go"); code != 2 || !strings.Contains(stderr, "Go rejects it") {
		t.Errorf("conformance --package my-proto: exit %d\n%s", code, stderr)
	}
	for _, ok := range [][]string{{"my-proto", "ts"}, {"TodoProto", "go,python"}} {
		out := filepath.Join(dir, "ok-"+ok[0])
		if code, _, stderr := runDshgen(t, dir, "generate", "--schema", "kv.schema.json", "--out", out, "--package", ok[0], "--lang", ok[1]); code != 0 {
			t.Errorf("--package %s --lang %s: exit %d\n%s", ok[0], ok[1], code, stderr)
		}
	}
}

// TestSchemaWarningsPrinted: a schema whose method table is misspelt
// generates (exit 0) and validates, with a warning on stderr naming the
// misspelt keyword, the keyword meant and that there is no method; the
// same schema spelt right prints none.
func TestSchemaWarningsPrinted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := strings.Replace(kvSchema, `"x-methods"`, `"x-methds"`, 1)
	if typo == kvSchema {
		t.Fatal("kvSchema has no x-methods")
	}
	os.WriteFile(filepath.Join(dir, "typo.json"), []byte(typo), 0o644)
	os.WriteFile(filepath.Join(dir, "kv.json"), []byte(kvSchema), 0o644)
	os.WriteFile(filepath.Join(dir, "f.jsonl"), []byte(`{"jsonrpc":"2.0","id":1,"method":"kv/get","params":{"key":"k"}}`+"\n"), 0o644)
	want := []string{"dshgen: warning: typo.json:", "/x-methds: dshgen reads no keyword x-methds: did you mean x-methods?",
		"dshgen: warning: typo.json:1: no JSON-RPC method: the schema has no x-methods"}
	for _, args := range [][]string{{"generate", "--schema", "typo.json", "--out", "o"}, {"validate", "--schema", "typo.json", "f.jsonl"}} {
		code, stdout, stderr := runDshgen(t, dir, args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, w, stderr)
			}
		}
	}
	for _, args := range [][]string{{"generate", "--schema", "kv.json", "--out", "o2"}, {"validate", "--schema", "kv.json", "f.jsonl"}} {
		if code, stdout, stderr := runDshgen(t, dir, args...); code != 0 || strings.Contains(stderr, "warning:") {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}

// TestUsageErrorsSuggest: an unknown flag near a flag of the command, and
// an unknown or missing completion shell, are usage errors (exit 2) that
// say what was meant or what is supported; a supported shell still gets
// its script.
func TestUsageErrorsSuggest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--schem", "x.json"}, "dshgen: unknown flag: --schem (did you mean --schema?)"},
		{[]string{"generate", "--pakage", "p"}, "unknown flag: --pakage (did you mean --package?)"},
		{[]string{"validate", "--baselin", "b.jsonl"}, "unknown flag: --baselin (did you mean --baseline?)"},
		{[]string{"tap", "--captur", "c.log", "--", "cat"}, "unknown flag: --captur (did you mean --capture?)"},
		{[]string{"generate", "--zzz"}, "dshgen: unknown flag: --zzz\n"},
		{[]string{"completion", "tcsh"}, `dshgen: completion: unknown shell "tcsh" (supported: bash, fish, powershell, zsh)`},
		{[]string{"completion"}, "completion needs a shell: dshgen completion SHELL, one of bash, fish, powershell, zsh"},
	}
	for _, c := range cases {
		code, stdout, stderr := runDshgen(t, t.TempDir(), c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", c.args, code, c.want, stdout, stderr)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if code, stdout, stderr := runDshgen(t, t.TempDir(), "completion", sh); code != 0 || !strings.Contains(stdout, "dshgen") {
			t.Errorf("completion %s: exit %d\n%s", sh, code, stderr)
		}
	}
}

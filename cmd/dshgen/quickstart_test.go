package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEQuickstart runs the commands of the README's quickstart block,
// as a newcomer would type them, with the installed binary on PATH, in a
// directory holding only testdata/quickstart's files; the validate output
// must be the one the README shows, the capture the tap wrote must
// round-trip through all three bindings, and the generated Go module must
// build on its own.
func TestREADMEQuickstart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands, want := quickstartBlock(t, string(readme))
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "quickstart")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	copyFiles(t, src, dir, entries)
	clientEntries, err := os.ReadDir(filepath.Join(src, "client"))
	if err != nil {
		t.Fatal(err)
	}
	copyFiles(t, filepath.Join(src, "client"), filepath.Join(dir, "client"), clientEntries)
	env := append(os.Environ(), "PATH="+filepath.Dir(dshgenBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	tsc := filepath.Join("..", "..", "testdata", "ts", "node_modules", "typescript")
	if abs, err := filepath.Abs(tsc); err == nil {
		if _, err := os.Stat(abs); err == nil {
			env = append(env, "DSHGEN_TYPESCRIPT="+abs)
		} else if os.Getenv("DSHGEN_REQUIRE_TSC") == "" {
			t.Logf("TypeScript is not installed in testdata/ts: the conformance line runs without ts")
			env = append(env, "DSHGEN_QUICKSTART_NO_TS=1")
		}
	}
	for _, line := range commands {
		if strings.Contains(line, "dshgen conformance") && hasEnv(env, "DSHGEN_QUICKSTART_NO_TS") {
			line += " --lang go,python"
		}
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		switch {
		case strings.HasPrefix(line, "dshgen validate"):
			if code != 1 {
				t.Errorf("%s: exit %d, want 1 (findings)\n%s", line, code, stderr.String())
			}
			if got := stdout.String() + stderr.String(); got != want {
				t.Errorf("%s: the README shows\n%s\nthe command prints\n%s", line, want, got)
			}
		case err != nil:
			t.Errorf("%s: %v\nstdout:\n%s\nstderr:\n%s", line, err, stdout.String(), stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kv.log")); err != nil {
		t.Errorf("the tap line wrote no capture: %v", err)
	}
	// -trimpath (both builds): the build cache keys the packages by their
	// content, not by this temporary directory, so unchanged code is not
	// compiled again on the next run.
	build := exec.Command("go", "build", "-trimpath", "./...")
	build.Dir = filepath.Join(dir, "kvgen", "go", "kvproto")
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -trimpath")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the generated Go module does not build on its own: %v\n%s", err, out)
	}
	// The README's SDK example: the client module beside kvgen calls the
	// toy server through the generated Go SDK.
	build = exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "kvclient"), ".")
	build.Dir = filepath.Join(dir, "client")
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -trimpath")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's Go client does not build: %v\n%s", err, out)
	}
	run := exec.Command(filepath.Join(dir, "kvclient"))
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's Go client: %v\n%s", err, out)
	}
	if want := "greeting = \"hello\"\nchanged: seen = \"greeting\"\n"; string(out) != want {
		t.Errorf("the README's Go client printed\n%s\nwant\n%s", out, want)
	}
}

// copyFiles copies the regular files among entries from src to dst.
func copyFiles(t *testing.T, src, dst string, entries []os.DirEntry) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// quickstartBlock returns the command lines of the README's quickstart
// block and the text block that shows validate's output.
func quickstartBlock(t *testing.T, readme string) (commands []string, output string) {
	t.Helper()
	start := strings.Index(readme, "<!-- quickstart")
	end := strings.Index(readme, "<!-- /quickstart -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no <!-- quickstart --> ... <!-- /quickstart --> block")
	}
	block := readme[start:end]
	fence := func(lang string) string {
		i := strings.Index(block, "```"+lang+"\n")
		if i < 0 {
			t.Fatalf("the quickstart block has no ```%s fence", lang)
		}
		rest := block[i+len(lang)+4:]
		j := strings.Index(rest, "```")
		if j < 0 {
			t.Fatalf("the quickstart ```%s fence is not closed", lang)
		}
		return rest[:j]
	}
	for _, l := range strings.Split(strings.TrimSpace(fence("sh")), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			commands = append(commands, l)
		}
	}
	return commands, fence("text")
}

func hasEnv(env []string, name string) bool {
	for _, e := range env {
		if strings.HasPrefix(e, name+"=") {
			return true
		}
	}
	return false
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformanceGo: the committed Go bindings round-trip the default
// corpus and the validator catches every invalid vector.
func TestConformanceGo(t *testing.T) {
	code, stdout, stderr := runDshgen(t, repoRoot(t), "conformance", "--lang", "go")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "invalid vectors caught: 29/29") {
		t.Errorf("no summary: %s", stdout)
	}
}

// TestConformanceCatchesBrokenEmitter: an emitter that drops an optional
// member (here: the Go bindings no longer write assistant/message usage) is
// caught, with the language, the line and the JSON pointer of the member.
func TestConformanceCatchesBrokenEmitter(t *testing.T) {
	root := repoRoot(t)
	out := t.TempDir()
	if code, _, stderr := runDshgen(t, root, "generate", "--out", out, "--lang", "go"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	types := filepath.Join(out, "go", "dshproto", "json.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	drop := "\tif v.Usage != nil {\n\t\tw.value(\"usage\", v.Usage)\n\t}\n"
	if !strings.Contains(string(src), drop) {
		t.Fatalf("the generated code changed shape; update the perturbation")
	}
	os.WriteFile(types, []byte(strings.Replace(string(src), drop, "", 1)), 0o644)
	code, stdout, _ := runDshgen(t, root, "conformance", "--lang", "go", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stdout)
	}
	want := "go: re-encodes differently: member missing in the second value at /params/event/data/usage"
	if !strings.Contains(stdout, want) {
		t.Errorf("report lacks %q:\n%s", want, stdout)
	}
}

// TestConformanceUserCapture: a capture the user points at is round-tripped.
func TestConformanceUserCapture(t *testing.T) {
	capture := filepath.Join(root(t), "..", "shared", "fixtures", "real-captures", "subagent", "interleaved.log")
	code, stdout, stderr := runDshgen(t, repoRoot(t), "conformance", "--lang", "go", capture)
	if code != 0 || !strings.Contains(stdout, "1 file, 68 frames") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func root(t *testing.T) string { return repoRoot(t) }

// TestConformancePython: the committed Python bindings round-trip the
// default corpus (the package needs only the standard library).
func TestConformancePython(t *testing.T) {
	code, stdout, stderr := runDshgen(t, repoRoot(t), "conformance", "--lang", "python")
	if code != 0 || !strings.Contains(stdout, "invalid vectors caught: 29/29") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

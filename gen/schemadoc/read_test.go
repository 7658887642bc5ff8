package schemadoc

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each kind of file that is not a schema file is refused before anything
// is read from it, and quickly: none of these may block or stream.
func TestReadRefusesWhatIsNotASchemaFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	huge := filepath.Join(dir, "huge.json")
	f, _ := os.Create(huge)
	f.Truncate(MaxFileBytes + 1) // sparse: nothing is written
	f.Close()
	cases := map[string]string{
		"/dev/zero":                        "a device",
		"/dev/null":                        "a device",
		fifo:                               "a FIFO",
		dir:                                "a directory",
		empty:                              "empty",
		huge:                               "over the 8388608-byte limit",
		filepath.Join(dir, "missing.json"): "no such file",
	}
	if runtime.GOOS == "linux" {
		cases["/proc/self/status"] = "proc pseudo-filesystem"
		cases["/proc/kmsg"] = "proc pseudo-filesystem" // size 0, "regular", blocks on read
		cases["/sys/kernel/mm/transparent_hugepage/enabled"] = "sysfs pseudo-filesystem"
	}
	for path, want := range cases {
		if _, err := os.Stat(path); err != nil && !strings.Contains(want, "no such") {
			continue // not on this machine (e.g. no /sys entry in a container)
		}
		start := time.Now()
		_, err := readFile(path, MaxFileBytes)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", path, err, want)
		}
		// A guard against reading an endless file to its end, not a
		// speed check.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: took %v", path, d)
		}
	}
	ok := filepath.Join(dir, "ok.json")
	os.WriteFile(ok, []byte(`{"type":"string"}`), 0o644)
	if b, err := readFile(ok, MaxFileBytes); err != nil || string(b) != `{"type":"string"}` {
		t.Errorf("regular file: %q %v", b, err)
	}
	if _, err := readFile(ok, 5); err == nil || !strings.Contains(err.Error(), "over the 5-byte limit") {
		t.Errorf("cap: %v", err)
	}
}

// The root schema goes through the same guards as every referenced file.
func TestOpenRootGuards(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "schema.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo} {
		_, err := Open(Source{Path: p}, nil)
		if err == nil || !strings.Contains(err.Error(), p+": cannot read the schema: it is a") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

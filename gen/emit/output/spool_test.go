package output

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// TestSpooledFiles: files whose bytes are in an ir.Spool are written,
// listed in the manifest and found up to date exactly as the same files in
// memory.
func TestSpooledFiles(t *testing.T) {
	spool := ir.NewSpool()
	defer spool.Close()
	mem := files("go/p/x.go", hdr+"package p\n", "ts/src/x.ts", hdr+"export {};\n")
	var spooled []ir.File
	for _, f := range mem {
		s, err := spool.Put(f)
		if err != nil {
			t.Fatal(err)
		}
		if s.Data != nil || s.Spool == nil || s.SHA256() != f.SHA256() || s.Size() != f.Size() {
			t.Fatalf("spooled %s: %+v", f.Path, s)
		}
		spooled = append(spooled, s)
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	mustWrite(t, Target{Dir: a, Files: mem})
	res := mustWrite(t, Target{Dir: b, Files: spooled})
	if got := len(res.Targets[0].Changed); got != 3 {
		t.Errorf("spooled: changed %d, want 3", got)
	}
	if !same(snapshot(t, a), snapshot(t, b)) {
		t.Errorf("spooled files differ from the same files in memory:\n%s", keys(snapshot(t, b)))
	}
	if res := mustWrite(t, Target{Dir: a, Files: spooled}); res.Targets[0].Unchanged != 2 || len(res.Targets[0].Changed) != 0 {
		t.Errorf("spooled over the same files in memory: %+v", res.Targets[0])
	}
	// A spooled file that changed is written.
	w, err := spool.Create()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString(hdr + "package p // v2\n")
	v2, err := w.Close("go/p/x.go")
	if err != nil {
		t.Fatal(err)
	}
	if res := mustWrite(t, Target{Dir: a, Files: []ir.File{v2, spooled[1]}}); len(res.Targets[0].Changed) != 2 { // the file and the manifest
		t.Errorf("changed spooled file: %+v", res.Targets[0])
	}
	if got, _ := os.ReadFile(filepath.Join(a, "go", "p", "x.go")); string(got) != hdr+"package p // v2\n" {
		t.Errorf("x.go is %q", got)
	}
}

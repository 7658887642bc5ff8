package output

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/golang"
	"github.com/dshgen/dshgen/gen/emit/python"
	"github.com/dshgen/dshgen/gen/emit/typescript"
	"github.com/dshgen/dshgen/gen/ir"
)

// shippedFiles emits the shipped schema's bindings (what generate writes
// under out/).
func shippedFiles(b *testing.B) []ir.File {
	m, err := ir.Load(filepath.Join("..", "..", "..", "schema", "0.0.1", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		b.Fatal(err)
	}
	var all []ir.File
	for _, emit := range []func(*ir.Model, ir.Options) ([]ir.File, error){golang.Emit, python.Emit, typescript.Emit} {
		fs, err := emit(m, ir.Options{Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, fs...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	return all
}

// BenchmarkWriteFresh: the whole transaction into an empty directory (plan,
// stage with fsync, commit, switch). README.md has the numbers.
func BenchmarkWriteFresh(b *testing.B) {
	files := shippedFiles(b)
	tmp := b.TempDir()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(tmp, "run", string(rune('a'+i%26)), filepath.Base(b.Name())+string(rune('0'+i/26%10)))
		os.RemoveAll(dir)
		if _, err := Write([]Target{{Dir: dir, Files: files}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteUpToDate: a run with nothing to change (the common case
// of a regeneration): lock, read and compare every file and the manifest.
func BenchmarkWriteUpToDate(b *testing.B) {
	files := shippedFiles(b)
	dir := b.TempDir()
	if _, err := Write([]Target{{Dir: dir, Files: files}}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Write([]Target{{Dir: dir, Files: files}}); err != nil {
			b.Fatal(err)
		}
	}
}

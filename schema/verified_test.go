package schema_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/schemadoc"
	"github.com/dshgen/dshgen/schema"
)

// TestVerifiedList: verified.txt names exactly the *.schema.json files of
// this tree with their current sha256, and each of them passes
// meta-validation (so a load that skips it for these bytes loses nothing).
// Symbolic links are not listed (their target is). Regenerate with:
//
//	cd schema && for f in $(find . -name '*.schema.json' -type f | sort); do echo "$(sha256sum $f | cut -d' ' -f1) ${f#./}"; done > verified.txt
func TestVerifiedList(t *testing.T) {
	var want []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".schema.json") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		want = append(want, hex.EncodeToString(sum[:])+" "+filepath.ToSlash(p))
		set, err := schemadoc.Open(schemadoc.Source{Path: p}, nil)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if err := set.MetaValidate(); err != nil {
			t.Errorf("%s does not pass meta-validation: %v", p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	raw, err := os.ReadFile("verified.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(raw)), "\n")
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verified.txt is stale:\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(schema.Verified()); n != len(want) {
		t.Errorf("Verified() has %d entries, want %d", n, len(want))
	}
	if !schema.Verified()[schema.SHA256()] {
		t.Error("the embedded schema is not in Verified()")
	}
}

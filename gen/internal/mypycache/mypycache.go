// Package mypycache keeps mypy's cache between test runs, for the tests
// that type-check generated Python (gen/emit, gen/hardinputs), with the
// protocol of .ci/cache.sh's snapshot_restore and snapshot_save that
// testdata/python/check.sh uses too: one tar file per slot (a tree of
// module names of its own),
//
//	$DSHGEN_MYPY_CACHE/<slot>.tar, by default
//	<dir of DSHGEN_PY_WORK>/mypy-<key of DSHGEN_PY_WORK>/<slot>.tar
//
// beside the Python tools' install python-tools-<key>, so that a new set of
// pins starts a new cache. A run extracts the slot's tar into a cache
// directory of its own (Restore), runs mypy with --cache-dir there and,
// only when mypy passed, writes a tar of that directory beside the old one
// and renames it over it (Save): two runs at once (two clones, parallel
// test packages) never share a cache directory (mypy's sqlite cache does
// not take two writers), and a reader gets a whole tar, old or new. mypy
// checks every cached module against the hash of its source and against
// the options, so a warm cache only skips unchanged modules
// (TestMypyCacheSeesEdits in gen/emit shows edits are still seen). A
// missing or unreadable snapshot is a cold cache: the snapshots only make
// mypy faster.
package mypycache

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Dir is the directory of the snapshots: $DSHGEN_MYPY_CACHE, else the one
// beside $DSHGEN_PY_WORK, else "" (no Python tools' install: every run
// starts cold and nothing is saved).
func Dir() string {
	if d := os.Getenv("DSHGEN_MYPY_CACHE"); d != "" {
		return d
	}
	work := os.Getenv("DSHGEN_PY_WORK")
	key, ok := strings.CutPrefix(filepath.Base(work), "python-tools-")
	if work == "" || !ok {
		return ""
	}
	return filepath.Join(filepath.Dir(work), "mypy-"+key)
}

// Restore fills the empty directory cache with slot's snapshot, when there
// is one. An error (an unreadable snapshot) leaves cache empty, a cold
// cache, and says why.
func Restore(slot, cache string) error {
	dir := Dir()
	if dir == "" {
		return nil
	}
	tarPath := filepath.Join(dir, slot+".tar")
	if _, err := os.Stat(tarPath); err != nil {
		return nil
	}
	if b, err := exec.Command("tar", "-C", cache, "-xf", tarPath).CombinedOutput(); err != nil {
		if rerr := emptyDir(cache); rerr != nil {
			return rerr
		}
		return fmt.Errorf("mypy cache %s not used: %v: %s", tarPath, err, b)
	}
	return nil
}

// Save replaces slot's snapshot by a tar of the directory cache (call it
// only when mypy passed). Nothing is saved without a snapshot directory.
func Save(slot, cache string) error {
	dir := Dir()
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("mypy cache not saved: %w", err)
	}
	tmp, err := os.CreateTemp(dir, slot+".tar.")
	if err != nil {
		return fmt.Errorf("mypy cache not saved: %w", err)
	}
	tmp.Close()
	if b, err := exec.Command("tar", "-C", cache, "-cf", tmp.Name(), ".").CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("mypy cache not saved: %v: %s", err, b)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, slot+".tar")); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("mypy cache not saved: %w", err)
	}
	return nil
}

// emptyDir removes what a failed extraction left in dir.
func emptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

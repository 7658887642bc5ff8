package emit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mypy's cache is kept between runs as one snapshot per slot (a tree of
// module names of its own), the protocol of .ci/cache.sh's snapshot_restore
// and snapshot_save that testdata/python/check.sh uses too:
//
//	$DSHGEN_MYPY_CACHE/<slot>.tar, by default
//	<dir of DSHGEN_PY_WORK>/mypy-<key of DSHGEN_PY_WORK>/<slot>.tar
//
// (beside the Python tools' install python-tools-<key>, so a new set of
// pins starts a new cache). Each run extracts the slot's tar into a cache
// directory of its own and, only when mypy passed, writes a tar of it
// beside the old one and renames it over: two runs at once (two clones, or
// parallel test packages) never share a cache directory, and a reader gets
// a whole tar, old or new. mypy checks every cached module against the
// hash of its source (the path does not matter) and against the options,
// so a warm cache only skips unchanged modules; TestMypyCacheSeesEdits
// shows that edits are still seen. Other packages' tests may use the same
// layout with slots of their own.

// mypySnapshots is the directory of the snapshots ("" without the Python
// tools' install, when every run starts cold).
func mypySnapshots() string {
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

// runMypy runs python -m mypy ARGS in dir (env added to the environment)
// with a cache seeded from slot's snapshot, fails the test when mypy fails,
// and saves the cache as the slot's snapshot when it passed. It returns
// mypy's output.
func runMypy(t *testing.T, dir string, env []string, py, slot string, args ...string) string {
	t.Helper()
	out, err := mypyCached(t, dir, env, py, slot, args...)
	if err != nil {
		t.Fatalf("mypy %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// mypyCached is runMypy returning mypy's error instead of failing.
func mypyCached(t *testing.T, dir string, env []string, py, slot string, args ...string) (string, error) {
	t.Helper()
	cache := t.TempDir()
	snaps := mypySnapshots()
	tarPath := filepath.Join(snaps, slot+".tar")
	if snaps != "" && fileExists(tarPath) {
		// An unreadable snapshot is a cold cache.
		if b, err := exec.Command("tar", "-C", cache, "-xf", tarPath).CombinedOutput(); err != nil {
			t.Logf("mypy cache %s not used: %v\n%s", tarPath, err, b)
			if err := os.RemoveAll(cache); err != nil {
				t.Fatal(err)
			}
			cache = t.TempDir()
		}
	}
	cmd := exec.Command(py, append([]string{"-m", "mypy", "--cache-dir=" + cache}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || snaps == "" {
		return string(out), err
	}
	if err := os.MkdirAll(snaps, 0o755); err != nil {
		t.Logf("mypy cache not saved: %v", err)
		return string(out), nil
	}
	tmp, err := os.CreateTemp(snaps, slot+".tar.")
	if err != nil {
		t.Logf("mypy cache not saved: %v", err)
		return string(out), nil
	}
	tmp.Close()
	if b, err := exec.Command("tar", "-C", cache, "-cf", tmp.Name(), ".").CombinedOutput(); err != nil {
		t.Logf("mypy cache not saved: %v\n%s", err, b)
		os.Remove(tmp.Name())
	} else if err := os.Rename(tmp.Name(), tarPath); err != nil {
		t.Logf("mypy cache not saved: %v", err)
		os.Remove(tmp.Name())
	}
	return string(out), nil
}

// TestMypyCacheSeesEdits checks one case's package with mypy --strict and
// its cache snapshot (warm after the first run), copies it to a new path
// and breaks it twice: a type error in types.py, then a signature change in
// codec.py that breaks the unchanged types.py (a cached module whose
// dependency changed). mypy seeded from the warm cache must report both,
// and pass again on the package as it was.
func TestMypyCacheSeesEdits(t *testing.T) {
	if os.Getenv("DSHGEN_PYTHON") == "" {
		t.Skip("DSHGEN_PYTHON (the Python checks' venv, with mypy) is not set")
	}
	py := pythonExe(t)
	c := casesWith(t, "python")[0]
	pkg := c.options("python").Package
	check := func(dir string) (string, error) {
		return mypyCached(t, dir, []string{"MYPYPATH=" + dir}, py, "cache-selftest", "--strict", pkg)
	}
	first := t.TempDir()
	writeCase(t, first, c, "python")
	if out, err := check(filepath.Join(first, "python")); err != nil {
		t.Fatalf("%s: mypy: %v\n%s", c.Name(), err, out)
	}

	second := t.TempDir()
	writeCase(t, second, c, "python")
	dir := filepath.Join(second, "python")
	types := filepath.Join(dir, pkg, "types.py")
	codec := filepath.Join(dir, pkg, "codec.py")
	typesSrc, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	codecSrc, err := os.ReadFile(codec)
	if err != nil {
		t.Fatal(err)
	}
	edits := []struct {
		name, path, from, to, want string
	}{
		{"a type error in types.py", types, "", "\n_injected: int = \"not an int\"\n", "types.py:"},
		{"codec.missing takes a second argument", codec, "def missing(member: str) -> DecodeError:", "def missing(member: str, where: str) -> DecodeError:", "types.py:"},
	}
	for _, e := range edits {
		src := map[string][]byte{types: typesSrc, codec: codecSrc}[e.path]
		edited := string(src) + e.to
		if e.from != "" {
			if !strings.Contains(string(src), e.from) {
				t.Fatalf("%s: %s has no %q", e.name, e.path, e.from)
			}
			edited = strings.Replace(string(src), e.from, e.to, 1)
		}
		writeFile(t, e.path, []byte(edited))
		out, err := check(dir)
		if err == nil || !strings.Contains(out, e.want) {
			t.Errorf("%s: mypy with a warm cache did not report it in %s (%v):\n%s", e.name, e.want, err, out)
		}
		writeFile(t, e.path, src)
	}
	if out, err := check(dir); err != nil {
		t.Errorf("the package as it was: mypy: %v\n%s", err, out)
	}
}

package emit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/internal/mypycache"
)

// runMypy runs python -m mypy ARGS in dir (env added to the environment)
// with a cache seeded from slot's snapshot (gen/internal/mypycache), fails
// the test when mypy fails, and saves the cache as the slot's snapshot when
// it passed. It returns mypy's output.
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
	if err := mypycache.Restore(slot, cache); err != nil {
		t.Log(err)
	}
	cmd := exec.Command(py, append([]string{"-m", "mypy", "--cache-dir=" + cache}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), err
	}
	if err := mypycache.Save(slot, cache); err != nil {
		t.Log(err)
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

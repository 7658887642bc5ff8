package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/emit/output/outputtest"
)

// The crash tests kill a real `dshgen generate` (SIGKILL) between any two
// of the steps that change the disk (output.PauseEnv pauses it there), and
// check the guarantee gen/emit/output/README.md states: before the commit
// the visible tree is wholly old; after it, every file is old or new and
// the tree is wholly new once the interrupted switch is finished (by
// Recover or by the next run); the user's files are never touched; and
// after the next run no staging file, journal or temporary file is left.

// crashFixture is an old tree (bindings and vectors of the quickstart
// schema, testdata/quickstart/kv.schema.json, less one method, package
// oldproto, with the user's own files beside them) and what generating the
// quickstart schema into it gives. The small schema writes the same files
// as the shipped one (every Go file, the manifests, both vector files), so
// every kind of step is killed at, for a twentieth of the CPU per run.
type crashFixture struct {
	oldDir    string            // template of the old tree (out/ and vec/)
	old, new  map[string]string // snapshots, relative to the tree
	newArgs   []string          // the run that is killed
	userFiles map[string]string
	stepList  []string // what steps returns
}

// sharedCrash is the one crash fixture of the test run: every crash test
// reads it and copies its old tree (nothing writes to it once made), so it
// is made once, by the first test that asks, into testScratch.
var sharedCrash struct {
	once sync.Once
	f    *crashFixture // nil when making it failed
}

// newCrashFixture returns the shared crash fixture, making it on first use;
// a test asking after making it failed fails too.
func newCrashFixture(t *testing.T) *crashFixture {
	t.Helper()
	sharedCrash.once.Do(func() {
		dir, err := os.MkdirTemp(testScratch, "crash-")
		if err != nil {
			t.Fatal(err)
		}
		f := makeCrashFixture(t, dir)
		f.stepList = f.listSteps(t)
		sharedCrash.f = f
	})
	if sharedCrash.f == nil {
		t.Fatal("making the crash fixture failed (see the first crash test that ran)")
	}
	return sharedCrash.f
}

// makeCrashFixture makes the crash fixture under dir (which it fills; the
// tree generated into it stays there as the template of the old tree).
func makeCrashFixture(t *testing.T, dir string) *crashFixture {
	t.Helper()
	root := repoRoot(t)
	schema := filepath.Join(root, "testdata", "quickstart", "kv.schema.json")
	f := &crashFixture{
		oldDir: filepath.Join(dir, "old"),
		userFiles: map[string]string{
			"out/go/go.mod":           "module example.com/mine\n",
			"out/go/dshproto/mine.go": "package dshproto\n\n// helpers of the user's own\n",
			"out/python/app.py":       "import dshproto\n",
			"out/ts/NOTES.md":         "mine\n",
			"vec/drivers/run.sh":      "echo mine\n",
		},
		// Only Go is regenerated: fewer steps to kill at, and the other
		// languages' old files must stay as they are (out of scope).
		newArgs: []string{"generate", "--schema", schema, "--out", "out", "--vectors", "vec", "--lang", "go"},
	}
	// The old schema: the new one without its first method.
	var sch map[string]any
	b, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sch); err != nil {
		t.Fatal(err)
	}
	methods := sch["x-methods"].(map[string]any)
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	delete(methods, names[0])
	oldSchema := filepath.Join(dir, "old.schema.json")
	b, _ = json.Marshal(sch)
	if err := os.WriteFile(oldSchema, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(f.oldDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runDshgen(t, f.oldDir, "generate", "--schema", oldSchema,
		"--package", "oldproto", "--out", "out", "--vectors", "vec"); code != 0 {
		t.Fatalf("old tree: exit %d: %s", code, stderr)
	}
	for p, d := range f.userFiles {
		os.MkdirAll(filepath.Join(f.oldDir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(f.oldDir, p), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.old = treeSnapshot(t, f.oldDir)
	newDir := f.copyOld(t)
	if code, _, stderr := runDshgen(t, newDir, f.newArgs...); code != 0 {
		t.Fatalf("new tree: exit %d: %s", code, stderr)
	}
	f.new = treeSnapshot(t, newDir)
	// The two must differ in every way a switch can: files rewritten,
	// added (go/dshproto), removed (go/oldproto), vectors rewritten.
	for _, p := range []string{"out/go/oldproto/types.go"} {
		if _, ok := f.old[p]; !ok {
			t.Fatalf("old tree lacks %s", p)
		}
		if _, ok := f.new[p]; ok {
			t.Fatalf("new tree still has %s", p)
		}
	}
	for _, p := range []string{"vec/valid.log", "out/.dshgen/manifest"} {
		if f.old[p] == f.new[p] {
			t.Fatalf("%s is the same in both trees", p)
		}
	}
	if f.old["out/ts/package.json"] == "" || f.old["out/ts/package.json"] != f.new["out/ts/package.json"] {
		t.Fatal("out/ts/package.json (out of scope) changed or is missing")
	}
	return f
}

func (f *crashFixture) copyOld(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(f.oldDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.oldDir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func treeSnapshot(t *testing.T, dir string) map[string]string { return outputtest.Snapshot(t, dir) }

// internal reports dshgen's switch state files (staging, journal), which
// a reader of the tree does not count as part of it.
var internal = regexp.MustCompile(`(^|/)\.dshgen/(stage-|journal-)`)

func visible(m map[string]string) map[string]string {
	out := map[string]string{}
	for p, d := range m {
		if !internal.MatchString(p) {
			out[p] = d
		}
	}
	return out
}

func diffKeys(a, b map[string]string) string { return outputtest.Diff(a, b) }

// pausedRun starts the new run in dir with the pause hook at step k and
// returns once it says it paused (or exited first: then ok is false).
func pausedRun(t *testing.T, dir string, k int, args []string) (cmd *exec.Cmd, stderr *bytes.Buffer, ok bool) {
	t.Helper()
	cmd = exec.Command(dshgenBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", output.PauseEnv, k))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	sc := bufio.NewScanner(pipe)
	want := fmt.Sprintf("dshgen-test: paused at step %d", k)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if sc.Text() == want {
			go io.Copy(io.Discard, pipe)
			return cmd, stderr, true
		}
	}
	cmd.Wait()
	return cmd, stderr, false
}

// steps lists the disk-changing steps of the new run into the old tree
// (listed once, when the fixture is made).
func (f *crashFixture) steps(t *testing.T) []string { return f.stepList }

// listSteps runs the new run into a copy of the old tree with the pause
// hook listing its disk-changing steps, and returns them.
func (f *crashFixture) listSteps(t *testing.T) []string {
	t.Helper()
	dir := f.copyOld(t)
	cmd := exec.Command(dshgenBin, f.newArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), output.PauseEnv+"=0")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	var steps []string
	for _, line := range strings.Split(errb.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "dshgen-test: step "); ok {
			_, what, _ := strings.Cut(rest, ": ")
			steps = append(steps, what)
		}
	}
	if len(steps) < 15 {
		t.Fatalf("only %d steps:\n%s", len(steps), errb.String())
	}
	return steps
}

func committed(t *testing.T, dir string) bool {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*", ".dshgen", "journal-*"))
	for _, p := range m {
		if !strings.HasSuffix(p, ".tmp") {
			return true
		}
	}
	return false
}

// checkCrashState asserts what a reader sees right after the kill.
func (f *crashFixture) checkCrashState(t *testing.T, dir string, k int, what string) bool {
	t.Helper()
	got := visible(treeSnapshot(t, dir))
	for p, d := range f.userFiles {
		if got[p] != d {
			t.Errorf("step %d (%s): the user's %s changed: %q", k, what, p, got[p])
		}
	}
	if !committed(t, dir) {
		if d := diffKeys(f.old, got); d != "" {
			t.Errorf("step %d (%s), before the commit: the tree is not wholly old: %s", k, what, d)
		}
		return false
	}
	for p, d := range got {
		if d != f.old[p] && d != f.new[p] {
			t.Errorf("step %d (%s), mid-switch: %s is neither old nor new", k, what, p)
		}
	}
	return true
}

func (f *crashFixture) checkWhole(t *testing.T, dir string, wantNew bool, when string) {
	t.Helper()
	want := f.old
	if wantNew {
		want = f.new
	}
	if d := diffKeys(want, treeSnapshot(t, dir)); d != "" {
		t.Errorf("%s: the tree is not wholly %s (staging, journal and temporary files count): %s", when, map[bool]string{true: "new", false: "old"}[wantNew], d)
	}
}

// TestGenerateKilledAtEveryStep: SIGKILL at every step of the switch.
func TestGenerateKilledAtEveryStep(t *testing.T) {
	f := newCrashFixture(t)
	steps := f.steps(t)
	commitAt := -1
	for i, s := range steps {
		if s == "commit" {
			commitAt = i + 1
		}
	}
	if commitAt < 0 {
		t.Fatalf("no commit step in %v", steps)
	}
	// Each kill is independent (a copy of the old tree of its own), so the
	// steps run in parallel; committedAt[k] records what step k saw.
	committedAt := make([]bool, len(steps)+1)
	t.Run("steps", func(t *testing.T) {
		for k := 1; k <= len(steps); k++ {
			t.Run(fmt.Sprintf("step%02d", k), func(t *testing.T) {
				t.Parallel()
				committedAt[k] = f.killAt(t, k, steps, commitAt)
			})
		}
	})
	sawOld, sawMid := false, false
	for _, c := range committedAt[1:] {
		sawOld = sawOld || !c
		sawMid = sawMid || c
	}
	if !sawOld || !sawMid {
		t.Errorf("kills covered before-commit %v, after-commit %v", sawOld, sawMid)
	}
}

// killAt kills a run of f.newArgs paused at step k (of steps; the commit is
// step commitAt) in a copy of the old tree and checks the tree after the
// kill, after --check, and after recovery (odd k) or the next run (even k).
// It reports whether the switch had been committed.
func (f *crashFixture) killAt(t *testing.T, k int, steps []string, commitAt int) bool {
	t.Helper()
	dir := f.copyOld(t)
	cmd, stderr, ok := pausedRun(t, dir, k, f.newArgs)
	if !ok {
		t.Fatalf("step %d: the run did not pause:\n%s", k, stderr)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	isCommitted := f.checkCrashState(t, dir, k, steps[k-1])
	// The step runs after the pause, so the commit has happened once
	// the run was paused after the commit step.
	if isCommitted != (k > commitAt) {
		t.Errorf("step %d (%s): committed=%v, commit is step %d", k, steps[k-1], isCommitted, commitAt)
	}
	if k == commitAt || k == commitAt+1 || k == len(steps) {
		// --check writes nothing and says when a switch is unfinished.
		before := treeSnapshot(t, dir)
		code, stdout, _ := runDshgen(t, dir, append(f.newArgs, "--check")...)
		if code != 1 || strings.Contains(stdout, "interrupted switch") != isCommitted {
			t.Errorf("step %d: --check exit %d, interrupted reported %v, committed %v", k, code, strings.Contains(stdout, "interrupted switch"), isCommitted)
		}
		if diffKeys(before, treeSnapshot(t, dir)) != "" {
			t.Errorf("step %d: --check changed the tree", k)
		}
	}
	if k%2 == 1 {
		// Recovery alone: wholly old before the commit, wholly new
		// after, nothing left behind.
		if _, err := output.Recover(filepath.Join(dir, "out"), filepath.Join(dir, "vec")); err != nil {
			t.Fatalf("step %d: recover: %v", k, err)
		}
		f.checkWhole(t, dir, isCommitted, fmt.Sprintf("step %d (%s), after recovery", k, steps[k-1]))
		return isCommitted
	}
	// The next run: wholly new, nothing left behind, and it says what
	// it recovered.
	code, _, errOut := runDshgen(t, dir, f.newArgs...)
	if code != 0 {
		t.Fatalf("step %d: next run: exit %d: %s", k, code, errOut)
	}
	if !strings.Contains(errOut, "interrupted run") {
		t.Errorf("step %d: the next run did not say it recovered: %s", k, errOut)
	}
	f.checkWhole(t, dir, true, fmt.Sprintf("step %d (%s), after the next run", k, steps[k-1]))
	return isCommitted
}

// TestGenerateKilledDuringRecovery: the run that finishes an interrupted
// switch is itself killed mid-way; the one after finishes it.
func TestGenerateKilledDuringRecovery(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	f := newCrashFixture(t)
	steps := f.steps(t)
	mid := 0
	for i, s := range steps {
		if strings.HasPrefix(s, "put ") && mid == 0 {
			mid = i + 3 // a few files into the switch
		}
	}
	dir := f.copyOld(t)
	cmd, stderr, ok := pausedRun(t, dir, mid, f.newArgs)
	if !ok {
		t.Fatalf("no pause: %s", stderr)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The recovering run pauses at its second step (a file of the switch
	// it finishes) and is killed too.
	cmd, stderr, ok = pausedRun(t, dir, 2, f.newArgs)
	if !ok {
		t.Fatalf("recovering run did not pause: %s", stderr)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	f.checkCrashState(t, dir, 2, "recovery")
	if code, _, errOut := runDshgen(t, dir, f.newArgs...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f.checkWhole(t, dir, true, "after the third run")
}

// TestGenerateKilledAtRandom: kills at random moments (no pause hook), as
// a user's ^C-and-worse would land; one that lands after the run finished
// finds the tree wholly new.
func TestGenerateKilledAtRandom(t *testing.T) {
	f := newCrashFixture(t)
	for i := range 4 {
		dir := f.copyOld(t)
		cmd := exec.Command(dshgenBin, f.newArgs...)
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		// A run that exited by itself, or was killed after it had
		// finished the switch (the tree wholly new, nothing left behind),
		// finished first; checkWhole holds it to that.
		if err := cmd.Wait(); err == nil || diffKeys(f.new, treeSnapshot(t, dir)) == "" {
			f.checkWhole(t, dir, true, fmt.Sprintf("kill %d, after the run finished first", i))
		} else {
			f.checkCrashState(t, dir, i, "random")
		}
		if code, _, errOut := runDshgen(t, dir, f.newArgs...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		f.checkWhole(t, dir, true, "after the next run")
	}
}

// TestGenerateConcurrentRuns: runs into one directory at the same time
// take turns (the lock): all succeed and the tree is the new one.
func TestGenerateConcurrentRuns(t *testing.T) {
	f := newCrashFixture(t)
	for range 2 {
		dir := f.copyOld(t)
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for range 4 {
			cmd := exec.Command(dshgenBin, f.newArgs...)
			cmd.Dir = dir
			var b bytes.Buffer
			cmd.Stderr = &b
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, &b)
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("run %d: %v: %s", i, err, outs[i])
			}
		}
		f.checkWhole(t, dir, true, "after concurrent runs")
	}
}

// TestGenerateWaitsForLock: a run finding the directory locked says so
// and waits; when the holder dies mid-switch, it finishes that switch and
// then does its own.
func TestGenerateWaitsForLock(t *testing.T) {
	f := newCrashFixture(t)
	steps := f.steps(t)
	k := len(steps) - 3 // committed, mid-switch
	dir := f.copyOld(t)
	holder, stderr, ok := pausedRun(t, dir, k, f.newArgs)
	if !ok {
		t.Fatalf("no pause: %s", stderr)
	}
	waiter := exec.Command(dshgenBin, f.newArgs...)
	waiter.Dir = dir
	pipe, _ := waiter.StderrPipe()
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	var got bytes.Buffer
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "waiting for another dshgen run") {
			break
		}
	}
	if !strings.Contains(got.String(), "waiting for another dshgen run") {
		t.Fatalf("the second run did not wait: %s", got.String())
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	rest, _ := io.ReadAll(pipe)
	got.Write(rest)
	if err := waiter.Wait(); err != nil {
		t.Fatalf("waiting run: %v: %s", err, got.String())
	}
	if !strings.Contains(got.String(), "finished the switch of an interrupted run") {
		t.Errorf("the waiting run did not finish the holder's switch: %s", got.String())
	}
	f.checkWhole(t, dir, true, "after the waiting run")
}

package hardinputs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The hostile cases' generated packages are checked by one run of each
// language's checker after every case has finished, not one run per case:
// a checker's start (the Go command, mypy's and tsc's standard library
// types) costs more than most cases' own code. Each case's package is
// copied under a directory of the batch named for the case, and every
// line of the checker's output that names a file is reported against the
// case whose directory it is in.

// reporter is what a batch's check reports to: a *testing.T, or the
// recorder of the tests that check the attribution (TestBatchesNameTheCase).
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// batches holds the three languages' batches of one TestHostileSchemas.
type batches struct {
	ts     *tsBatch
	golang *goBatch
	py     *pyBatch
}

func newBatches(t *testing.T) *batches {
	return &batches{
		ts:     &tsBatch{root: t.TempDir()},
		golang: &goBatch{caseDirs: caseDirs{root: t.TempDir()}},
		py:     &pyBatch{caseDirs: caseDirs{root: t.TempDir()}, slot: mypySlot(t)},
	}
}

// check runs the three checkers side by side (each is one mostly
// single-threaded process), each as a subtest named for its language.
func (b *batches) check(t *testing.T) {
	t.Run("batched", func(t *testing.T) {
		for lang, check := range map[string]func(reporter){"go": b.golang.check, "python": b.py.check, "ts": b.ts.check} {
			t.Run(lang, func(t *testing.T) {
				t.Parallel()
				check(t)
			})
		}
	})
}

// caseDirs names a case's directory in a Go or Python batch: "case_" and
// the case's name with every byte that is no ASCII letter or digit
// replaced by "_" (a Python identifier and a Go import path element),
// made unique with a number if two names map to one.
type caseDirs struct {
	root string

	mu    sync.Mutex
	names map[string]string // directory under root → case name
	order []string          // directories in the order added
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9]`)

// add reserves the directory of the case t runs and returns its path.
func (c *caseDirs) add(t *testing.T) string {
	name := filepath.Base(t.Name())
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[string]string{}
	}
	dir := "case_" + notIdent.ReplaceAllString(name, "_")
	for i := 2; c.names[dir] != ""; i++ {
		dir = fmt.Sprintf("case_%s_%d", notIdent.ReplaceAllString(name, "_"), i)
	}
	c.names[dir] = name
	c.order = append(c.order, dir)
	return filepath.Join(c.root, dir)
}

// caseDirInLine finds the batch directory a checker's output line names:
// a path element "case_..." at the start of the line, after a space, "[",
// "/" (a relative path, or an absolute one: go vet under -trimpath, as
// .ci/run builds, prints absolute paths, and replays a cached result with
// the paths of the run that made it) or the scratch module's path,
// followed by "/".
var caseDirInLine = regexp.MustCompile(`(?:^|[\s\[/]|example\.com/hardinputs/)(case_[A-Za-z0-9_]+)/`)

// caseOf is the case a checker's output line names, or "".
func (c *caseDirs) caseOf(line string) string {
	m := caseDirInLine.FindStringSubmatch(filepath.ToSlash(line))
	if m == nil {
		return ""
	}
	return c.names[m[1]]
}

// reportByCase reports a batched checker's failing output (exit code,
// stdout and stderr together): the lines caseOf attributes to a case
// against that case (in the order of cases), then the lines naming none
// (the checker's own) against the batch. It returns the cases named.
func reportByCase(t reporter, what string, cases []string, code int, output string, caseOf func(line string) string) map[string]bool {
	t.Helper()
	byCase := map[string][]string{}
	var rest []string
	for _, line := range strings.Split(strings.TrimSpace(output), "\n") {
		if c := caseOf(line); c != "" {
			byCase[c] = append(byCase[c], line)
		} else if strings.TrimSpace(line) != "" {
			rest = append(rest, line)
		}
	}
	named := map[string]bool{}
	for _, c := range cases {
		if lines := byCase[c]; len(lines) > 0 {
			t.Errorf("%s: %s: exit %d\n%s", c, what, code, clip(strings.Join(lines, "\n")))
			named[c] = true
		}
	}
	if len(rest) > 0 || len(named) == 0 {
		t.Errorf("%s over the batch: exit %d\n%s", what, code, clip(strings.Join(rest, "\n")))
	}
	return named
}

// goBatch checks the Go of many cases with one `gofmt -l` and one
// `go vet ./...` over one scratch module holding every case's go/
// directory as <case dir>/go.
type goBatch struct {
	caseDirs
}

// add copies the go/ directory of the case t runs into the batch.
func (b *goBatch) add(t *testing.T, dir string) {
	t.Helper()
	if err := os.CopyFS(filepath.Join(b.caseDirs.add(t), "go"), os.DirFS(dir)); err != nil {
		t.Fatalf("go: copying the package for the batched go vet: %v", err)
	}
}

func (b *goBatch) check(t reporter) {
	if len(b.order) == 0 {
		return
	}
	if err := os.WriteFile(filepath.Join(b.root, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	cases := b.caseNames()
	// gofmt -l prints the files it would change, as named here.
	if r := runCmd(b.root, nil, 2*time.Minute, "gofmt", append([]string{"-l"}, b.order...)...); r.code != 0 || strings.TrimSpace(r.stdout) != "" {
		reportByCase(t, "go: gofmt -l", cases, r.code, r.stdout+r.stderr, b.caseOf)
	}
	r := runCmd(b.root, []string{"GOWORK=off"}, 10*time.Minute, "go", "vet", "./...")
	if r.code != 0 {
		reportByCase(t, "go: go vet (generated Go does not compile or vet)", cases, r.code, r.stdout+r.stderr, b.caseOf)
		return
	}
	t.Logf("go: one gofmt -l and one go vet over %d cases: clean", len(cases))
}

// caseNames lists the batch's cases in the order added.
func (c *caseDirs) caseNames() []string {
	out := make([]string, len(c.order))
	for i, d := range c.order {
		out[i] = c.names[d]
	}
	return out
}

// pyBatch checks the Python of many cases with one mypy --strict run:
// each case's package <pkg> is copied to <case dir>/<pkg> with an empty
// <case dir>/__init__.py, so that every case's modules have names of their
// own (case_x.<pkg>.types); the generated modules import each other
// relatively only.
type pyBatch struct {
	caseDirs

	slot    string // the mypy cache slot of the batch ("": none, see runMypy)
	mu      sync.Mutex
	targets map[string]string // case name → its package directory, relative to root
}

// add copies the package pkg under dir (the case's python/ directory)
// into the batch.
func (b *pyBatch) add(t *testing.T, dir, pkg string) {
	t.Helper()
	cd := b.caseDirs.add(t)
	if err := os.CopyFS(filepath.Join(cd, pkg), os.DirFS(filepath.Join(dir, pkg))); err != nil {
		t.Fatalf("python: copying the package for the batched mypy: %v", err)
	}
	if err := os.WriteFile(filepath.Join(cd, "__init__.py"), nil, 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.targets == nil {
		b.targets = map[string]string{}
	}
	b.targets[filepath.Base(t.Name())] = filepath.Join(filepath.Base(cd), pkg)
}

func (b *pyBatch) check(t reporter) {
	if len(b.order) == 0 || mypyCmd == nil {
		return
	}
	cases := b.caseNames()
	targets := make([]string, len(cases))
	for i, c := range cases {
		targets[i] = b.targets[c]
	}
	// No "Found N errors" line: every line then names a file.
	r := runMypy(b.root, b.slot, append([]string{"--no-error-summary"}, targets...)...)
	if r.code == 0 {
		t.Logf("python: one mypy --strict over %d cases: clean", len(cases))
		return
	}
	named := reportByCase(t, "python: mypy --strict", cases, r.code, r.stdout+r.stderr, b.caseOf)
	if r.code == 1 {
		return
	}
	// A blocking error (exit 2: a file mypy cannot parse, a crash) ends
	// the run before every case is checked: check the others one by one.
	for i, c := range cases {
		if named[c] {
			continue
		}
		if r := runMypy(b.root, "", "--no-error-summary", targets[i]); r.code != 0 {
			reportByCase(t, "python: mypy --strict", cases, r.code, r.stdout+r.stderr, b.caseOf)
		}
	}
}

// tsBatch type-checks the TypeScript packages of many cases in one tsc run:
// add copies a case's ts/ directory (its temp dir goes when its subtest
// ends) and check, after every case has finished, compiles one program
// over all of them with the generated tsconfig's options and reports each
// error against the case whose file it names. A case whose tsconfig.json
// differs from the first one's is compiled on its own at once.
type tsBatch struct {
	root string // the batch's own directory: <root>/<case>/ per package

	mu     sync.Mutex
	config []byte   // the first case's tsconfig.json without its header
	cases  []string // directory names under root, in the order added
}

func (b *tsBatch) add(t *testing.T, dir string) {
	t.Helper()
	config, err := os.ReadFile(filepath.Join(dir, "tsconfig.json"))
	if err != nil {
		t.Errorf("ts: %v", err)
		return
	}
	config = tsconfigBody(config)
	name := filepath.Base(t.Name())
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.config == nil {
		b.config = config
	}
	if !bytes.Equal(config, b.config) {
		compileTS(t, dir)
		return
	}
	if err := os.CopyFS(filepath.Join(b.root, name), os.DirFS(dir)); err != nil {
		t.Fatalf("ts: copying the package for the batched tsc: %v", err)
	}
	b.cases = append(b.cases, name)
}

// tsconfigBody is a generated tsconfig.json without its leading comment
// lines (the header names the schema's hash, so it differs per case).
func tsconfigBody(b []byte) []byte {
	for bytes.HasPrefix(b, []byte("//")) {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	return b
}

func (b *tsBatch) check(t reporter) {
	if len(b.cases) == 0 {
		return
	}
	include := make([]string, len(b.cases))
	for i, c := range b.cases {
		include[i] = c + "/src"
	}
	config, _ := json.Marshal(map[string]any{
		"extends":         "./" + b.cases[0] + "/tsconfig.json",
		"compilerOptions": map[string]any{"rootDir": ".", "noEmit": true},
		"include":         include,
	})
	if err := os.WriteFile(filepath.Join(b.root, "tsconfig.json"), config, 0o644); err != nil {
		t.Fatalf("%v", err)
	}
	nodeTypes := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(tscJS))), "@types")
	r := runCmd(b.root, nil, 5*time.Minute, "node", tscJS, "-p", "tsconfig.json", "--noEmit", "--typeRoots", nodeTypes)
	if r.code == 0 {
		t.Logf("ts: one tsc (strict) over %d cases: clean", len(b.cases))
		return
	}
	// tsc names each file relative to the batch root: <case>/src/....
	known := map[string]bool{}
	for _, c := range b.cases {
		known[c] = true
	}
	caseOf := func(line string) string {
		c, _, _ := strings.Cut(filepath.ToSlash(line), "/")
		if known[c] {
			return c
		}
		return ""
	}
	reportByCase(t, "ts: tsc --noEmit (strict)", b.cases, r.code, r.stdout+r.stderr, caseOf)
}

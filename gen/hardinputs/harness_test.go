package hardinputs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/emit/python"
	"github.com/dshgen/dshgen/gen/internal/mypycache"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/corpus"
)

// The harness: TestMain builds dshgen, finds the languages its generate
// command registers, the compilers, and starts a loopback listener that
// counts connections (the "never fetched" proof).

// schemaGuardAddr is the loopback address the hostile schemas' remote
// $refs name. Each case listens on a free loopback port of its own and is
// copied with this address replaced by its listener's (cases running at
// once, and two runs at once, cannot collide, and a connection is counted
// against the case that made it). Every dshgen run also gets
// HTTP_PROXY/HTTPS_PROXY/ALL_PROXY pointing at its listener, so a fetch of
// any http(s) URL, loopback or not, would connect there.
const schemaGuardAddr = "127.0.0.1:39217"

var (
	root       string // repository root
	dshgen     string // the built binary
	langs      []string
	tscJS      string // testdata/ts/node_modules/typescript/bin/tsc
	mypyCmd    []string
	pyrightBin string
	guard      *listenGuard // the listener of the tests that are not hostile cases
	notes      []string     // loud notices printed once at the end
)

// langDirs maps a --lang name to the top directory of its files under --out.
var langDirs = map[string]string{"go": "go", "python": "python", "ts": "ts"}

func TestMain(m *testing.M) {
	code, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hardinputs: setup:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(filepath.Dir(dshgen))
	code = m.Run()
	guard.Close()
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "hardinputs: NOTE:", n)
	}
	os.Exit(code)
}

func setup() (int, error) {
	root = corpus.RepoRoot()
	dir, err := os.MkdirTemp("", "dshgen-hardinputs-")
	if err != nil {
		return 0, err
	}
	dshgen = filepath.Join(dir, "dshgen")
	build := exec.Command("go", "build", "-o", dshgen, "./cmd/dshgen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go build ./cmd/dshgen: %v\n%s", err, out)
	}
	// The registered languages, from the help text of --lang
	// ("languages to generate: go,ts or all").
	help, err := exec.Command(dshgen, "generate", "--help").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("dshgen generate --help: %v\n%s", err, help)
	}
	mm := regexp.MustCompile(`languages to generate: ([a-z0-9,]+) or all`).FindSubmatch(help)
	if mm == nil {
		return 0, fmt.Errorf("cannot find the registered languages in `dshgen generate --help`:\n%s", help)
	}
	langs = strings.Split(string(mm[1]), ",")
	for _, l := range langs {
		if langDirs[l] == "" {
			return 0, fmt.Errorf("dshgen registers --lang %q, which these tests do not know how to compile: add it to langDirs and compile()", l)
		}
	}
	if !registered("python") {
		notes = append(notes, "--lang python is not registered in `dshgen generate`: the Python bindings were generated in-process with gen/emit/python.Emit (the emitter the CLI will register) and checked the same way")
	}
	if registered("ts") {
		if tscJS, err = findTSC(); err != nil {
			return 0, err
		}
	}
	mypyCmd = findMypy()
	if mypyCmd == nil {
		if os.Getenv("DSHGEN_PYTHON") != "" {
			return 0, fmt.Errorf("DSHGEN_PYTHON=%s is set but has no mypy (run testdata/python/check.sh)", os.Getenv("DSHGEN_PYTHON"))
		}
		notes = append(notes, "mypy is not installed (testdata/python/check.sh installs it; or python3 -m mypy, or DSHGEN_MYPY=/path/to/mypy): the generated Python was checked by `python3 -W error` import only, not by mypy --strict")
	}
	if p := filepath.Join(pyWork(), "node", "node_modules", ".bin", "pyright"); pyWork() != "" && fileExists(p) {
		pyrightBin = p
	} else if os.Getenv("DSHGEN_PY_WORK") != "" {
		return 0, fmt.Errorf("DSHGEN_PY_WORK=%s is set but has no pyright (run testdata/python/check.sh --install)", os.Getenv("DSHGEN_PY_WORK"))
	} else {
		notes = append(notes, "pyright is not installed (testdata/python/check.sh --install installs it; set DSHGEN_PY_WORK to the directory it prints): the generated Python was not checked by pyright --strict")
	}
	guard, err = newListenGuard("127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("the no-fetch guard cannot listen on loopback: %w", err)
	}
	return 0, nil
}

func registered(lang string) bool {
	for _, l := range langs {
		if l == lang {
			return true
		}
	}
	return false
}

// findTSC returns the pinned TypeScript compiler, installing testdata/ts's
// locked packages with `npm ci` when they are not there yet (as
// testdata/ts/check.sh does).
func findTSC() (string, error) {
	p := filepath.Join(root, "testdata", "ts", "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("TypeScript is registered (--lang ts) but %s is missing and npm is not on PATH: run npm ci --prefix testdata/ts", p)
	}
	cmd := exec.Command("npm", "ci", "--prefix", filepath.Join(root, "testdata", "ts"), "--no-audit", "--no-fund", "--loglevel=error")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci --prefix testdata/ts: %v\n%s", err, out)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("npm ci --prefix testdata/ts did not install %s", p)
	}
	return p, nil
}

// pyWork is where testdata/python/check.sh installed its pinned tools:
// $DSHGEN_PY_WORK (.ci/run sets it from `check.sh --install`), else the
// directory of the venv $DSHGEN_PYTHON names (WORK/venv/bin/python), else
// "" (none known).
func pyWork() string {
	if d := os.Getenv("DSHGEN_PY_WORK"); d != "" {
		return d
	}
	if py := os.Getenv("DSHGEN_PYTHON"); py != "" {
		return filepath.Dir(filepath.Dir(filepath.Dir(py)))
	}
	return ""
}

// findMypy finds mypy: $DSHGEN_MYPY, $DSHGEN_PYTHON -m mypy, the venv of
// testdata/python/check.sh, or python3 -m mypy.
func findMypy() []string {
	if p := os.Getenv("DSHGEN_MYPY"); p != "" {
		return []string{p}
	}
	var cands [][]string
	if py := os.Getenv("DSHGEN_PYTHON"); py != "" {
		cands = append(cands, []string{py, "-m", "mypy"})
	}
	if w := pyWork(); w != "" {
		cands = append(cands, []string{filepath.Join(w, "venv", "bin", "mypy")})
	}
	cands = append(cands, []string{"python3", "-m", "mypy"})
	for _, c := range cands {
		if err := exec.Command(c[0], append(c[1:], "--version")...).Run(); err == nil {
			return c
		}
	}
	return nil
}

// listenGuard accepts and counts connections on a loopback address.
type listenGuard struct {
	ln    net.Listener
	n     atomic.Int64
	mu    sync.Mutex
	peers []string
}

func newListenGuard(addr string) (*listenGuard, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	g := &listenGuard{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			g.n.Add(1)
			buf := make([]byte, 256)
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			k, _ := c.Read(buf)
			g.mu.Lock()
			g.peers = append(g.peers, fmt.Sprintf("%s sent %q", c.RemoteAddr(), buf[:k]))
			g.mu.Unlock()
			c.Close()
		}
	}()
	return g, nil
}

func (g *listenGuard) Close() {
	if g != nil {
		g.ln.Close()
	}
}

func (g *listenGuard) Count() int64 { return g.n.Load() }

// Addr is the listener's address (host:port).
func (g *listenGuard) Addr() string { return g.ln.Addr().String() }

func (g *listenGuard) Seen() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Join(g.peers, "; ")
}

// proxyEnv sends every proxied HTTP(S) request of a child to the guard.
func (g *listenGuard) proxyEnv() []string {
	p := "http://" + g.Addr()
	return []string{"HTTP_PROXY=" + p, "HTTPS_PROXY=" + p, "ALL_PROXY=" + p, "http_proxy=" + p, "https_proxy=" + p, "NO_PROXY=", "no_proxy="}
}

// result is one finished command.
type result struct {
	code     int
	stdout   string
	stderr   string
	timedOut bool
	elapsed  time.Duration
}

// runCmd runs name args in dir with extra environment and a timeout.
func runCmd(dir string, env []string, timeout time.Duration, name string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.timedOut, r.code = true, -1
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		r.code, r.stderr = -1, err.Error()
	}
	return r
}

// generate runs `dshgen generate --schema schema --out out` (every
// registered language, the proxies pointed at g) and, when the CLI does
// not register Python, writes the Python bindings with
// gen/emit/python.Emit beside them. It returns the CLI's
// result and the in-process Python error (nil when not used or fine).
func generate(t *testing.T, g *listenGuard, schema, out string, timeout time.Duration, extra ...string) (result, error) {
	t.Helper()
	args := append([]string{"generate", "--schema", schema, "--out", out}, extra...)
	r := runCmd(root, g.proxyEnv(), timeout, dshgen, args...)
	if r.code != 0 || registered("python") {
		return r, nil
	}
	m, err := ir.Load(schema)
	if err != nil {
		return r, fmt.Errorf("ir.Load after the CLI succeeded: %w", err)
	}
	files, err := python.Emit(m, ir.Options{Version: "test"})
	if err != nil {
		return r, fmt.Errorf("gen/emit/python.Emit: %w", err)
	}
	if _, err := output.Write([]output.Target{{Dir: out, Files: files, NoManifest: true}}); err != nil {
		return r, fmt.Errorf("writing the Python files: %w", err)
	}
	return r, nil
}

// checkedLangs lists the languages whose output a generate run produced.
func checkedLangs() []string {
	out := append([]string(nil), langs...)
	if !registered("python") {
		out = append(out, "python")
	}
	sort.Strings(out)
	return out
}

// compile checks one language's output under out (the --out directory)
// with its own tools and fails the test loudly on any problem. With a
// batch (the hostile cases), only what is cheap per case runs at once
// (Python's import under -W error; pyright, the slowest check, only with
// DSHGEN_PYRIGHT_ALL=1: it runs on the second protocol) and the package
// is added to the language's batch, checked after every case.
func compile(t *testing.T, lang, out string, batch *batches) {
	t.Helper()
	dir := filepath.Join(out, langDirs[lang])
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("%s: generate wrote no %s/ directory", lang, langDirs[lang])
		return
	}
	switch {
	case lang == "go" && batch != nil:
		batch.golang.add(t, dir)
	case lang == "go":
		compileGo(t, out)
	case lang == "python":
		compilePython(t, dir, batch)
	case lang == "ts" && batch != nil:
		batch.ts.add(t, dir)
	case lang == "ts":
		compileTS(t, dir)
	default:
		t.Fatalf("no compile step for %s", lang)
	}
}

// goMod is the go.mod of the scratch module around generated Go (the
// generated code is stdlib-only).
const goMod = "module example.com/hardinputs\n\ngo 1.26\n"

func compileGo(t *testing.T, out string) {
	t.Helper()
	mod := filepath.Join(out, "go.mod")
	if err := os.WriteFile(mod, []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(mod)
	if r := runCmd(out, nil, 2*time.Minute, "gofmt", "-l", "go"); r.code != 0 || strings.TrimSpace(r.stdout) != "" {
		t.Errorf("go: gofmt -l: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCmd(out, []string{"GOWORK=off"}, 5*time.Minute, "go", "vet", "./..."); r.code != 0 {
		t.Errorf("go: go vet ./... (generated Go does not compile or vet): exit %d\n%s", r.code, clip(r.stdout+r.stderr))
	}
}

func compilePython(t *testing.T, dir string, batch *batches) {
	t.Helper()
	pkg, ok := pythonPackage(t, dir)
	if !ok {
		return
	}
	importPython(t, dir, pkg)
	if batch == nil || os.Getenv("DSHGEN_PYRIGHT_ALL") != "" {
		pyright(t, dir, pkg)
	}
	switch {
	case batch != nil:
		batch.py.add(t, dir, pkg)
	case mypyCmd != nil:
		if r := runMypy(dir, mypySlot(t), filepath.Join(dir, pkg)); r.code != 0 {
			t.Errorf("python: mypy --strict: exit %d\n%s", r.code, clip(r.stdout+r.stderr))
		}
	}
}

// pythonPackage is the name of the one package under dir (the python/
// directory of an --out); false (and a test error) when there is not
// exactly one.
func pythonPackage(t *testing.T, dir string) (string, bool) {
	t.Helper()
	pkgs, _ := filepath.Glob(filepath.Join(dir, "*", "__init__.py"))
	if len(pkgs) != 1 {
		t.Errorf("python: want one package under %s, found %v", dir, pkgs)
		return "", false
	}
	return filepath.Base(filepath.Dir(pkgs[0])), true
}

// importPython imports the package pkg under dir and its modules with
// `python3 -W error`: any warning, error or output fails the test.
func importPython(t *testing.T, dir, pkg string) {
	t.Helper()
	code := fmt.Sprintf("import %[1]s, %[1]s.types, %[1]s.methods, %[1]s.codec", pkg)
	r := runCmd(dir, []string{"PYTHONPATH=" + dir, "PYTHONDONTWRITEBYTECODE=1"}, 2*time.Minute, "python3", "-W", "error", "-c", code)
	if r.code != 0 {
		t.Errorf("python: python3 -W error -c %q: exit %d\n%s", code, r.code, clip(r.stdout+r.stderr))
	} else if r.stdout != "" || r.stderr != "" {
		t.Errorf("python: importing the generated package printed something (code from the schema ran?):\n%s", clip(r.stdout+r.stderr))
	}
}

// runMypy runs mypy --strict on targets (package directories) in dir. With
// a slot its cache is seeded from that slot's snapshot and, when mypy
// passed, saved as it (gen/internal/mypycache: a warm cache skips only
// unchanged modules); without one nothing is cached between runs.
func runMypy(dir, slot string, targets ...string) result {
	args := append(append([]string(nil), mypyCmd[1:]...), "--strict")
	if slot == "" {
		args = append(args, "--no-incremental", "--cache-dir", os.DevNull)
		return runCmd(dir, nil, 10*time.Minute, mypyCmd[0], append(args, targets...)...)
	}
	cache, err := os.MkdirTemp("", "mypy-cache-")
	if err != nil {
		return result{code: -1, stderr: err.Error()}
	}
	defer os.RemoveAll(cache)
	// A snapshot that cannot be read or saved only costs time.
	_ = mypycache.Restore(slot, cache)
	r := runCmd(dir, nil, 10*time.Minute, mypyCmd[0], append(append(args, "--cache-dir", cache), targets...)...)
	if r.code == 0 {
		_ = mypycache.Save(slot, cache)
	}
	return r
}

// mypySlot is the mypy cache slot of test t's packages.
func mypySlot(t *testing.T) string {
	return "hardinputs-" + notIdent.ReplaceAllString(t.Name(), "_")
}

// pyright runs pyright --strict on the package pkg under dir, when it is
// installed.
func pyright(t *testing.T, dir, pkg string) {
	t.Helper()
	if pyrightBin == "" {
		return
	}
	cfg := filepath.Join(dir, "pyrightconfig.json")
	conf := fmt.Sprintf(`{"typeCheckingMode": "strict", "pythonVersion": "3.10", "extraPaths": [%q]}`, dir)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(cfg)
	r := runCmd(dir, nil, 5*time.Minute, pyrightBin, "-p", cfg, filepath.Join(dir, pkg))
	if r.code != 0 {
		t.Errorf("python: pyright --strict: exit %d\n%s", r.code, clip(r.stdout+r.stderr))
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func compileTS(t *testing.T, dir string) {
	t.Helper()
	// The generated package's @types/node devDependency: testdata/ts's,
	// beside the typescript package tscJS is in.
	nodeTypes := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(tscJS))), "@types")
	r := runCmd(dir, nil, 5*time.Minute, "node", tscJS, "-p", filepath.Join(dir, "tsconfig.json"), "--noEmit", "--typeRoots", nodeTypes)
	if r.code != 0 {
		t.Errorf("ts: tsc -p tsconfig.json --noEmit (strict): exit %d\n%s", r.code, clip(r.stdout+r.stderr))
	}
}

// goUnexported lists the generated Go package's unexported type names and
// struct fields outside the runtime helpers (every schema-derived
// identifier must be exported).
func goUnexported(t *testing.T, out string) []string {
	t.Helper()
	var bad []string
	files, _ := filepath.Glob(filepath.Join(out, "go", "*", "types.go"))
	for _, f := range files {
		fs := token.NewFileSet()
		af, err := parser.ParseFile(fs, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("parse %s: %v", f, err)
			continue
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if !ts.Name.IsExported() {
					bad = append(bad, "type "+ts.Name.Name)
				}
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							if !n.IsExported() {
								bad = append(bad, ts.Name.Name+"."+n.Name)
							}
						}
					}
				}
			}
		}
	}
	return bad
}

// forbidLines reports lines of lang's files that match re.
func forbidLines(t *testing.T, out, lang, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	filepath.WalkDir(filepath.Join(out, langDirs[lang]), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for i, line := range strings.Split(string(data), "\n") {
			if rx.MatchString(line) {
				rel, _ := filepath.Rel(out, p)
				t.Errorf("%s:%d matches %q: %q", rel, i+1, re, line)
			}
		}
		return nil
	})
}

// copyCase copies the files of a case directory into dst, with the
// schemas' guard address replaced by addr (the case's listener).
func copyCase(src, dst, addr string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		data = bytes.ReplaceAll(data, []byte(schemaGuardAddr), []byte(addr))
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// listFiles lists the files under dir (relative, sorted).
func listFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func clip(s string) string {
	const max = 6000
	if len(s) > max {
		return s[:max] + fmt.Sprintf("\n... (%d more bytes)", len(s)-max)
	}
	return s
}

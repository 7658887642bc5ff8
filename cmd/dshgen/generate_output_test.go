package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// quickSchema is the schema the output-tree tests below generate from: the
// quickstart's (testdata/quickstart/kv.schema.json), which generateInto
// copies into the tree's directory. It writes every kind of file the
// shipped schema does (the Go, Python and TypeScript packages, the
// manifests, both vector files) for a twentieth of the CPU per run.
const quickSchema = "kv.schema.json"

// generateInto copies quickSchema into a new temp dir, generates its
// bindings (out) and vectors (vec) there and returns the dir.
func generateInto(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "quickstart", quickSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, quickSchema), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runDshgen(t, dir, append([]string{"generate", "--schema", quickSchema, "--out", "out", "--vectors", "vec"}, args...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return dir
}

// TestGenerateRefusesBeforeWriting: each kind of bad target stops the run
// with exit 2, names the place, and leaves both directories (and anything
// outside them) exactly as they were — also when the problem is in the
// last target and every other file would change.
func TestGenerateRefusesBeforeWriting(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) []string // returns extra args
		want  string
	}{
		{"--vectors is a regular file", func(t *testing.T, dir string) []string {
			os.WriteFile(filepath.Join(dir, "vfile"), []byte("x"), 0o644)
			return []string{"--vectors", "vfile"}
		}, "vfile: is a file, not a directory"},
		{"a later output path is a non-empty directory", func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "out", "ts", "tsconfig.json")
			os.Remove(p)
			os.MkdirAll(filepath.Join(p, "sub"), 0o755)
			os.WriteFile(filepath.Join(p, "sub", "keep"), []byte("x"), 0o644)
			return nil
		}, "tsconfig.json: is a directory"},
		{"out/go is a symlink to a directory outside", func(t *testing.T, dir string) []string {
			outside := filepath.Join(dir, "elsewhere")
			os.Rename(filepath.Join(dir, "out", "go"), outside)
			os.Symlink(outside, filepath.Join(dir, "out", "go"))
			return nil
		}, "out/go: is a symbolic link"},
		{"a user's file at a generated path", func(t *testing.T, dir string) []string {
			os.WriteFile(filepath.Join(dir, "out", "go", "dshproto", "go.mod"), []byte("module mine\n"), 0o644)
			return []string{"--go-module", "example.com/x/dshproto"}
		}, "go.mod: exists and was not written by dshgen"},
	}
	// The old tree is of another package name: a successful run would
	// rewrite or remove every file. It is generated once; each case, run in
	// parallel, gets a copy of its own (the same bytes, at the same relative
	// paths).
	old := generateInto(t, "--package", "oldproto")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(old)); err != nil {
				t.Fatal(err)
			}
			if treeHash(t, dir) != treeHash(t, old) {
				t.Fatal("the copy of the old tree differs from it")
			}
			os.MkdirAll(filepath.Join(dir, "out", "go", "dshproto"), 0o755)
			extra := c.setup(t, dir)
			before := treeHash(t, dir)
			code, _, stderr := runDshgen(t, dir, append([]string{"generate", "--schema", quickSchema, "--out", "out", "--vectors", "vec"}, extra...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, want 2 with %q:\n%s", code, c.want, stderr)
			}
			if treeHash(t, dir) != before {
				t.Error("the tree changed on a refused run")
			}
		})
	}
}

// TestGenerateKeepsUserFiles: a user's files beside the generated ones
// survive generate, a package rename removes only the old generated files
// (and says which), and --check calls none of the user's files stale.
func TestGenerateKeepsUserFiles(t *testing.T) {
	dir := generateInto(t, "--package", "oldproto")
	user := map[string]string{
		"out/go/main.go":             "package main\n",
		"out/go/go.mod":              "module example.com/app\n",
		"out/go/oldproto/helpers.go": "package oldproto\n",
		"out/python/app.py":          "import oldproto\n",
		"out/ts/src/extra.ts":        "export const mine = 1;\n",
		"vec/drivers/mine.sh":        "true\n",
	}
	for p, d := range user {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(d), 0o644)
	}
	code, stdout, stderr := runDshgen(t, dir, "generate", "--check", "--schema", quickSchema, "--out", "out", "--vectors", "vec", "--package", "oldproto")
	if code != 0 {
		t.Fatalf("--check with only user files added: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runDshgen(t, dir, "generate", "--schema", quickSchema, "--out", "out", "--vectors", "vec")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for p, d := range user {
		if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != d {
			t.Errorf("user file %s: %q, %v", p, b, err)
		}
	}
	for _, p := range []string{"out/go/oldproto/types.go", "out/python/oldproto/types.py"} {
		if !strings.Contains(stderr, "removed "+filepath.Join("out", strings.TrimPrefix(p, "out/"))) {
			t.Errorf("generate did not say it removed %s:\n%s", p, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s not removed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "python", "oldproto")); err == nil {
		t.Error("the emptied out/python/oldproto is still there")
	}
	if code, stdout, stderr := runDshgen(t, dir, "generate", "--check", "--schema", quickSchema, "--out", "out", "--vectors", "vec"); code != 0 {
		t.Errorf("--check after generate: exit %d\n%s%s", code, stdout, stderr)
	}
	// No state left behind but the manifests.
	for _, d := range []string{"out", "vec"} {
		ents, _ := os.ReadDir(filepath.Join(dir, d, ".dshgen"))
		if len(ents) != 1 || ents[0].Name() != "manifest" {
			t.Errorf("%s/.dshgen holds %v", d, ents)
		}
	}
}

// TestGenerateOldTreeWithoutManifest: a tree an older dshgen wrote (no
// manifest, its temp files left by a kill) is adopted: headed files that
// are no longer generated and the temp files go, the user's stay.
func TestGenerateOldTreeWithoutManifest(t *testing.T) {
	dir := generateInto(t, "--package", "oldproto")
	os.RemoveAll(filepath.Join(dir, "out", ".dshgen"))
	os.WriteFile(filepath.Join(dir, "out", "go", "oldproto", ".dshgen-1234567"), []byte("partial"), 0o600)
	os.WriteFile(filepath.Join(dir, "out", "go", "oldproto", "mine.go"), []byte("package oldproto\n"), 0o644)
	code, _, stderr := runDshgen(t, dir, "generate", "--schema", quickSchema, "--out", "out", "--vectors", "vec")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "go", "oldproto", ".dshgen-1234567")); err == nil {
		t.Error("the old writer's temp file is left")
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "go", "oldproto", "types.go")); err == nil {
		t.Error("old generated file left")
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "go", "oldproto", "mine.go")); err != nil {
		t.Error("the user's file was removed")
	}
}

// TestCheckFixCommand: --check prints the exact command that regenerates:
// the binary as invoked and every flag that was set.
func TestCheckFixCommand(t *testing.T) {
	dir := generateInto(t)
	for _, c := range []struct {
		argv0 string
		args  []string
		want  string
	}{
		{dshgenBin, []string{"--package", "kvproto"}, dshgenBin + " generate --out out --package kvproto --schema kv.schema.json --vectors vec"},
		{"./dshgen", []string{"--lang=go,ts", "--out", "o u t"}, "./dshgen generate --lang go,ts --out 'o u t' --schema kv.schema.json --vectors vec"},
		{"dshgen", []string{"--go-module", "example.com/x/dshproto", "--check=true"}, "dshgen generate --go-module example.com/x/dshproto --out out --schema kv.schema.json --vectors vec"},
	} {
		cmd := exec.Command(dshgenBin, append([]string{"generate", "--check", "--schema", quickSchema, "--out", "out", "--vectors", "vec"}, c.args...)...)
		cmd.Args[0] = c.argv0
		cmd.Dir = dir
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%v: %v %s", c.args, err, errb.String())
		}
		if !strings.Contains(errb.String(), "to fix, run:\n  "+c.want+"\n") {
			t.Errorf("%v: want fix command %q in:\n%s", c.args, c.want, errb.String())
		}
	}
	// Through go run, the fix command is go run ./cmd/dshgen.
	root := repoRoot(t)
	out := filepath.Join(dir, "out")
	cmd := exec.Command("go", "run", "./cmd/dshgen", "generate", "--check", "--out", out, "--package", "kvproto")
	cmd.Dir = root
	b, _ := cmd.CombinedOutput()
	if !strings.Contains(string(b), "to fix, run:\n  go run ./cmd/dshgen generate --out "+out+" --package kvproto\n") {
		t.Errorf("go run: fix command missing:\n%s", b)
	}
}

// TestInvocationRendersEveryFlagType: bool, slice, string and repeated
// flags, including any another command defines, come out as given.
func TestInvocationRendersEveryFlagType(t *testing.T) {
	c := &cobra.Command{Use: "x"}
	rootCmd.AddCommand(c)
	defer rootCmd.RemoveCommand(c)
	var b bool
	var s string
	var arr, sl []string
	c.Flags().BoolVar(&b, "flag", false, "")
	c.Flags().StringVar(&s, "str", "", "")
	c.Flags().StringArrayVar(&arr, "overlay", nil, "")
	c.Flags().StringSliceVar(&sl, "slice", nil, "")
	if err := c.Flags().Parse([]string{"--flag=false", "--str", "a'b", "--overlay", "x.json", "--overlay", "y.json", "--slice", "p,q"}); err != nil {
		t.Fatal(err)
	}
	got := invocation(c)
	want := " x --flag=false --overlay x.json --overlay y.json --slice p,q --str 'a'\\''b'"
	if !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want suffix %q", got, want)
	}
}

// TestEveryFlagCompletes: every flag that takes a value, of every command,
// completes: a fixed set from the list that validates it (choiceFlag),
// else what freeFlags says; an entry of freeFlags must name a real flag
// that is not a choice flag.
func TestEveryFlagCompletes(t *testing.T) {
	registerCompletions()
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" {
				return
			}
			key := c.Name() + " " + f.Name
			_, free := freeFlags[key]
			if _, any := freeFlags["* "+f.Name]; any && !free {
				key = "* " + f.Name
				free = true
			}
			seen[key] = true
			_, choice := f.Value.(*choiceValue)
			_, choices := f.Value.(*choicesValue)
			if (choice || choices) && free {
				t.Errorf("%s: a choice flag listed in freeFlags", key)
			}
			fn, ok := c.GetFlagCompletionFunc(f.Name)
			_, file := f.Annotations[cobra.BashCompFilenameExt]
			_, dir := f.Annotations[cobra.BashCompSubdirsInDir]
			annotated := file || dir
			if !ok && !annotated {
				t.Errorf("--%s of %s has no completion: if it takes a fixed set of values, declare it with choiceFlag (one list validates and completes it); else add %q to freeFlags", f.Name, c.CommandPath(), key)
			}
			if choice || choices {
				var want []string
				if choice {
					want = f.Value.(*choiceValue).choices
				} else {
					want = f.Value.(*choicesValue).choices
				}
				got, _ := fn(c, nil, "")
				if !slices.Equal(got, want) {
					t.Errorf("%s completes %v, accepts %v", key, got, want)
				}
				if err := f.Value.Set("no-such-value"); err == nil {
					t.Errorf("%s accepts a value outside its choices", key)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(rootCmd)
	for key := range freeFlags {
		if !seen[key] {
			t.Errorf("freeFlags lists %q, which is no flag taking a value", key)
		}
	}
	// The enumerated flags the task names, end to end through the shell
	// completion protocol.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "validate", "--format", ""}, "junit"},
		{[]string{"__complete", "generate", "--lang", ""}, "python"},
		{[]string{"__complete", "tap", "--fail-on", ""}, "warning"},
		{[]string{"__complete", "diff", "--fail-on", ""}, "strict"},
		{[]string{"__complete", "validate", "--direction", ""}, "server-to-client"},
		{[]string{"__complete", "conformance", "--lang", "go,"}, "go,ts"},
	} {
		_, out, _ := runDshgen(t, repoRoot(t), c.args...)
		if !strings.Contains(out, c.want+"\n") {
			t.Errorf("%v: %q missing from:\n%s", c.args, c.want, out)
		}
	}
}

// TestChoiceFlagsRejectOthers: a value outside the set is a usage error
// (exit 2) that lists the accepted values.
func TestChoiceFlagsRejectOthers(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "--format", "yaml", "x"}, {"validate", "--direction", "up", "x"}, {"validate", "--prompt-overlap", "info", "x"},
		{"tap", "--format", "xml", "--", "true"}, {"tap", "--fail-on", "never", "--", "true"}, {"diff", "--format", "yaml", "a", "b"},
		{"generate", "--lang", "go,cobol"}, {"conformance", "--lang", "rust"},
	} {
		code, _, stderr := runDshgen(t, repoRoot(t), args...)
		if code != 2 || !strings.Contains(stderr, " or ") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestNoHandMadePlurals: no format string in cmd/dshgen counts with a
// fixed plural ("%d files") or "(s)": counts go through validate.Count,
// the one helper that puts a number and a noun together.
func TestNoHandMadePlurals(t *testing.T) {
	bad := regexp.MustCompile(`%d\+?(%d)? ([a-z]+ )?[a-z]+s\b|\(s\)`)
	fset := token.NewFileSet()
	paths, _ := filepath.Glob("*.go")
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			if m := bad.FindString(s); m != "" {
				t.Errorf("%s: %q counts with a fixed plural (%q); use validate.Count", fset.Position(lit.Pos()), s, m)
			}
			return true
		})
	}
}

// TestGoModule: with --go-module the Go package builds as its own module:
// a main in another temp module imports it through a replace directive,
// builds and runs offline, and go vet finds nothing at the go.mod's Go
// version (whose stdversion check flags newer standard-library symbols).
func TestGoModule(t *testing.T) {
	t.Parallel() // independent (directories of its own); runs beside the other parallel tests
	dir := generateInto(t, "--lang", "go", "--go-module", "example.com/foo/dshproto")
	pkg := filepath.Join(dir, "out", "go", "dshproto")
	mod, err := os.ReadFile(filepath.Join(pkg, "go.mod"))
	if err != nil || !strings.Contains(string(mod), "\nmodule example.com/foo/dshproto\n") || !strings.HasPrefix(string(mod), "// Code generated by dshgen") {
		t.Fatalf("go.mod: %q %v", mod, err)
	}
	app := t.TempDir()
	os.WriteFile(filepath.Join(app, "go.mod"), []byte("module example.com/app\n\ngo 1.22\n\nrequire example.com/foo/dshproto v0.0.0\n\nreplace example.com/foo/dshproto => "+pkg+"\n"), 0o644)
	os.WriteFile(filepath.Join(app, "main.go"), []byte(`package main

import (
	"fmt"

	"example.com/foo/dshproto"
)

func main() {
	_, ok := dshproto.LookupMethod("kv/get")
	fmt.Println(ok, len(dshproto.Requests) > 0)
}
`), 0o644)
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	// -trimpath: the build cache keys the generated package by its content,
	// not by this temporary directory, so it is compiled once across runs.
	for _, c := range []struct {
		dir  string
		args []string
	}{{pkg, []string{"vet", "-trimpath", "./..."}}, {app, []string{"vet", "-trimpath", "."}}, {app, []string{"run", "-trimpath", "."}}} {
		cmd := exec.Command("go", c.args...)
		cmd.Dir, cmd.Env = c.dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in %s: %v\n%s", strings.Join(c.args, " "), c.dir, err, out)
		}
		if c.args[0] == "run" && strings.TrimSpace(string(out)) != "true true" {
			t.Errorf("go run: %q", out)
		}
	}
	// An invalid module path is a usage error before anything is written.
	code, _, stderr := runDshgen(t, dir, "generate", "--out", "out2", "--lang", "go", "--go-module", "bad path")
	if code != 2 || !strings.Contains(stderr, "--go-module") {
		t.Errorf("bad module path: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out2")); err == nil {
		t.Error("out2 created on a refused run")
	}
}

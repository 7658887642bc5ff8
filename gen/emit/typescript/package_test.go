package typescript

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
)

// packageJSON reads the fields of a package.json these tests look at.
type packageJSON struct {
	Scripts         map[string]string `json:"scripts"`
	DevDependencies map[string]string `json:"devDependencies"`
	Dependencies    map[string]string `json:"dependencies"`
}

func readPackageJSON(t *testing.T, data []byte) packageJSON {
	t.Helper()
	var p packageJSON
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPackagePinsRepoTypeScript: the generated package.json builds with
// the TypeScript this repository tests with (testdata/ts/package.json), as
// its only dependency, through a build script.
func TestPackagePinsRepoTypeScript(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ts", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := readPackageJSON(t, b).DevDependencies["typescript"]
	if want == "" {
		t.Fatal("testdata/ts/package.json pins no typescript")
	}
	for _, f := range emitFile(t, filepath.Join(repoRoot(t), "schema", "0.0.1", "dsh-sdk-protocol.schema.json"), ir.Options{}) {
		if f.Path != Dir+"/package.json" {
			continue
		}
		p := readPackageJSON(t, f.Data)
		if got := p.DevDependencies["typescript"]; got != want {
			t.Errorf("generated package.json pins typescript %q; testdata/ts/package.json pins %q (templates/ts/package.json.tmpl)", got, want)
		}
		// @types/node: the transport and client import node:stream and
		// node:child_process; pinned as testdata/ts pins it.
		if got, want := p.DevDependencies["@types/node"], readPackageJSON(t, b).DevDependencies["@types/node"]; got != want {
			t.Errorf("generated package.json pins @types/node %q; testdata/ts/package.json pins %q", got, want)
		}
		if len(p.DevDependencies) != 2 || len(p.Dependencies) != 0 {
			t.Errorf("generated package.json depends on more than typescript and @types/node: %v %v", p.Dependencies, p.DevDependencies)
		}
		if !strings.Contains(p.Scripts["build"], "tsc") {
			t.Errorf("no build script running tsc: %v", p.Scripts)
		}
		return
	}
	t.Fatal("no package.json emitted")
}

// TestPackageBuildsWithNPM: the generated package, exactly as generated,
// builds with `npm install && npm run build` in a directory of its own,
// and the built ESM entry point loads in node. npm reads its cache first
// (testdata/ts/check.sh fills it with the same TypeScript). Skips without
// npm or node unless DSHGEN_REQUIRE_TSC is set (CI sets it).
func TestPackageBuildsWithNPM(t *testing.T) {
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("DSHGEN_REQUIRE_TSC") != "" {
				t.Fatalf("%s is not on PATH", tool)
			}
			t.Skipf("%s is not on PATH", tool)
		}
	}
	dir := t.TempDir()
	files := emitFile(t, filepath.Join(repoRoot(t), "schema", "0.0.1", "dsh-sdk-protocol.schema.json"), ir.Options{Version: "0.1.0"})
	if _, err := output.Write([]output.Target{{Dir: dir, Files: files}}); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, Dir)
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = pkg
		cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run("npm", "install", "--prefer-offline", "--loglevel=error")
	run("npm", "run", "build")
	for _, f := range []string{"index.js", "index.d.ts", "types.js", "methods.d.ts", "runtime.js"} {
		if _, err := os.Stat(filepath.Join(pkg, "dist", f)); err != nil {
			t.Errorf("npm run build wrote no dist/%s: %v", f, err)
		}
	}
	run("node", "--input-type=module", "-e", `const m = await import("./dist/index.js");
if (typeof m.parseFrame !== "function" || m.parseFrame('{"jsonrpc":"2.0","method":"x"}') === undefined) { throw new Error("parseFrame missing or broken"); }`)
}

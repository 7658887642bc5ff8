package ir

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestPackageVersion(t *testing.T) {
	for v, want := range map[string]string{
		"0.1.0":      "0.1.0",
		"v1.22.3":    "1.22.3",
		"golden":     "0.0.0",
		"1.2.3-rc.1": "0.0.0", // semver pre-release, not PEP 440
		"1.2":        "0.0.0",
		"":           "0.0.0",
	} {
		if got := (Options{Version: v}).PackageVersion(); got != want {
			t.Errorf("%q: %q, want %q", v, got, want)
		}
	}
}

// TestShippedPackageVersionsAgree: the Python and TypeScript packages in out/
// declare one version.
func TestShippedPackageVersionsAgree(t *testing.T) {
	root := filepath.Join("..", "..", "out")
	read := func(rel string, re *regexp.Regexp) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no version", rel)
		}
		return string(m[1])
	}
	for _, dir := range []string{"", "0.2.1"} {
		py := read(filepath.Join(dir, "python", "pyproject.toml"), regexp.MustCompile(`(?m)^version = "([^"]*)"`))
		ts := read(filepath.Join(dir, "ts", "package.json"), regexp.MustCompile(`"version": "([^"]*)"`))
		if py != ts || py == "" {
			t.Errorf("out/%s: pyproject.toml %q, package.json %q", dir, py, ts)
		}
	}
}

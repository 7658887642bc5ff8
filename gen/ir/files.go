package ir

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// File is one generated file: a slash-separated path relative to the output
// directory (e.g. "go/dshproto/types.go") and its bytes.
type File struct {
	Path string
	Data []byte
}

// Options are the settings every emitter receives.
type Options struct {
	// Package is the package name in every language (Go package, Python
	// import package, TypeScript package name); default "dshproto".
	Package string
	// Version is dshgen's version, written into headers.
	Version string
}

// PackageName returns o.Package or the default.
func (o Options) PackageName() string {
	if o.Package == "" {
		return "dshproto"
	}
	return o.Package
}

// DocLines normalizes a description for a line-comment block: CRLF, CR,
// U+2028 and U+2029 become line breaks, other control characters become
// spaces, trailing white space is trimmed. The result never contains a line
// break inside a line, so no text can end the comment or start a directive.
func DocLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.NewReplacer("\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(s)
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\uFEFF' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimRight(s, " \t\n")
	if strings.TrimSpace(s) == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
}

// WriteFiles writes files under dir all or nothing: every file is first
// written to a temporary sibling, and only when all of them are written are
// they renamed into place. When clean is true, files under dir's generated
// subtrees (the first path element of each file) that are not in files are
// removed afterwards, so a type that left the schema leaves no stale file.
func WriteFiles(dir string, files []File, clean bool) error {
	type staged struct{ tmp, final string }
	var done []staged
	fail := func(err error) error {
		for _, s := range done {
			os.Remove(s.tmp)
		}
		return err
	}
	for _, f := range files {
		final := filepath.Join(dir, filepath.FromSlash(f.Path))
		if old, err := os.ReadFile(final); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
			return fail(err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(final), ".dshgen-*")
		if err != nil {
			return fail(err)
		}
		done = append(done, staged{tmp.Name(), final})
		if _, err := tmp.Write(f.Data); err != nil {
			tmp.Close()
			return fail(err)
		}
		if err := tmp.Close(); err != nil {
			return fail(err)
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			return fail(err)
		}
	}
	for _, s := range done {
		if err := os.Rename(s.tmp, s.final); err != nil {
			return fail(err)
		}
	}
	if !clean {
		return nil
	}
	for _, p := range StaleFiles(dir, files) {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// StaleFiles lists, sorted, the files under dir's generated subtrees (the
// first path element of each of files) that are not among files and that
// no other tool owns (IgnoredOutput): what a clean generation removes and
// what a drift check reports.
func StaleFiles(dir string, files []File) []string {
	want := map[string]bool{}
	roots := map[string]bool{}
	for _, f := range files {
		want[filepath.Join(dir, filepath.FromSlash(f.Path))] = true
		roots[filepath.Join(dir, strings.SplitN(f.Path, "/", 2)[0])] = true
	}
	var stale []string
	for root := range roots {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !want[p] && !IgnoredOutput(p) {
				stale = append(stale, p)
			}
			return nil
		})
	}
	sort.Strings(stale)
	return stale
}

// IgnoredOutput reports files under out/ that tools other than dshgen
// create (installed packages, caches, build output) and that generation
// leaves alone.
func IgnoredOutput(p string) bool {
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		switch part {
		case "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "dist", "build", ".venv":
			return true
		}
		if strings.HasSuffix(part, ".egg-info") || strings.HasSuffix(part, ".tsbuildinfo") {
			return true
		}
	}
	return false
}

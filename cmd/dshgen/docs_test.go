package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines is the README's budget: what a newcomer reads before the
// first command; the rest lives in the docs beside the code.
const readmeMaxLines = 250

// TestREADMEShowsRealFiles checks that the README stays short and that the
// files it prints (the quickstart schema, the client module and program)
// are the files in testdata/quickstart, byte for byte, so the example a
// newcomer copies is the one TestREADMEQuickstart runs.
func TestREADMEShowsRealFiles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, over the %d-line budget: move detail into the docs beside the code", n, readmeMaxLines)
	}
	for _, name := range []string{"kv.schema.json", "client/go.mod", "client/main.go"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "quickstart", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "\n```"+fenceLang(name)+"\n"+string(b)+"```\n") {
			t.Errorf("README.md does not show testdata/quickstart/%s as it is (in a ```%s fence)", name, fenceLang(name))
		}
	}
}

func fenceLang(name string) string {
	switch filepath.Ext(name) {
	case ".json":
		return "json"
	case ".go":
		return "go"
	}
	return "text"
}

// mdLink matches an inline Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks checks every relative link of every Markdown file in the
// repository (outside node_modules): the file or directory it names exists,
// and a #fragment into a Markdown file names one of its headings (GitHub's
// anchors: lower case, spaces to hyphens, punctuation dropped).
func TestDocsLinks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(withoutCode(string(b)), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				}
				checked++
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", rel, i+1, target, file)
					continue
				}
				if frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				if !hasAnchor(t, dest, frag) {
					t.Errorf("%s:%d: link %q: no heading with anchor #%s in %s", rel, i+1, target, frag, file)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("only %d relative links found in the docs: the link pattern is broken", checked)
	}
}

// withoutCode blanks fenced code blocks and inline code spans (keeping the
// line count), where bracket-parenthesis pairs are code, not links.
func withoutCode(s string) string {
	return blankCode(s, true)
}

// blankCode blanks fenced code blocks, and inline code spans when inline.
func blankCode(s string, inline bool) string {
	lines := strings.Split(s, "\n")
	inFence := false
	span := regexp.MustCompile("`[^`]*`")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
			lines[i] = ""
			continue
		}
		if inFence {
			lines[i] = ""
			continue
		}
		if inline {
			lines[i] = span.ReplaceAllString(l, "``")
		}
	}
	return strings.Join(lines, "\n")
}

func hasAnchor(t *testing.T, file, frag string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(blankCode(string(b), false), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		if headingAnchor(strings.TrimLeft(line, "#")) == frag {
			return true
		}
	}
	return false
}

// headingAnchor is GitHub's anchor of a heading's text.
func headingAnchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

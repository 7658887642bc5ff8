package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// Source is one loaded revision: the model and the label the report uses.
type Source struct {
	Model *ir.Model
	Label string
	// cleanup removes the temporary copy of a git revision (nil for files).
	cleanup func()
}

// Close releases what LoadSource made for a git revision; safe on nil.
func (s *Source) Close() {
	if s != nil && s.cleanup != nil {
		s.cleanup()
	}
}

// LoadSource loads one side of a comparison. arg is a schema file path, or
// REV:path — path in the git revision REV (any `git rev-parse` revision:
// HEAD~1, a tag, a commit) of the repository the current directory is in,
// read with `git show`; files the schema $refs by relative path are read
// from the same revision. An existing file named arg always wins over the
// REV:path reading. Errors: a missing file, a git failure (the git message
// is included) or schema problems (*ir.LoadError text, with REV:path in
// place of the temporary copy's path).
func LoadSource(arg string) (*Source, error) {
	if _, err := os.Stat(arg); err == nil {
		m, err := ir.Load(arg)
		if err != nil {
			return nil, err
		}
		return &Source{Model: m, Label: arg}, nil
	}
	rev, p, ok := strings.Cut(arg, ":")
	if !ok || rev == "" || p == "" || len(rev) == 1 && filepath.VolumeName(arg) != "" {
		return nil, fmt.Errorf("%s: no such file (for a git revision write REV:path, e.g. HEAD~1:%s)", arg, arg)
	}
	return loadRevision(rev, p)
}

// git runs git in dir and returns its stdout; the error carries stderr.
func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.Bytes(), nil
}

func loadRevision(rev, p string) (*Source, error) {
	label := rev + ":" + p
	prefix, err := git(".", "rev-parse", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("%s: not inside a git repository (%v)", label, err)
	}
	if _, err := git(".", "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%s: unknown git revision %q", label, rev)
	}
	// The file's path from the repository root.
	repoPath := path.Clean(strings.TrimSpace(string(prefix)) + filepath.ToSlash(p))
	if strings.HasPrefix(repoPath, "../") || repoPath == ".." || path.IsAbs(repoPath) {
		return nil, fmt.Errorf("%s: the path must be inside the repository", label)
	}
	tmp, err := os.MkdirTemp("", "dshgen-diff-rev-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	fetched := map[string]bool{}
	var fetch func(rp string, required bool) error
	fetch = func(rp string, required bool) error {
		if fetched[rp] {
			return nil
		}
		fetched[rp] = true
		b, err := git(".", "show", rev+":"+rp)
		if err != nil {
			if required {
				return fmt.Errorf("%s: %v", label, err)
			}
			return nil // the loader reports the missing $ref target
		}
		dst := filepath.Join(tmp, filepath.FromSlash(rp))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
		for _, ref := range fileRefs(b) {
			next := path.Clean(path.Join(path.Dir(rp), ref))
			if strings.HasPrefix(next, "../") {
				continue
			}
			if err := fetch(next, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := fetch(repoPath, true); err != nil {
		cleanup()
		return nil, err
	}
	m, err := ir.Load(filepath.Join(tmp, filepath.FromSlash(repoPath)))
	if err != nil {
		cleanup()
		msg := strings.ReplaceAll(err.Error(), filepath.Join(tmp, filepath.FromSlash(repoPath)), label)
		msg = strings.ReplaceAll(msg, tmp+string(filepath.Separator), rev+":")
		return nil, errors.New(msg)
	}
	return &Source{Model: m, Label: label, cleanup: cleanup}, nil
}

// fileRefs lists the file parts of the relative-file $refs in a schema
// document (every "$ref" string member anywhere; the loader decides which
// ones are schemas).
func fileRefs(b []byte) []string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var out []string
	var walk func(x any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, c := range t {
				if s, ok := c.(string); ok && k == "$ref" {
					if u, err := url.Parse(s); err == nil && u.Scheme == "" && u.Host == "" && u.Path != "" {
						out = append(out, u.Path)
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

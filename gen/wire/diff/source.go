package diff

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
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

// Options are what LoadSource passes to the schema loader besides the file:
// overlay files (read from the working tree, also for a git revision) and
// the directories $refs may reach besides the schema's own (for a git
// revision, a directory inside the repository names its copy from that
// revision).
type Options struct {
	Overlays     []string
	AllowRefDirs []string
}

// LoadSource loads one side of a comparison. arg is a schema file path, or
// REV:path — path in the git revision REV (any `git rev-parse` revision:
// HEAD~1, a tag, a commit) of the repository the current directory is in,
// read with `git show`; files the schema $refs by relative path are read
// from the same revision. An existing file named arg always wins over the
// REV:path reading. Errors: a missing file, a git failure (the git message
// is included) or schema problems (*ir.LoadError text, with REV:path in
// place of the temporary copy's path).
func LoadSource(arg string, o Options) (*Source, error) {
	if _, err := os.Stat(arg); err == nil {
		m, err := ir.LoadSource(ir.Source{Path: arg, Overlays: o.Overlays, AllowRefDirs: o.AllowRefDirs})
		if err != nil {
			return nil, err
		}
		return &Source{Model: m, Label: arg}, nil
	}
	rev, p, ok := strings.Cut(arg, ":")
	if !ok || rev == "" || p == "" || len(rev) == 1 && filepath.VolumeName(arg) != "" {
		return nil, fmt.Errorf("%s: no such file (for a git revision write REV:path, e.g. HEAD~1:%s)", arg, arg)
	}
	return loadRevision(rev, p, o)
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

func loadRevision(rev, p string, o Options) (*Source, error) {
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
		b, err := gitFile(rev, rp)
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
	top, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("%s: %v", label, err)
	}
	var allow []string
	for _, d := range o.AllowRefDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			cleanup()
			return nil, err
		}
		if rel, err := filepath.Rel(strings.TrimSpace(string(top)), abs); err == nil && !strings.HasPrefix(rel, "..") {
			abs = filepath.Join(tmp, rel)
			if err := os.MkdirAll(abs, 0o755); err != nil {
				cleanup()
				return nil, err
			}
		}
		allow = append(allow, abs)
	}
	m, err := ir.LoadSource(ir.Source{Path: filepath.Join(tmp, filepath.FromSlash(repoPath)), Overlays: o.Overlays, AllowRefDirs: allow})
	if err != nil {
		cleanup()
		msg := strings.ReplaceAll(err.Error(), filepath.Join(tmp, filepath.FromSlash(repoPath)), label)
		msg = strings.ReplaceAll(msg, tmp+string(filepath.Separator), rev+":")
		return nil, errors.New(msg)
	}
	return &Source{Model: m, Label: label, cleanup: cleanup}, nil
}

// gitFile returns the bytes of path rp at revision rev, refusing a blob
// larger than a schema file may be (before reading it).
func gitFile(rev, rp string) ([]byte, error) {
	size, err := git(".", "cat-file", "-s", rev+":"+rp)
	if err != nil {
		return nil, err
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64); err != nil || n > schemadoc.MaxFileBytes {
		return nil, fmt.Errorf("%s:%s is %s bytes, over the %d-byte limit for a schema file", rev, rp, strings.TrimSpace(string(size)), schemadoc.MaxFileBytes)
	}
	return git(".", "show", rev+":"+rp)
}

// fileRefs lists the file parts of the relative-file $refs in a schema
// document (every "$ref" string member anywhere; the loader decides which
// ones are schemas and checks each).
func fileRefs(b []byte) []string {
	root, err := schemadoc.Parse(b)
	if err != nil {
		return nil
	}
	var out []string
	root.Walk(func(k string, c *schemadoc.Node) bool {
		if k == "$ref" && c.Kind() == schemadoc.String {
			if u, err := url.Parse(c.Str()); err == nil && u.Scheme == "" && u.Host == "" && u.Path != "" {
				out = append(out, u.Path)
			}
		}
		return true
	})
	return out
}

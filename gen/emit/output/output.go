// Package output writes generated files into a user's project tree as one
// transaction, and checks a tree for drift against what would be written.
//
// A generation names one or more targets (the bindings' output directory,
// the conformance vectors' directory), each a root directory and the files
// to put under it. Write then
//
//  1. resolves each root (it must be a directory or not exist yet) and takes
//     an exclusive lock on it, so concurrent runs into one directory
//     serialise instead of interleaving;
//  2. finishes or discards what an interrupted earlier run left (recovery);
//  3. plans every target: which files change, which files an earlier run
//     wrote that are no longer generated (stale), and checks every path:
//     no symbolic link on the way, no directory where a file goes, no file
//     it did not write about to be overwritten. Any problem in any target
//     stops the run here with every problem listed and nothing written;
//  4. writes the changed files into a staging directory inside each root
//     (ROOT/.dshgen/stage-ID, so on the same filesystem), synced to disk;
//  5. commits by renaming one journal file into place, and then switches the
//     staged files in with rename(2), removes the stale files and finally
//     the staging directories and the journal.
//
// Only files dshgen wrote are ever removed or overwritten: those listed in
// ROOT/.dshgen/manifest (path and sha256 of every file the last run wrote,
// rewritten by every run) or, where no manifest lists them, those whose
// first lines carry the generated header (ir.IsGenerated). A file dshgen
// wrote that the user edited since is left in place when it is no longer
// generated. README.md beside this file states the crash guarantee.
package output

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/dshgen/dshgen/gen/ir"
)

// stateDir is the directory under every root where dshgen keeps its
// manifest and, while a run switches files in, its staging directories and
// journal. Its name is never a generated path.
const stateDir = ".dshgen"

// ManifestPath is the manifest's path relative to a root (slash-separated,
// as in Change.Rel).
const ManifestPath = stateDir + "/manifest"

const manifestRel = ManifestPath

// Target is one root directory and the files a generation puts under it.
type Target struct {
	// Dir is the root as the user gave it (shown in messages); it is created
	// when missing. Symbolic links in Dir itself are the user's choice and
	// are resolved; none is followed below it.
	Dir string
	// Files are the generated files, paths relative to Dir.
	Files []ir.File
	// Scopes are the slash-separated subtrees of Dir this generation owns:
	// a file an earlier run wrote under one of them that is not among
	// Files is stale and removed. "" is the whole root. Nil means the first
	// path element of each file (e.g. "go" for go/dshproto/types.go), so
	// generating one language leaves the others' files alone.
	Scopes []string
	// NoManifest skips writing ROOT/.dshgen/manifest (scratch and golden
	// trees that the caller owns as a whole). Stale files are then found by
	// their generated header only.
	NoManifest bool
}

// Change is one generated file whose bytes on disk differ from the new ones.
type Change struct {
	Path string // Dir-joined path, for messages
	Rel  string // relative to the root, slash-separated
	Old  []byte // nil when the file does not exist
	New  []byte // nil for a spooled file (ir.File.Spool): read it with ir.File.Bytes
}

// TargetResult says what a Write did (or a Check found) under one target.
type TargetResult struct {
	Dir string
	// Changed are the files whose bytes differ from the new ones (written
	// by Write, reported by Check), manifest included.
	Changed []Change
	// Unchanged counts generated files already up to date.
	Unchanged int
	// Stale are Dir-joined paths of files an earlier run wrote that are no
	// longer generated (removed by Write, reported by Check).
	Stale []string
	// Kept are Dir-joined paths of files dshgen wrote and that are no longer
	// generated, but were edited since: left in place, no longer listed in
	// the manifest.
	Kept []string
	// Leftover is set by Check when an interrupted run left a staging
	// directory (harmless; the next Write removes it).
	Leftover bool
	// Interrupted is set by Check when an interrupted run had committed its
	// switch but not finished it: the tree may mix old and new files until
	// the next Write finishes the switch. It names the journal.
	Interrupted string
}

// Result is what Write did.
type Result struct {
	Targets []TargetResult
	// Recovered lists what an interrupted earlier run left and this run
	// finished or discarded, one line each.
	Recovered []string
}

// root is a Target with its directory resolved.
type root struct {
	Target
	abs     string // absolute, symlinks resolved (or the absolute path to create)
	exists  bool
	scopes  []string
	display func(rel string) string
}

func resolve(t Target) (*root, error) {
	if t.Dir == "" {
		return nil, errors.New("empty output directory")
	}
	abs, err := filepath.Abs(t.Dir)
	if err != nil {
		return nil, err
	}
	r := &root{Target: t}
	r.display = func(rel string) string { return filepath.Join(t.Dir, filepath.FromSlash(rel)) }
	// Resolve the deepest existing ancestor; the rest will be created.
	missing := ""
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				if p == abs {
					return nil, fmt.Errorf("%s: is a file, not a directory", t.Dir)
				}
				return nil, fmt.Errorf("%s: %s is a file, not a directory", t.Dir, p)
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil, err
			}
			r.abs = filepath.Join(real, missing)
			r.exists = missing == ""
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil, fmt.Errorf("%s: %w", t.Dir, err)
		}
		if filepath.Dir(p) == p {
			return nil, fmt.Errorf("%s: %w", t.Dir, err)
		}
		missing = filepath.Join(filepath.Base(p), missing)
	}
	r.scopes = t.Scopes
	if r.scopes == nil {
		seen := map[string]bool{}
		for _, f := range t.Files {
			first := strings.SplitN(f.Path, "/", 2)[0]
			if !seen[first] {
				seen[first] = true
				r.scopes = append(r.scopes, first)
			}
		}
		sort.Strings(r.scopes)
	}
	return r, nil
}

func resolveAll(targets []Target) ([]*root, error) {
	var roots []*root
	for _, t := range targets {
		r, err := resolve(t)
		if err != nil {
			return nil, err
		}
		for _, o := range roots {
			if within(o.abs, r.abs) || within(r.abs, o.abs) {
				return nil, fmt.Errorf("output directories %s and %s overlap; give each generation its own directory", o.Dir, r.Dir)
			}
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// inScope reports whether rel lies in one of the scopes.
func (r *root) inScope(rel string) bool {
	for _, s := range r.scopes {
		if s == "" || rel == s || strings.HasPrefix(rel, s+"/") {
			return true
		}
	}
	return false
}

// checkRel rejects a generated path that is not a clean relative path
// inside the root (an emitter bug, never user input).
func checkRel(rel string) error {
	if rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == "." || rel == ".." ||
		strings.HasPrefix(rel, "../") || strings.Contains(rel, "\\") {
		return fmt.Errorf("generated path %q is not a clean relative path", rel)
	}
	if rel == stateDir || strings.HasPrefix(rel, stateDir+"/") {
		return fmt.Errorf("generated path %q lies in dshgen's own %s directory", rel, stateDir)
	}
	return nil
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// put is one file to switch in.
type put struct {
	rel  string
	file ir.File
}

// removal is one stale file to remove, with the sha256 it had when planned
// (recovery removes it only if it still has those bytes).
type removal struct {
	Rel    string `json:"path"`
	SHA256 string `json:"sha256"`
}

// plan is what one root needs.
type plan struct {
	r       *root
	puts    []put
	removes []removal
	res     TargetResult
}

// walker checks paths under one root without following links, caching
// what it saw of each directory.
type walker struct {
	r    *root
	dirs map[string]error // rel dir -> nil (a real directory or absent) or the problem
}

// dirOK checks that every existing component of rel dir is a directory and
// not a symbolic link.
func (w *walker) dirOK(dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	if err, ok := w.dirs[dir]; ok {
		return err
	}
	err := w.dirOK(path.Dir(dir))
	if err == nil {
		err = w.kind(dir, true)
	}
	w.dirs[dir] = err
	return err
}

// kind checks one existing path: a link or (for a directory component) a
// non-directory is an error; an absent path is fine.
func (w *walker) kind(rel string, wantDir bool) error {
	st, err := os.Lstat(filepath.Join(w.r.abs, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	shown := w.r.display(rel)
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(filepath.Join(w.r.abs, filepath.FromSlash(rel)))
		return fmt.Errorf("%s: is a symbolic link (to %s); dshgen writes only inside the output directory and follows no link there: replace it with a directory or choose another --out", shown, to)
	case wantDir && !st.IsDir():
		return fmt.Errorf("%s: is a file where generated files need a directory; move it away", shown)
	case !wantDir && st.IsDir():
		return fmt.Errorf("%s: is a directory where a generated file goes; move it away", shown)
	case !wantDir && !st.Mode().IsRegular():
		return fmt.Errorf("%s: is not a regular file (%s); move it away", shown, st.Mode().Type())
	}
	return nil
}

// readManifest returns the manifest of a root (nil, false when there is none).
func (r *root) readManifest() (map[string]string, bool, error) {
	if !r.exists {
		return nil, false, nil
	}
	w := &walker{r: r, dirs: map[string]error{}}
	if err := w.dirOK(stateDir); err != nil {
		return nil, false, err
	}
	if err := w.kind(manifestRel, false); err != nil {
		return nil, false, err
	}
	b, err := os.ReadFile(filepath.Join(r.abs, filepath.FromSlash(manifestRel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	m, err := parseManifest(b)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w (delete it to let dshgen recognise its files by their generated header)", r.display(manifestRel), err)
	}
	return m, true, nil
}

// makePlan decides what root r needs. Problems are returned all together.
func makePlan(r *root) (*plan, []error) {
	p := &plan{r: r, res: TargetResult{Dir: r.Dir}}
	var errs []error
	old, haveManifest, err := r.readManifest()
	if err != nil {
		return nil, []error{err}
	}
	w := &walker{r: r, dirs: map[string]error{}}
	generated := map[string]bool{}
	newManifest := map[string]string{}
	for _, f := range r.Files {
		if err := checkRel(f.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		if generated[f.Path] {
			errs = append(errs, fmt.Errorf("generated path %q appears twice", f.Path))
			continue
		}
		generated[f.Path] = true
		newManifest[f.Path] = f.SHA256()
		if err := w.dirOK(path.Dir(f.Path)); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := w.kind(f.Path, false); err != nil {
			errs = append(errs, err)
			continue
		}
		cur, err := os.ReadFile(filepath.Join(r.abs, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cur = nil
		case err != nil:
			errs = append(errs, err)
			continue
		case int64(len(cur)) == f.Size() && sum(cur) == newManifest[f.Path]:
			p.res.Unchanged++
			continue
		case old[f.Path] == "" && !ir.IsGenerated(cur):
			// Neither listed in the manifest nor headed as generated: the
			// user's file (a go.mod of their own beside the Go package).
			errs = append(errs, fmt.Errorf("%s: exists and was not written by dshgen (%s, no generated header); dshgen does not overwrite it: move it away or choose another --out", r.display(f.Path), manifestWhy(r, haveManifest)))
			continue
		}
		p.puts = append(p.puts, put{f.Path, f})
		p.res.Changed = append(p.res.Changed, Change{Path: r.display(f.Path), Rel: f.Path, Old: cur, New: f.Data})
	}
	// Stale: files an earlier run wrote under the scopes, not generated now.
	// A scope no manifest entry covers (no manifest, or a language never
	// generated here since manifests exist) is searched for generated
	// headers instead.
	var candidates []string
	for rel := range old {
		if !generated[rel] && checkRel(rel) == nil {
			candidates = append(candidates, rel)
		}
	}
	var bare []string
	for _, s := range r.scopes {
		covered := false
		for rel := range old {
			if s == "" || rel == s || strings.HasPrefix(rel, s+"/") {
				covered = true
				break
			}
		}
		if !covered {
			bare = append(bare, s)
		}
	}
	for _, rel := range r.headerCandidates(bare, generated) {
		if _, listed := old[rel]; !listed {
			candidates = append(candidates, rel)
		}
	}
	sort.Strings(candidates)
	for _, rel := range candidates {
		if w.dirOK(path.Dir(rel)) != nil || w.kind(rel, false) != nil {
			continue // a link or directory now: not a file dshgen wrote
		}
		b, err := os.ReadFile(filepath.Join(r.abs, filepath.FromSlash(rel)))
		if err != nil {
			continue // gone
		}
		switch {
		case !r.inScope(rel):
			// Another language's file (generate --lang go in a tree that
			// also holds python/): still dshgen's, not this run's business.
			newManifest[rel] = old[rel]
		case old[rel] != "" && sum(b) == old[rel]:
			p.removes = append(p.removes, removal{rel, sum(b)})
			p.res.Stale = append(p.res.Stale, r.display(rel))
		case old[rel] != "":
			// dshgen wrote it, the user edited it: theirs now.
			p.res.Kept = append(p.res.Kept, r.display(rel))
		case ir.IsGenerated(b) || oldTemp(rel):
			// Not in a manifest (a tree of a dshgen before manifests): the
			// generated header, or that writer's temporary file.
			p.removes = append(p.removes, removal{rel, sum(b)})
			p.res.Stale = append(p.res.Stale, r.display(rel))
		}
	}
	if !r.NoManifest {
		mf := formatManifest(newManifest)
		cur, _ := os.ReadFile(filepath.Join(r.abs, filepath.FromSlash(manifestRel)))
		if !haveManifest {
			cur = nil
		}
		if !bytes.Equal(cur, mf) {
			p.puts = append(p.puts, put{manifestRel, ir.File{Path: manifestRel, Data: mf}})
			p.res.Changed = append(p.res.Changed, Change{Path: r.display(manifestRel), Rel: manifestRel, Old: cur, New: mf})
		}
	}
	return p, errs
}

func manifestWhy(r *root, have bool) string {
	if have {
		return "not in " + r.display(manifestRel)
	}
	return "no " + r.display(manifestRel)
}

// oldTemp reports a temporary file of the writer before this package
// (".dshgen-" and digits, left in place when that writer was killed).
func oldTemp(rel string) bool {
	base := path.Base(rel)
	digits := strings.TrimPrefix(base, ".dshgen-")
	if digits == base || digits == "" {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

// headerCandidates walks scopes of a root that no manifest covers for files
// that may be dshgen's: every regular file not generated now, outside the
// directories other tools own (ignoredDir). The caller keeps those with the
// generated header.
func (r *root) headerCandidates(scopes []string, generated map[string]bool) []string {
	if !r.exists {
		return nil
	}
	var out []string
	for _, s := range scopes {
		start := filepath.Join(r.abs, filepath.FromSlash(s))
		filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(r.abs, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == stateDir || (p != start && ignoredDir(d.Name())) {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && !generated[rel] {
				out = append(out, rel)
			}
			return nil
		})
	}
	return out
}

// IgnoredPath reports whether path p (in an output tree) lies in a
// directory that holds no generated bindings: one that other tools create
// (ignoredDir) or dshgen's own state directory (.dshgen, the manifest). A
// test that walks a generated tree skips these.
func IgnoredPath(p string) bool {
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == stateDir || ignoredDir(part) {
			return true
		}
	}
	return false
}

// ignoredDir reports directories that tools other than dshgen create in an
// output tree (installed packages, caches, build output): dshgen never
// looks inside them for stale files. tsc copies the generated header into
// dist/*.js, so without this a build's output would look generated.
func ignoredDir(name string) bool {
	switch name {
	case "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "dist", "build", ".venv", ".git":
		return true
	}
	return strings.HasSuffix(name, ".egg-info")
}

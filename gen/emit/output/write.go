package output

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// journal is the commit record of one switch: written into the first
// changed root's state directory as journal-ID, it makes the switch
// happen. It lists, per root, the staged files to rename in and the stale
// files to remove.
type journal struct {
	ID    string        `json:"id"`
	Roots []journalRoot `json:"roots"`
}

type journalRoot struct {
	Dir    string    `json:"dir"` // absolute
	Put    []string  `json:"put"`
	Remove []removal `json:"remove"`
}

// Names in a root's state directory while a switch is under way.
func stageName(id string) string   { return "stage-" + id }
func primaryName(id string) string { return "stage-" + id + ".primary" }
func journalName(id string) string { return "journal-" + id }

func statePath(abs string, name ...string) string {
	return filepath.Join(append([]string{abs, stateDir}, name...)...)
}

// Write puts every target's files in place as one transaction (see the
// package doc and README.md): on any error before the commit nothing under
// any target has changed; after it, the switch completes here or, after a
// crash, in the next Write or Recover on any of the targets.
func Write(targets []Target) (*Result, error) {
	roots, err := resolveAll(targets)
	if err != nil {
		return nil, err
	}
	var created []string
	undoCreate := func() {
		for i := len(created) - 1; i >= 0; i-- {
			os.Remove(created[i])
		}
	}
	for _, r := range roots {
		if !r.exists {
			dirs, err := mkdirRecord(r.abs)
			created = append(created, dirs...)
			if err != nil {
				undoCreate()
				return nil, fmt.Errorf("%s: %w", r.Dir, err)
			}
			r.exists = true
		}
	}
	abs := make([]string, len(roots))
	for i, r := range roots {
		abs[i] = r.abs
	}
	unlock, err := lockRoots(abs)
	if err != nil {
		undoCreate()
		return nil, err
	}
	defer unlock()
	res := &Result{}
	for _, a := range abs {
		lines, err := recoverRoot(a)
		res.Recovered = append(res.Recovered, lines...)
		if err != nil {
			return res, err
		}
	}
	var plans []*plan
	var errs []error
	for _, r := range roots {
		p, perrs := makePlan(r)
		errs = append(errs, perrs...)
		if p != nil {
			errs = append(errs, p.writable()...)
			plans = append(plans, p)
		}
	}
	if len(errs) > 0 {
		undoCreate()
		return res, errors.Join(errs...)
	}
	for _, p := range plans {
		res.Targets = append(res.Targets, p.res)
	}
	var work []*plan
	for _, p := range plans {
		if len(p.puts) > 0 || len(p.removes) > 0 {
			work = append(work, p)
		}
	}
	if len(work) == 0 {
		return res, nil
	}
	j, err := stage(work)
	if err != nil {
		for _, p := range work {
			discard(p.r.abs, j.ID)
		}
		return res, fmt.Errorf("staging the generated files: %w (nothing was changed)", err)
	}
	if err := commit(work[0].r.abs, j); err != nil {
		for _, p := range work {
			discard(p.r.abs, j.ID)
		}
		return res, fmt.Errorf("committing the switch: %w (nothing was changed)", err)
	}
	if err := rollForward(work[0].r.abs, j); err != nil {
		return res, fmt.Errorf("switching the generated files in: %w; the switch is recorded in %s and the next dshgen generate on %s finishes it", err, statePath(work[0].r.abs, journalName(j.ID)), work[0].r.Dir)
	}
	return res, nil
}

// Recover finishes or discards what an interrupted Write left under the
// given directories (what every Write does first), and returns one line per
// interrupted run it dealt with. Directories that do not exist are skipped.
func Recover(dirs ...string) ([]string, error) {
	var abs []string
	for _, d := range dirs {
		r, err := resolve(Target{Dir: d})
		if err != nil {
			return nil, err
		}
		if r.exists {
			abs = append(abs, r.abs)
		}
	}
	unlock, err := lockRoots(abs)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []string
	for _, a := range abs {
		lines, err := recoverRoot(a)
		out = append(out, lines...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// Check plans every target without writing and returns what a Write would
// change (Changed, Stale, Kept), and whether an interrupted run left the
// tree mid-switch. Conflicts a Write would refuse are errors.
func Check(targets []Target) (*Result, error) {
	roots, err := resolveAll(targets)
	if err != nil {
		return nil, err
	}
	var abs []string
	for _, r := range roots {
		if r.exists {
			abs = append(abs, r.abs)
		}
	}
	unlock, err := lockShared(abs)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res := &Result{}
	var errs []error
	for _, r := range roots {
		p, perrs := makePlan(r)
		errs = append(errs, perrs...)
		if p == nil {
			continue
		}
		if r.exists {
			for _, tx := range scanState(r.abs) {
				if _, err := os.Stat(statePath(tx.primary, journalName(tx.id))); err == nil {
					p.res.Interrupted = statePath(tx.primary, journalName(tx.id))
				} else {
					p.res.Leftover = true
				}
			}
		}
		res.Targets = append(res.Targets, p.res)
	}
	return res, errors.Join(errs...)
}

// mkdirRecord creates abs and its missing parents and returns the
// directories it created, outermost first.
func mkdirRecord(abs string) ([]string, error) {
	var missing []string
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || filepath.Dir(p) == p {
			break
		}
		missing = append([]string{p}, missing...)
	}
	var created []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, err
		}
		created = append(created, d)
	}
	return created, nil
}

// writable checks that every directory a switch renames into or removes
// from can be written, so the switch does not stop half-way on a
// read-only directory.
func (p *plan) writable() []error {
	dirs := map[string]bool{"": true}
	for _, u := range p.puts {
		dirs[path.Dir(u.rel)] = true
	}
	for _, r := range p.removes {
		dirs[path.Dir(r.Rel)] = true
	}
	var errs []error
	for d := range dirs {
		// The nearest existing directory is where a missing one is created.
		for ; d != "." && d != ""; d = path.Dir(d) {
			if _, err := os.Lstat(filepath.Join(p.r.abs, filepath.FromSlash(d))); err == nil {
				break
			}
		}
		if d == "." {
			d = ""
		}
		if err := canWrite(filepath.Join(p.r.abs, filepath.FromSlash(d))); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.r.display(d), err))
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// newID returns a random transaction id.
func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// stage writes every changed file of every plan into its root's staging
// directory and syncs them, and returns the journal that will commit them.
func stage(work []*plan) (*journal, error) {
	j := &journal{ID: newID()}
	primary := work[0].r.abs
	for i, p := range work {
		jr := journalRoot{Dir: p.r.abs, Put: []string{}, Remove: p.removes}
		if jr.Remove == nil {
			jr.Remove = []removal{}
		}
		sd := statePath(p.r.abs)
		step("create " + sd)
		if err := os.Mkdir(sd, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return j, err
		}
		if i > 0 {
			// A secondary root names the root whose journal commits it.
			if err := writeSynced(statePath(p.r.abs, primaryName(j.ID)), []byte(primary+"\n")); err != nil {
				return j, err
			}
		}
		stageDir := statePath(p.r.abs, stageName(j.ID))
		if err := os.Mkdir(stageDir, 0o755); err != nil {
			return j, err
		}
		dirs := map[string]bool{stageDir: true}
		for _, u := range p.puts {
			dst := filepath.Join(stageDir, filepath.FromSlash(u.rel))
			for d := filepath.Dir(dst); d != stageDir && !dirs[d]; d = filepath.Dir(d) {
				dirs[d] = true
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return j, err
			}
			step("stage " + u.rel)
			if err := writeFileSynced(dst, u.file); err != nil {
				return j, err
			}
			jr.Put = append(jr.Put, u.rel)
		}
		for d := range dirs {
			if err := syncDir(d); err != nil {
				return j, err
			}
		}
		if err := syncDir(sd); err != nil {
			return j, err
		}
		if err := syncDir(p.r.abs); err != nil {
			return j, err
		}
		j.Roots = append(j.Roots, jr)
	}
	return j, nil
}

// commit makes the switch happen: the journal is written beside the
// staging directory and renamed into place (the one atomic step), then the
// directory is synced so the rename is on disk.
func commit(primary string, j *journal) error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(primary, journalName(j.ID)+".tmp")
	step("write journal")
	if err := writeSynced(tmp, append(b, '\n')); err != nil {
		os.Remove(tmp)
		return err
	}
	step("commit")
	if err := os.Rename(tmp, statePath(primary, journalName(j.ID))); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(statePath(primary))
}

// rollForward carries out a committed journal; every step can be repeated,
// so a crash during it is repaired by running it again. It renames each
// staged file that is still staged into place, removes each stale file that
// still has the bytes it was planned with (and the directories that leaves
// empty), syncs the directories it changed, then removes the staging
// directories and, last, the journal.
func rollForward(primary string, j *journal) error {
	for _, jr := range j.Roots {
		if _, err := os.Stat(jr.Dir); errors.Is(err, fs.ErrNotExist) {
			continue // the user removed the whole root since
		}
		r := &root{Target: Target{Dir: jr.Dir}, abs: jr.Dir, exists: true}
		r.display = func(rel string) string { return filepath.Join(jr.Dir, filepath.FromSlash(rel)) }
		w := &walker{r: r, dirs: map[string]error{}}
		stageDir := statePath(jr.Dir, stageName(j.ID))
		touched := map[string]bool{}
		for _, rel := range jr.Put {
			src := filepath.Join(stageDir, filepath.FromSlash(rel))
			if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
				continue // switched in before a crash
			}
			dir := path.Dir(rel)
			if err := w.dirOK(dir); err != nil {
				return err
			}
			dst := filepath.Join(jr.Dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			step("put " + rel)
			if err := os.Rename(src, dst); err != nil {
				return err
			}
			touched[filepath.Dir(dst)] = true
		}
		for _, rm := range jr.Remove {
			if w.dirOK(path.Dir(rm.Rel)) != nil || w.kind(rm.Rel, false) != nil {
				continue
			}
			p := filepath.Join(jr.Dir, filepath.FromSlash(rm.Rel))
			b, err := os.ReadFile(p)
			if err != nil || sum(b) != rm.SHA256 {
				continue // removed before a crash, or not the planned bytes
			}
			step("remove " + rm.Rel)
			if err := os.Remove(p); err != nil {
				return err
			}
			// Directories the removal leaves empty go too (os.Remove does
			// not remove a directory that holds anything).
			d := filepath.Dir(p)
			for d != jr.Dir && os.Remove(d) == nil {
				d = filepath.Dir(d)
			}
			touched[d] = true
		}
		dirs := make([]string, 0, len(touched))
		for d := range touched {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		for _, d := range dirs {
			// A directory a later removal left empty is gone: its parent is
			// in touched too.
			if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	for _, jr := range j.Roots {
		step("remove staging under " + jr.Dir)
		if err := os.RemoveAll(statePath(jr.Dir, stageName(j.ID))); err != nil {
			return err
		}
		if err := os.Remove(statePath(jr.Dir, primaryName(j.ID))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	step("remove journal")
	if err := os.Remove(statePath(primary, journalName(j.ID))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// A tree without a manifest (Target.NoManifest) keeps no state
	// directory: os.Remove removes it only when it is empty.
	for _, jr := range j.Roots {
		os.Remove(statePath(jr.Dir))
	}
	if err := syncDir(statePath(primary)); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(primary)
}

// discard removes what an uncommitted switch staged under root abs.
func discard(abs, id string) {
	os.RemoveAll(statePath(abs, stageName(id)))
	os.Remove(statePath(abs, primaryName(id)))
	os.Remove(statePath(abs, journalName(id)+".tmp"))
}

// pendingTx is a switch an earlier run left under a root: its id and the
// root whose journal commits it.
type pendingTx struct{ id, primary string }

// scanState lists the switches left under root abs, by id.
func scanState(abs string) []pendingTx {
	ents, err := os.ReadDir(statePath(abs))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []pendingTx
	for _, e := range ents {
		name := e.Name()
		var id string
		switch {
		case strings.HasPrefix(name, "journal-"):
			id = strings.TrimSuffix(strings.TrimPrefix(name, "journal-"), ".tmp")
		case strings.HasPrefix(name, "stage-"):
			id = strings.TrimSuffix(strings.TrimPrefix(name, "stage-"), ".primary")
		default:
			continue
		}
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		primary := abs
		if b, err := os.ReadFile(statePath(abs, primaryName(id))); err == nil {
			primary = strings.TrimSpace(string(b))
		}
		out = append(out, pendingTx{id, primary})
	}
	return out
}

// readJournal returns the committed journal of tx, or nil when there is
// none (the switch never committed, or it finished).
func readJournal(tx pendingTx) (*journal, error) {
	p := statePath(tx.primary, journalName(tx.id))
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil || j.ID != tx.id {
		return nil, fmt.Errorf("%s: unreadable journal of an interrupted run (%v); remove %s by hand after checking the files it lists", p, err, p)
	}
	return &j, nil
}

// referencedRoots lists the roots that switches pending under abs touch
// (all must be locked before recovering them).
func referencedRoots(abs string) []string {
	var out []string
	for _, tx := range scanState(abs) {
		out = append(out, tx.primary)
		if j, err := readJournal(tx); err == nil && j != nil {
			for _, jr := range j.Roots {
				out = append(out, jr.Dir)
			}
		}
	}
	return out
}

// recoverRoot finishes (committed) or discards (uncommitted) every switch
// left under root abs. The caller holds the locks of every root involved.
func recoverRoot(abs string) ([]string, error) {
	var out []string
	for _, tx := range scanState(abs) {
		j, err := readJournal(tx)
		if err != nil {
			return out, err
		}
		if j == nil {
			step("discard staging " + tx.id)
			discard(abs, tx.id)
			out = append(out, fmt.Sprintf("removed the staged files of an interrupted run under %s (it had not switched anything in)", abs))
			continue
		}
		n := 0
		for _, jr := range j.Roots {
			n += len(jr.Put) + len(jr.Remove)
		}
		if err := rollForward(tx.primary, j); err != nil {
			return out, fmt.Errorf("finishing the switch of an interrupted run (%s): %w", statePath(tx.primary, journalName(tx.id)), err)
		}
		out = append(out, fmt.Sprintf("finished the switch of an interrupted run under %s (%d files)", abs, n))
	}
	return out, nil
}

// writeSynced creates path (which must not exist) with data and syncs it.
func writeSynced(p string, data []byte) error {
	return writeFileSynced(p, ir.File{Data: data})
}

// writeFileSynced is writeSynced of a generated file's bytes, copied from
// its spool when it has one.
func writeFileSynced(p string, src ir.File) error {
	r, err := src.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir syncs a directory, so the renames and removals in it are on disk.
func syncDir(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

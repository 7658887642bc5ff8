//go:build unix

package output

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"syscall"
)

// lockRoots takes an exclusive flock(2) on every root directory (sorted, so
// two runs never wait on each other crosswise), together with every root
// that a switch left pending under them involves, and returns the function
// that releases them. The kernel releases the locks of a process that dies,
// so a crashed run never leaves a directory locked.
func lockRoots(abs []string) (func(), error) {
	set := map[string]bool{}
	for _, a := range abs {
		set[a] = true
	}
	for range 4 {
		unlock, err := lockSet(set, syscall.LOCK_EX)
		if err != nil {
			return nil, err
		}
		grown := false
		for a := range set {
			for _, r := range referencedRoots(a) {
				if _, err := os.Stat(r); err == nil && !set[r] {
					set[r] = true
					grown = true
				}
			}
		}
		if !grown {
			return unlock, nil
		}
		unlock()
	}
	return nil, errors.New("interrupted runs left switches that name ever more output directories; remove their .dshgen/stage-* directories by hand")
}

// lockShared takes a shared lock on every root: a drift check waits for a
// running generate to finish its switch instead of reading it half-done.
func lockShared(abs []string) (func(), error) {
	set := map[string]bool{}
	for _, a := range abs {
		set[a] = true
	}
	return lockSet(set, syscall.LOCK_SH)
}

func lockSet(set map[string]bool, how int) (func(), error) {
	dirs := make([]string, 0, len(set))
	for d := range set {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var held []*os.File
	unlock := func() {
		for _, f := range held {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
	}
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			unlock()
			return nil, err
		}
		fd := int(f.Fd())
		err = flock(fd, how|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			fmt.Fprintf(os.Stderr, "dshgen: waiting for another dshgen run on %s to finish\n", d)
			err = flock(fd, how)
		}
		if err != nil {
			f.Close()
			unlock()
			return nil, fmt.Errorf("locking %s: %w", d, err)
		}
		held = append(held, f)
	}
	return unlock, nil
}

func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// canWrite reports whether the process may create and remove entries in
// directory p.
func canWrite(p string) error {
	if err := syscall.Access(p, 2 /* W_OK */); err != nil {
		return fmt.Errorf("cannot write there: %w", err)
	}
	return nil
}

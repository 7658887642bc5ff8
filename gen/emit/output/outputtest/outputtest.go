// Package outputtest has the tree snapshots the output writer's tests (and
// the CLI's crash tests) compare trees with.
package outputtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Snapshot maps every entry under dir, by slash-separated relative path,
// to what a reader sees there: a regular file's bytes, "-> TARGET" for a
// symbolic link, the type for any other non-directory, and "" for an empty
// directory (listed with a trailing slash). Links are not followed.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			m[rel] = "-> " + to
		case d.IsDir():
			if ents, _ := os.ReadDir(p); len(ents) == 0 && p != dir {
				m[rel+"/"] = ""
			}
		case !d.Type().IsRegular():
			m[rel] = d.Type().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Diff lists, sorted, the paths missing from b ("-p"), added in b ("+p")
// and different ("~p"); "" when the snapshots are equal.
func Diff(a, b map[string]string) string {
	var d []string
	for p, v := range a {
		if w, ok := b[p]; !ok {
			d = append(d, "-"+p)
		} else if w != v {
			d = append(d, "~"+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			d = append(d, "+"+p)
		}
	}
	sort.Strings(d)
	return strings.Join(d, " ")
}

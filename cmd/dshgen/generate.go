package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"
	"golang.org/x/mod/module"

	"github.com/dshgen/dshgen/gen/emit"
	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/conformance"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// defaultVectors is where the repository keeps the shipped schema's
// conformance vectors.
const defaultVectors = "testdata/conformance"

// version is dshgen's version; release builds set it with -ldflags.
var version = "0.1.0"

// emitters are the target languages, by --lang name, in output order.
var emitters = emit.All

// sequentialDecls is the number of declarations (ir.Model.Decls) above
// which generateAll runs the emitters one after another: each holds a
// working copy of the bindings' text and views of about 2 B per schema byte
// while it runs (gen/emit/BENCH.md), so three at once would triple the
// peak for a large schema. The shipped revisions have 238 (0.0.1) and 315
// (0.2.1) declarations; a 20-times copy of 0.0.1 is above the threshold.
const sequentialDecls = 4096

// generateAll runs the selected emitters and returns every file, sorted.
// With o.Spool, each emitter's files are moved into it as soon as the
// emitter returns (those it did not print there itself), so that the
// bindings are not all in memory at once.
func generateAll(m *ir.Model, langs []string, o ir.Options) ([]ir.File, error) {
	want := map[string]bool{}
	for _, l := range langs {
		want[strings.TrimSpace(l)] = true
	}
	known := map[string]bool{}
	for _, e := range emitters {
		known[e.Lang] = true
	}
	for l := range want {
		if !known[l] && l != "all" {
			return nil, fmt.Errorf("unknown --lang %q (known: %s)", l, strings.Join(langNames(), ", "))
		}
	}
	// The emitters only read the model: run them side by side, or, for a
	// large model, one after another, so that only one emitter's working
	// memory is live at a time.
	results := make([][]ir.File, len(emitters))
	errs := make([]error, len(emitters))
	var wg sync.WaitGroup
	for i, e := range emitters {
		if !want[e.Lang] && !want["all"] {
			continue
		}
		run := func() {
			results[i], errs[i] = e.Emit(m, o)
			for k, f := range results[i] {
				if o.Spool == nil || errs[i] != nil {
					break
				}
				results[i][k], errs[i] = o.Spool.Put(f)
			}
		}
		if len(m.Decls) > sequentialDecls {
			run()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			run()
		}()
	}
	wg.Wait()
	var files []ir.File
	for i, e := range emitters {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s emitter: %w", e.Lang, errs[i])
		}
		files = append(files, results[i]...)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// checkPackage refuses a --package name that one of the languages langs
// selects ("all" or --lang names; unknown ones are generateAll's to
// report) cannot take, before anything is loaded or written: which
// language rejects it, why, and a name that works (ir.CheckPackage).
func checkPackage(pkg string, langs []string) error {
	var ids []ir.Lang
	for _, e := range emitters {
		for _, l := range langs {
			if l = strings.TrimSpace(l); l == e.Lang || l == "all" {
				ids = append(ids, e.ID)
				break
			}
		}
	}
	var pe *ir.PackageError
	if err := ir.CheckPackage(pkg, ids); errors.As(err, &pe) {
		return usageErr(fmt.Errorf("--package %q: %s; try --package %s", pkg, pe.Reasons(), pe.Suggest))
	}
	return nil
}

func langNames() []string {
	var out []string
	for _, e := range emitters {
		out = append(out, e.Lang)
	}
	return out
}

func init() {
	var outDir, pkg, vectorsDir, goModule string
	var src schemaFlags
	var langs []string
	var check bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write the Go, Python and TypeScript bindings of a schema into the output directory",
		Long: `generate loads the schema (default: the shipped protocol schema), builds the
intermediate model and writes every selected language's bindings under --out
(and, for the shipped schema in the repository or with --vectors, the
conformance vectors) as one transaction: every target path is checked first
and any problem leaves every directory as it was; the files are staged
inside each directory and switched in with renames, so a crash leaves the
old files or, once the next run finishes the switch, the new ones.

Only files dshgen wrote are replaced or removed: those listed in
DIR/.dshgen/manifest (written by every run) or, in a tree no manifest
covers yet, those carrying dshgen's generated header. A file of
yours at a generated path stops the run; a file of yours beside the
generated ones is left alone; a generated file no longer generated is
removed, and generate says so. A symbolic link inside the output directory
is never followed. Concurrent runs into one directory take turns.

With --check nothing is written: the bindings are generated in memory and
compared with the files under --out; drift prints a unified diff and the
command that fixes it, and exits 1.

Which schema: without --revision and --schema, every shipped revision, each
into its directory under --out (the repository keeps both: out/{go,python,ts}
is 0.0.1, out/0.2.1/{go,python,ts} is 0.2.1, and --check checks both);
--revision NAME one of them; --schema FILE any schema. The shipped revisions:
` + revisionHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := src.check(); err != nil {
				return usageErr(err)
			}
			if err := checkPackage(pkg, langs); err != nil {
				return err
			}
			if goModule != "" {
				if err := module.CheckImportPath(goModule); err != nil {
					return usageErr(fmt.Errorf("--go-module: %w", err))
				}
			}
			o := ir.Options{Package: pkg, Version: version, GoModule: goModule}
			jobs, err := generateJobs(cmd, &src, outDir, vectorsDir)
			if err != nil {
				return usageErr(err)
			}
			// One target per output root: the revisions of the repository
			// layout share "out" (0.2.1's files under 0.2.1/), so that one
			// transaction and one manifest cover them.
			if !check {
				// Written files go through a spool on disk: --check diffs
				// the bytes in memory.
				o.Spool = ir.NewSpool()
				defer o.Spool.Close()
			}
			var targets []output.Target
			var models []*ir.Model
			root := map[string]int{}
			for _, j := range jobs {
				// The vectors read the schema documents; the bindings are
				// printed from the IR alone, so the documents go first.
				var vectors []ir.File
				if j.vectors != "" {
					set, err := conformance.Generate(j.m)
					if err != nil {
						return usageErr(fmt.Errorf("conformance vectors: %w", err))
					}
					vectors = set.Files()
				}
				j.m.DropSource()
				// The documents' tree was the larger half of the live
				// heap at the end of the IR build (770× shipped schema:
				// ~0.5 of ~0.9 GB); collecting it now sets the collector's
				// next goal from the IR alone instead of letting the heap
				// grow to twice tree and IR before the next cycle.
				runtime.GC()
				files, err := generateAll(j.m, langs, o)
				if err != nil {
					return usageErr(err)
				}
				models = append(models, j.m)
				ti, ok := root[j.out]
				if !ok {
					ti = len(targets)
					root[j.out] = ti
					targets = append(targets, output.Target{Dir: j.out, Scopes: []string{}})
				}
				t := &targets[ti]
				seen := map[string]bool{}
				for _, f := range files {
					first := strings.SplitN(f.Path, "/", 2)[0]
					if j.prefix != "" {
						f.Path = j.prefix + "/" + f.Path
						first = j.prefix + "/" + first
					}
					if !seen[first] {
						seen[first] = true
						t.Scopes = append(t.Scopes, first)
					}
					t.Files = append(t.Files, f)
				}
				if j.vectors != "" {
					// The vectors directory also holds the drivers: the whole
					// directory is in scope, but only listed files are dshgen's.
					targets = append(targets, output.Target{Dir: j.vectors, Files: vectors, Scopes: []string{""}})
				}
			}
			if check {
				res, err := output.Check(targets)
				if err != nil {
					return usageErr(err)
				}
				return reportDrift(cmd, res)
			}
			res, err := output.Write(targets)
			if res != nil {
				for _, line := range res.Recovered {
					fmt.Fprintln(cmd.ErrOrStderr(), "dshgen: "+line)
				}
			}
			if err != nil {
				return usageErr(err)
			}
			reportWrite(cmd, res, models)
			return nil
		},
	}
	addSchemaFlags(cmd, &src, "", "every shipped revision, each into its own directory")
	cmd.Flags().StringVar(&outDir, "out", "out", "output directory; without --revision and --schema the root of the layout (revision 0.0.1 in DIR/{go,python,ts}, 0.2.1 in DIR/0.2.1/{go,python,ts}); with --revision NAME default that revision's directory")
	cmd.Flags().StringVar(&pkg, "package", "dshproto", "package name in every language: the Go package, the Python import package and the npm package name (so, for all three, lower case ASCII letters, digits and _, starting with a letter, not a keyword)")
	choicesFlag(cmd, &langs, "lang", []string{"all"}, append(langNames(), "all"), "languages to generate: "+strings.Join(langNames(), ",")+" or all")
	cmd.Flags().BoolVar(&check, "check", false, "do not write; exit 1 with a diff when the output directory is stale")
	cmd.Flags().StringVar(&vectorsDir, "vectors", "", "also write the conformance vectors (valid.log, invalid.jsonl) into this directory (without --revision: revision 0.0.1's; default for a shipped revision: its directory in the repository, "+defaultVectors+" for 0.0.1 and "+defaultVectors+"-0.2.1 for 0.2.1, when it exists)")
	cmd.Flags().StringVar(&goModule, "go-module", "", "also write go/<package>/go.mod declaring this module path (e.g. example.com/foo/dshproto), so the Go package builds outside this repository's module")
	rootCmd.AddCommand(cmd)

	rootCmd.Version = version
	var revs []string
	for _, r := range schema.Revisions() {
		revs = append(revs, r.Name+" sha256 "+r.SHA256())
	}
	rootCmd.SetVersionTemplate("dshgen {{.Version}} (shipped revisions " + strings.Join(revs, ", ") + ")\n")
}

// layoutPrefix turns a path relative to the out root into a file prefix.
func layoutPrefix(rel string) string {
	if rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// generateJob is one schema's bindings and where they go.
type generateJob struct {
	m       *ir.Model
	out     string // the output root
	prefix  string // the bindings' directory under it ("" or "0.2.1")
	vectors string
}

// generateJobs resolves what generate writes: --schema FILE into --out;
// --revision NAME into --out (default the revision's directory); neither:
// every shipped revision under the --out root. A shipped revision without
// overlays also refreshes its conformance vectors when its directory
// exists (or into --vectors, for one schema).
func generateJobs(cmd *cobra.Command, src *schemaFlags, outDir, vectorsDir string) ([]generateJob, error) {
	vecFlag := cmd.Flags().Changed("vectors")
	repoVectors := func(r schema.Revision) string {
		if vecFlag || len(src.overlays) > 0 {
			return vectorsDir
		}
		if st, err := os.Stat(r.VectorsDir); err == nil && st.IsDir() {
			return r.VectorsDir
		}
		return ""
	}
	if src.schema != "" {
		// Without vectors nothing compiles the schema after the load: its
		// text can go before the IR is built (a large schema's memory).
		m, err := src.loadBindings(cmd.ErrOrStderr(), vectorsDir == "")
		if err != nil {
			return nil, err
		}
		return []generateJob{{m: m, out: outDir, vectors: vectorsDir}}, nil
	}
	if src.revision != "" {
		r := mustRevision(src.revision)
		m, err := loadRevision(r, src.overlays, src.allowRefDirs)
		if err != nil {
			return nil, err
		}
		if cmd.Flags().Changed("out") {
			return []generateJob{{m: m, out: outDir, vectors: repoVectors(r)}}, nil
		}
		rel, err := filepath.Rel("out", r.OutDir)
		if err != nil {
			return nil, err
		}
		return []generateJob{{m: m, out: "out", prefix: layoutPrefix(rel), vectors: repoVectors(r)}}, nil
	}
	var jobs []generateJob
	for i, r := range schema.Revisions() {
		m, err := loadRevision(r, src.overlays, src.allowRefDirs)
		if err != nil {
			return nil, fmt.Errorf("revision %s: %w", r.Name, err)
		}
		rel, err := filepath.Rel("out", r.OutDir)
		if err != nil {
			return nil, err
		}
		vec := repoVectors(r)
		if vecFlag && i > 0 {
			// --vectors names the default revision's directory; the
			// others' are written only where the repository keeps them.
			vec = ""
			if st, err := os.Stat(r.VectorsDir); err == nil && st.IsDir() && len(src.overlays) == 0 {
				vec = r.VectorsDir
			}
		}
		jobs = append(jobs, generateJob{m: m, out: outDir, prefix: layoutPrefix(rel), vectors: vec})
	}
	return jobs, nil
}

// reportWrite says what a generate run changed: counts per directory on
// one line, then every file it removed and every one it left in place.
func reportWrite(cmd *cobra.Command, res *output.Result, models []*ir.Model) {
	w := cmd.ErrOrStderr()
	var parts []string
	for _, t := range res.Targets {
		written := 0
		for _, c := range t.Changed {
			if c.Rel != output.ManifestPath {
				written++
			}
		}
		part := t.Dir + " up to date (" + validate.Count(t.Unchanged, "file") + ")"
		if written == 0 && len(t.Changed) > 0 {
			part = t.Dir + " up to date (" + validate.Count(t.Unchanged, "file") + "; wrote its manifest " + output.ManifestPath + ")"
		}
		if written > 0 {
			part = "wrote " + validate.Count(written, "file") + " under " + t.Dir
			if t.Unchanged > 0 {
				part += " (" + validate.Count(t.Unchanged, "other") + " up to date)"
			}
		}
		if len(t.Stale) > 0 {
			part += ", removed " + validate.Count(len(t.Stale), "stale file")
		}
		parts = append(parts, part)
	}
	var from []string
	for _, m := range models {
		name := m.File
		if r, ok := revisionOf(m); ok {
			name = "revision " + r.Name + " " + name
		}
		from = append(from, fmt.Sprintf("%s (sha256 %s)", name, m.SHA256[:12]))
	}
	fmt.Fprintf(w, "dshgen: %s, from %s\n", strings.Join(parts, "; "), strings.Join(from, " and "))
	for _, t := range res.Targets {
		for _, p := range t.Stale {
			fmt.Fprintf(w, "dshgen: removed %s (generated by an earlier run, no longer generated)\n", p)
		}
		for _, p := range t.Kept {
			fmt.Fprintf(w, "dshgen: left %s in place: an earlier run generated it, it is no longer generated, but it was edited since (remove it if it is not yours)\n", p)
		}
	}
}

// reportDrift prints what --check found: a unified diff per changed file,
// the stale files, and the exact command that regenerates.
func reportDrift(cmd *cobra.Command, res *output.Result) error {
	out, w := cmd.OutOrStdout(), cmd.ErrOrStderr()
	drift := 0
	var dirs []string
	for _, t := range res.Targets {
		n := 0
		for _, c := range t.Changed {
			p := filepath.ToSlash(c.Path)
			fmt.Fprint(out, udiff.Unified("a/"+p, "b/"+p, string(c.Old), string(c.New)))
			n++
		}
		for _, p := range t.Stale {
			fmt.Fprintf(out, "stale file not generated from the schema: %s\n", p)
			n++
		}
		for _, p := range t.Kept {
			fmt.Fprintf(w, "dshgen: note: %s was generated by an earlier run and edited since; it is no longer generated, generate leaves it in place\n", p)
		}
		if t.Interrupted != "" {
			fmt.Fprintf(out, "interrupted switch: a dshgen generate run under %s was killed after committing its switch (%s); the files may mix two generations until the next generate finishes it\n", t.Dir, t.Interrupted)
			n++
		}
		if n == 0 {
			fmt.Fprintf(w, "dshgen: %s is fresh (%s)\n", t.Dir, validate.Count(t.Unchanged, "file"))
			continue
		}
		drift += n
		dirs = append(dirs, t.Dir)
	}
	if drift == 0 {
		return nil
	}
	fmt.Fprintf(w, "dshgen: %s is stale (%s to write or remove); to fix, run:\n  %s\n",
		strings.Join(dirs, " and "), validate.Count(drift, "file"), invocation(cmd, "check"))
	return findings()
}

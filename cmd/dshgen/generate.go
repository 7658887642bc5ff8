package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// generateAll runs the selected emitters and returns every file, sorted.
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
	// The emitters only read the model: run them side by side.
	results := make([][]ir.File, len(emitters))
	errs := make([]error, len(emitters))
	var wg sync.WaitGroup
	for i, e := range emitters {
		if !want[e.Lang] && !want["all"] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = e.Emit(m, o)
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
command that fixes it, and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := src.load()
			if err != nil {
				return usageErr(err)
			}
			// Meta-validated: the library's compiled form is not needed
			// to print (the vectors compile what they use again).
			m.Source().ReleaseCompiled()
			if goModule != "" {
				if err := module.CheckImportPath(goModule); err != nil {
					return usageErr(fmt.Errorf("--go-module: %w", err))
				}
			}
			o := ir.Options{Package: pkg, Version: version, GoModule: goModule}
			files, err := generateAll(m, langs, o)
			if err != nil {
				return usageErr(err)
			}
			if !cmd.Flags().Changed("vectors") && src.schema == schema.Path && len(src.overlays) == 0 {
				// In the repository the shipped schema's vectors are kept
				// fresh with its bindings.
				if st, err := os.Stat(defaultVectors); err == nil && st.IsDir() {
					vectorsDir = defaultVectors
				}
			}
			targets := []output.Target{{Dir: outDir, Files: files}}
			if vectorsDir != "" {
				set, err := conformance.Generate(m)
				if err != nil {
					return usageErr(fmt.Errorf("conformance vectors: %w", err))
				}
				// The vectors directory also holds the drivers: the whole
				// directory is in scope, but only listed files are dshgen's.
				targets = append(targets, output.Target{Dir: vectorsDir, Files: set.Files(), Scopes: []string{""}})
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
			reportWrite(cmd, res, m)
			return nil
		},
	}
	addSchemaFlags(cmd.Flags(), &src)
	cmd.Flags().StringVar(&outDir, "out", "out", "output directory")
	cmd.Flags().StringVar(&pkg, "package", "dshproto", "package name in every language")
	choicesFlag(cmd, &langs, "lang", []string{"all"}, append(langNames(), "all"), "languages to generate: "+strings.Join(langNames(), ",")+" or all")
	cmd.Flags().BoolVar(&check, "check", false, "do not write; exit 1 with a diff when the output directory is stale")
	cmd.Flags().StringVar(&vectorsDir, "vectors", "", "also write the conformance vectors (valid.log, invalid.jsonl) into this directory (default for the shipped schema: "+defaultVectors+" when it exists)")
	cmd.Flags().StringVar(&goModule, "go-module", "", "also write go/<package>/go.mod declaring this module path (e.g. example.com/foo/dshproto), so the Go package builds outside this repository's module")
	rootCmd.AddCommand(cmd)

	rootCmd.Version = version
	rootCmd.SetVersionTemplate("dshgen {{.Version}} (shipped schema " + schema.FileName + " sha256 " + schema.SHA256() + ")\n")
}

// reportWrite says what a generate run changed: counts per directory on
// one line, then every file it removed and every one it left in place.
func reportWrite(cmd *cobra.Command, res *output.Result, m *ir.Model) {
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
	fmt.Fprintf(w, "dshgen: %s, from %s (sha256 %s)\n", strings.Join(parts, "; "), m.File, m.SHA256[:12])
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

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/emit"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/conformance"
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
	var outDir, pkg, vectorsDir string
	var src schemaFlags
	var langs []string
	var check bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write the Go, Python and TypeScript bindings of a schema into the output directory",
		Long: `generate loads the schema (default: the shipped protocol schema), builds the
intermediate model and writes every selected language's bindings under --out.
All files are written or none: a schema problem, or any emitter failing,
leaves the output directory as it was.

With --check nothing is written: the bindings are generated in memory and
compared with the files under --out; drift prints a unified diff and the
command that fixes it, and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := src.load()
			if err != nil {
				return usageErr(err)
			}
			o := ir.Options{Package: pkg, Version: version}
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
			var vectors []ir.File
			if vectorsDir != "" {
				set, err := conformance.Generate(m)
				if err != nil {
					return usageErr(fmt.Errorf("conformance vectors: %w", err))
				}
				vectors = set.Files()
			}
			if check {
				err := checkDrift(cmd, outDir, files, &src, langs)
				if vectorsDir != "" {
					if verr := checkDrift(cmd, vectorsDir, vectors, &src, langs); verr != nil {
						err = verr
					}
				}
				return err
			}
			if err := ir.WriteFiles(outDir, files, true); err != nil {
				return usageErr(fmt.Errorf("writing %s: %w", outDir, err))
			}
			if vectorsDir != "" {
				if err := ir.WriteFiles(vectorsDir, vectors, false); err != nil {
					return usageErr(fmt.Errorf("writing %s: %w", vectorsDir, err))
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "dshgen: wrote %d files under %s from %s (sha256 %s)\n", len(files), outDir, m.File, m.SHA256[:12])
			return nil
		},
	}
	addSchemaFlags(cmd.Flags(), &src)
	cmd.Flags().StringVar(&outDir, "out", "out", "output directory")
	cmd.Flags().StringVar(&pkg, "package", "dshproto", "package name in every language")
	cmd.Flags().StringSliceVar(&langs, "lang", []string{"all"}, "languages to generate: "+strings.Join(langNames(), ",")+" or all")
	cmd.Flags().BoolVar(&check, "check", false, "do not write; exit 1 with a diff when the output directory is stale")
	cmd.Flags().StringVar(&vectorsDir, "vectors", "", "also write the conformance vectors (valid.log, invalid.jsonl) into this directory (default for the shipped schema: "+defaultVectors+" when it exists)")
	rootCmd.AddCommand(cmd)

	rootCmd.Version = version
	rootCmd.SetVersionTemplate("dshgen {{.Version}} (shipped schema " + schema.FileName + " sha256 " + schema.SHA256() + ")\n")
}

// checkDrift compares files with what is under dir and reports drift.
func checkDrift(cmd *cobra.Command, dir string, files []ir.File, src *schemaFlags, langs []string) error {
	out := cmd.OutOrStdout()
	stale := 0
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		old, err := os.ReadFile(p)
		if err != nil {
			old = nil
		}
		if bytes.Equal(old, f.Data) {
			continue
		}
		stale++
		fmt.Fprint(out, udiff.Unified("a/"+filepath.ToSlash(p), "b/"+filepath.ToSlash(p), string(old), string(f.Data)))
	}
	for _, p := range ir.StaleFiles(dir, files) {
		stale++
		fmt.Fprintf(out, "stale file not generated from the schema: %s\n", p)
	}
	if stale == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "dshgen: %s is fresh (%d files)\n", dir, len(files))
		return nil
	}
	fix := "go run ./cmd/dshgen generate" + src.args()
	if dir != "out" {
		fix += " --out " + dir
	}
	if len(langs) != 1 || langs[0] != "all" {
		fix += " --lang " + strings.Join(langs, ",")
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "dshgen: %d generated file(s) under %s are stale; to fix, run:\n  %s\n", stale, dir, fix)
	return findings()
}

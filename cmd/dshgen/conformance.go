package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/wire/conformance"
	"github.com/dshgen/dshgen/gen/wire/corpus"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// driverDir is where the round-trip drivers live (relative to the
// repository root, where dshgen conformance runs).
const driverDir = "testdata/conformance/drivers"

func init() {
	var outDir, pkg string
	var src schemaFlags
	var langs []string
	cmd := &cobra.Command{
		Use:   "conformance [FILE...]",
		Short: "Round-trip frames through the Go, Python and TypeScript bindings and check the invalid vectors",
		Long: `conformance sends JSON-RPC frames through each language's round-trip
driver (testdata/conformance/drivers/<lang>): every frame the validator finds
valid must decode into that language's generated bindings by method and
encode back to the same JSON value (member order aside). Each mismatch is
reported with the language, the input line and the JSON pointer of the
first difference. It also checks that the validator reports each invalid
vector (testdata/conformance/invalid.jsonl) with its labelled rule.

FILE is NDJSON frames or an interleaved capture (as written by 'dshgen tap
--capture'). Without FILE: the generated vectors
(testdata/conformance/valid.log) and every fixture in ../shared/fixtures.
Stateful rules are not conformance's business: a frame that breaks only
those still has to round-trip.

Exit status: 0 all conform, 1 a mismatch or a missed invalid vector, 2
usage or setup error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := src.load()
			if err != nil {
				return usageErr(err)
			}
			v, err := validate.New(m, validate.Options{PromptOverlap: validate.Off})
			if err != nil {
				return usageErr(err)
			}
			inputs := args
			var invalid []conformance.Invalid
			if len(inputs) == 0 {
				inputs, err = defaultConformanceInputs()
				if err != nil {
					return usageErr(err)
				}
				if invalid, err = conformance.ReadInvalid(filepath.Join(defaultVectors, "invalid.jsonl")); err != nil {
					return usageErr(err)
				}
			}
			tmp, err := os.MkdirTemp("", "dshgen-conformance-")
			if err != nil {
				return usageErr(err)
			}
			defer os.RemoveAll(tmp)
			var drivers []conformance.Driver
			for _, l := range expandLangs(langs) {
				d, err := setupDriver(l, outDir, pkg, tmp)
				if err != nil {
					return usageErr(fmt.Errorf("%s driver: %w", l, err))
				}
				drivers = append(drivers, d)
			}
			rep, err := conformance.Run(context.Background(), v, inputs, drivers, invalid)
			if err != nil {
				return usageErr(err)
			}
			printReport(cmd.OutOrStdout(), rep, drivers)
			if rep.Failed() {
				repro := "go run ./cmd/dshgen conformance --lang " + strings.Join(expandLangs(langs), ",")
				repro += src.args()
				if outDir != "out" {
					repro += " --out " + outDir
				}
				if pkg != "dshproto" {
					repro += " --package " + pkg
				}
				if len(args) > 0 {
					repro += " " + strings.Join(args, " ")
				}
				fmt.Fprintln(cmd.ErrOrStderr(), "dshgen conformance: reproduce with: "+repro)
				return findings()
			}
			return nil
		},
	}
	addSchemaFlags(cmd.Flags(), &src)
	cmd.Flags().StringVar(&outDir, "out", "out", "directory holding the generated bindings (go/, python/, ts/)")
	cmd.Flags().StringVar(&pkg, "package", "dshproto", "package name the bindings were generated with")
	cmd.Flags().StringSliceVar(&langs, "lang", []string{"all"}, "languages: go, python, ts or all")
	rootCmd.AddCommand(cmd)
}

func expandLangs(langs []string) []string {
	var out []string
	for _, l := range langs {
		if l == "all" {
			return []string{"go", "python", "ts"}
		}
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// defaultConformanceInputs: the generated vectors and every fixture (the
// real captures as interleaved logs, so responses pair with requests).
func defaultConformanceInputs() ([]string, error) {
	inputs := []string{filepath.Join(defaultVectors, "valid.log")}
	fx := filepath.Join(corpus.SharedDir(), "fixtures")
	for _, pat := range []string{"real-captures/*/interleaved.log", "upstream-snapshots/*/notifications.expected.jsonl"} {
		m, err := filepath.Glob(filepath.Join(fx, pat))
		if err != nil {
			return nil, err
		}
		sort.Strings(m)
		inputs = append(inputs, m...)
	}
	if len(inputs) == 1 {
		return nil, fmt.Errorf("no fixtures under %s", fx)
	}
	return inputs, nil
}

// setupDriver prepares one language's driver against the bindings in out.
func setupDriver(lang, out, pkg, tmp string) (conformance.Driver, error) {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return conformance.Driver{}, err
	}
	switch lang {
	case "go":
		// A scratch module holding a copy of the generated package and the
		// driver, so any output directory (and package name) can be tested.
		mod := filepath.Join(tmp, "go")
		src, err := os.ReadFile(filepath.Join(driverDir, "go", "main.go"))
		if err != nil {
			return conformance.Driver{}, err
		}
		src = []byte(strings.Replace(string(src), `"github.com/dshgen/dshgen/out/go/dshproto"`, `"dshconformance/`+pkg+`"`, 1))
		files := map[string][]byte{"go.mod": []byte("module dshconformance\n\ngo 1.26\n"), "main.go": src}
		gen, err := filepath.Glob(filepath.Join(absOut, "go", pkg, "*.go"))
		if err != nil || len(gen) == 0 {
			return conformance.Driver{}, fmt.Errorf("no generated Go under %s", filepath.Join(out, "go", pkg))
		}
		for _, g := range gen {
			b, err := os.ReadFile(g)
			if err != nil {
				return conformance.Driver{}, err
			}
			files[filepath.Join(pkg, filepath.Base(g))] = b
		}
		for name, b := range files {
			p := filepath.Join(mod, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return conformance.Driver{}, err
			}
		}
		bin := filepath.Join(tmp, "go-driver")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = mod
		if outb, err := build.CombinedOutput(); err != nil {
			return conformance.Driver{}, fmt.Errorf("building: %v\n%s", err, outb)
		}
		return conformance.Driver{Lang: "go", Cmd: []string{bin}}, nil
	case "python":
		driver, err := filepath.Abs(filepath.Join(driverDir, "python", "driver.py"))
		if err != nil {
			return conformance.Driver{}, err
		}
		if _, err := os.Stat(driver); err != nil {
			return conformance.Driver{}, err
		}
		py := os.Getenv("DSHGEN_PYTHON")
		if py == "" {
			py = "python3"
		}
		return conformance.Driver{Lang: "python", Cmd: []string{py, driver, "--package", pkg}, Env: []string{"PYTHONPATH=" + filepath.Join(absOut, "python")}}, nil
	case "ts":
		driver, err := filepath.Abs(filepath.Join(driverDir, "ts", "driver.mjs"))
		if err != nil {
			return conformance.Driver{}, err
		}
		if _, err := os.Stat(driver); err != nil {
			return conformance.Driver{}, err
		}
		return conformance.Driver{Lang: "ts", Cmd: []string{"node", driver}, Env: []string{"DSHGEN_TS_OUT=" + filepath.Join(absOut, "ts")}}, nil
	}
	return conformance.Driver{}, fmt.Errorf("unknown language %q (go, python, ts)", lang)
}

func printReport(w io.Writer, rep *conformance.Report, drivers []conformance.Driver) {
	for _, m := range rep.Mismatches {
		at := ""
		if m.Pointer != "" {
			at = " at " + m.Pointer
		}
		fmt.Fprintf(w, "%s:%d: %s: %s%s\n", m.File, m.Line, m.Lang, m.What, at)
	}
	for _, x := range rep.InvalidMissed {
		fmt.Fprintf(w, "invalid vector not caught: %s\n", x)
	}
	var per []string
	for _, d := range drivers {
		bad := 0
		for _, m := range rep.Mismatches {
			if m.Lang == d.Lang {
				bad += m.Frames
			}
		}
		per = append(per, fmt.Sprintf("%s %d/%d", d.Lang, rep.PerLang[d.Lang]-bad, rep.PerLang[d.Lang]))
	}
	fmt.Fprintf(w, "dshgen conformance: %d files, %d frames, %d valid; round-tripped: %s; invalid vectors caught: %d/%d\n",
		len(rep.Files), rep.Frames, rep.Checked, strings.Join(per, ", "), rep.InvalidChecked-len(rep.InvalidMissed), rep.InvalidChecked)
}

package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/emit/output"
	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/conformance"
	"github.com/dshgen/dshgen/gen/wire/corpus"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// repoTypeScript is where the repository's test-only npm packages put
// TypeScript (npm ci --prefix testdata/ts); used when dshgen runs at the
// repository root and DSHGEN_TYPESCRIPT is not set.
const repoTypeScript = "testdata/ts/node_modules/typescript"

func init() {
	var outDir, pkg, typeName string
	var src schemaFlags
	var langs []string
	cmd := &cobra.Command{
		Use:   "conformance [FILE...]",
		Short: "Round-trip frames through the Go, Python and TypeScript bindings and check the invalid vectors",
		Long: `conformance sends JSON-RPC frames through each language's round-trip
driver: every frame the validator finds valid must decode into that
language's bindings by method and encode back to the same JSON value
(member order aside; strings exactly, so a lone surrogate turned into
U+FFFD is a mismatch). Each mismatch is reported with the language, the
input line and the JSON pointer of the first difference; a frame a driver
cannot handle, or dies on, is reported at its own line with the reason and
the run goes on. It also checks that the validator reports each invalid
vector with its labelled rule.

The bindings are generated from --schema with --package into a scratch
directory (or, with --out, the ones already generated there are tested);
the drivers are built into dshgen, so this works from any directory and for
any protocol schema. Needs go (Go), python3 or $DSHGEN_PYTHON (Python), and
node 20+ with the typescript package (TypeScript): $DSHGEN_TYPESCRIPT, or
resolved from the working directory (npm install typescript), or, with
--out DIR, from the generated package (npm install in DIR/ts).

FILE is NDJSON frames or an interleaved capture (as written by 'dshgen tap
--capture'); with --type NAME, instances of the $defs (or definitions)
type NAME instead (one JSON document per FILE, pretty-printed is fine, or
NDJSON), e.g. MCP's official examples. Without FILE: the conformance vectors generated from the
schema (named valid.log, as 'dshgen generate --vectors DIR' writes them)
and the invalid vectors, plus, for the shipped schema, every fixture in
$DSHGEN_SHARED/fixtures, else in ../shared/fixtures beside the dshgen
checkout the working directory is in, when it is there. Stateful rules are not conformance's
business: a frame that breaks only those still has to round-trip. Frames
nesting deeper than 10000 levels are not held to it.

Which schema: --revision NAME or --schema FILE; the default is 0.0.1 (as for
validate). Without FILE, revision 0.0.1 also round-trips the shared real
captures, 0.2.1 the PyPI reference captures (testdata/pypi/captures) and its
evidence captures (schema/0.2.1/evidence/captures), when run at the
repository root. The shipped revisions:
` + revisionHelp() + `
Exit status: 0 all conform, 1 a mismatch or a missed invalid vector, 2
usage or setup error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPackage(pkg, langs); err != nil {
				return err
			}
			m, err := src.load(cmd.ErrOrStderr())
			if err != nil {
				return usageErr(err)
			}
			v, err := validate.New(m, validate.Options{PromptOverlap: validate.Off})
			if err != nil {
				return usageErr(err)
			}
			inputs, invalid, err := conformanceInputs(m, args)
			if err != nil {
				return usageErr(err)
			}
			if typeName != "" {
				if len(args) == 0 {
					return usageErr(fmt.Errorf("--type needs the FILEs holding its instances"))
				}
				names, err := bindingNames(m, typeName)
				if err != nil {
					return usageErr(err)
				}
				for i := range inputs {
					inputs[i].Type, inputs[i].TypeNames = typeName, names
				}
			}
			selected, err := expandLangs(langs)
			if err != nil {
				return usageErr(err)
			}
			tmp, err := os.MkdirTemp("", "dshgen-conformance-")
			if err != nil {
				return usageErr(err)
			}
			defer os.RemoveAll(tmp)
			b := conformance.Bindings{Dir: outDir, Package: pkg}
			if !cmd.Flags().Changed("out") {
				files, err := generateAll(m, selected, ir.Options{Package: pkg, Version: version})
				if err != nil {
					return usageErr(err)
				}
				b.Dir = filepath.Join(tmp, "bindings")
				if _, err := output.Write([]output.Target{{Dir: b.Dir, Files: files, NoManifest: true}}); err != nil {
					return usageErr(err)
				}
			}
			tools := conformance.Tools{Python: os.Getenv("DSHGEN_PYTHON"), TypeScript: os.Getenv("DSHGEN_TYPESCRIPT")}
			if tools.TypeScript == "" {
				if _, err := os.Stat(filepath.Join(repoTypeScript, "package.json")); err == nil {
					tools.TypeScript = repoTypeScript
				}
			}
			var drivers []conformance.Driver
			for _, l := range selected {
				d, err := conformance.Setup(l, b, filepath.Join(tmp, "driver-"+l), tools)
				if err != nil {
					return usageErr(fmt.Errorf("%s driver: %w", l, err))
				}
				drivers = append(drivers, d)
			}
			rep, err := conformance.Run(context.Background(), v, inputs, drivers, invalid)
			if err != nil {
				return usageErr(err)
			}
			if len(args) > 0 {
				// The user's own inputs: say which frames were not checked.
				for _, f := range rep.NotValid {
					fmt.Fprintf(cmd.OutOrStdout(), "%s:%d: not checked (not a valid frame): %s\n", f.File, f.Line, f.Why)
				}
			}
			printReport(cmd.OutOrStdout(), rep, drivers)
			if rep.Failed() {
				repro := "dshgen conformance --lang " + strings.Join(selected, ",")
				repro += src.args()
				if cmd.Flags().Changed("out") {
					repro += " --out " + outDir
				}
				if pkg != "dshproto" {
					repro += " --package " + pkg
				}
				if typeName != "" {
					repro += " --type " + typeName
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
	addSchemaFlags(cmd, &src, schema.Default, defaultRevisionWhy)
	cmd.Flags().StringVar(&outDir, "out", "", "test the bindings already generated in this directory (go/, python/, ts/ as 'dshgen generate --out' writes them) instead of generating them from --schema")
	cmd.Flags().StringVar(&typeName, "type", "", "round-trip each FILE as instances of the `NAME`d $defs (or definitions) type instead of frames: one JSON document (pretty-printed is fine) or NDJSON, one instance per line")
	cmd.Flags().StringVar(&pkg, "package", "dshproto", "package name the bindings are (or were) generated with")
	choicesFlag(cmd, &langs, "lang", []string{"all"}, append(langNames(), "all"), "languages: go, python, ts or all")
	rootCmd.AddCommand(cmd)
}

// bindingNames gives the $defs (or definitions) type name's name in each
// language's bindings, the name a driver looks the type up by.
func bindingNames(m *ir.Model, name string) (map[string]string, error) {
	var t *ir.Type
	for _, p := range []string{"#/$defs/", "#/definitions/"} {
		if t = m.TypeByPointer(p + name); t != nil {
			break
		}
	}
	if t == nil {
		return nil, fmt.Errorf("--type %s: the schema has no $defs/%s or definitions/%s", name, name, name)
	}
	return map[string]string{"go": t.Names.Of(ir.LangGo), "python": t.Names.Of(ir.LangPython), "ts": t.Names.Of(ir.LangTS)}, nil
}

func expandLangs(langs []string) ([]string, error) {
	var out []string
	for _, l := range langs {
		l = strings.TrimSpace(l)
		if l == "all" {
			return conformance.Langs, nil
		}
		known := false
		for _, k := range conformance.Langs {
			known = known || k == l
		}
		if !known {
			return nil, fmt.Errorf("unknown --lang %q (%s or all)", l, strings.Join(conformance.Langs, ", "))
		}
		out = append(out, l)
	}
	return out, nil
}

// conformanceInputs returns the files given, or the vectors generated from
// m (and, for the shipped schema, the shared fixtures: the real captures
// as interleaved logs, so responses pair with requests) and the invalid
// vectors.
func conformanceInputs(m *ir.Model, files []string) ([]conformance.Input, []conformance.Invalid, error) {
	var inputs []conformance.Input
	if len(files) > 0 {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			inputs = append(inputs, conformance.Input{Name: f, Data: data})
		}
		return inputs, nil, nil
	}
	set, err := conformance.Generate(m)
	if err != nil {
		return nil, nil, fmt.Errorf("conformance vectors: %w", err)
	}
	for _, f := range set.Files() {
		if f.Path == "valid.log" {
			inputs = append(inputs, conformance.Input{Name: f.Path, Data: f.Data})
		}
	}
	rev, _ := revisionOf(m)
	for _, pat := range revisionCaptures[rev.Name] {
		paths, err := filepath.Glob(pat)
		if err != nil {
			return nil, nil, err
		}
		sort.Strings(paths)
		for _, p := range paths {
			data, err := readMaybeGzip(p)
			if err != nil {
				return nil, nil, err
			}
			inputs = append(inputs, conformance.Input{Name: p, Data: data})
		}
	}
	return inputs, set.Invalid, nil
}

// revisionCaptures are the real traffic of each shipped revision that
// conformance round-trips by default (what is there: the shared fixtures
// beside the repository for 0.0.1, the PyPI reference captures and the
// schema's evidence for 0.2.1, paths from the repository root).
var revisionCaptures = map[string][]string{
	"0.0.1": {
		filepath.Join(corpus.SharedDir(), "fixtures", "real-captures/*/interleaved.log"),
		filepath.Join(corpus.SharedDir(), "fixtures", "upstream-snapshots/*/notifications.expected.jsonl"),
	},
	"0.2.1": {
		"testdata/pypi/captures/*/*.log.gz",
		"schema/0.2.1/evidence/captures/*.log",
	},
}

// readMaybeGzip reads a file, gunzipping a .gz one.
func readMaybeGzip(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(p, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		r = io.LimitReader(z, 1<<30)
	}
	return io.ReadAll(r)
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
	fmt.Fprintf(w, "dshgen conformance: %s, %s, %d valid; round-tripped: %s; invalid vectors caught: %d/%d\n",
		validate.Count(len(rep.Files), "file"), validate.Count(rep.Frames, "frame"), rep.Checked, strings.Join(per, ", "), rep.InvalidChecked-len(rep.InvalidMissed), rep.InvalidChecked)
}

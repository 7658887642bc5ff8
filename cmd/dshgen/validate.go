package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// stdinName names standard input in findings.
const stdinName = "<stdin>"

func init() {
	var (
		src           schemaFlags
		direction     string
		format        string
		maxFrameBytes int64
		snapshot      bool
		pol           policyFlags
		typeName      string
		fullCauses    bool
	)
	cmd := &cobra.Command{
		Use:   "validate [FILE...]",
		Short: "Check captured JSON-RPC frames (NDJSON or interleaved capture) against the schema",
		Long: `Validate checks each frame of each input against the protocol schema:
framing (UTF-8, one JSON object per LF-terminated line), the JSON-RPC 2.0
envelope, the method table (known method, right kind, right side), params,
results and errors (a union's branch is chosen by its tag, so a bad frame
gives one precise finding), request/response pairing, and the protocol's
stateful rules (initialize first, seq/turn/step numbering, tool results,
surfaceOp, subagents, one in-flight prompt per session).

An input is a file or - (standard input; also when no file is given). An
NDJSON input carries one direction (--direction), or both: by default
(auto) a file whose first frames come from both sides (methods of both
directions, or a response to a request in the file) is validated as a
mixed stream, each frame's side from the method table and id pairing,
else as the side of its first known method; the
interleaved capture format written by 'dshgen tap' and found in the real
captures ("DIR<TAB>ms<TAB>line") carries both and is recognized by its
content, so responses are paired with requests.

Findings are printed as file:line: severity rule: message (--format text),
or as json, junit or github workflow annotations, followed by a summary.
Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or
input error.

Which schema: --revision NAME picks a shipped revision, --schema FILE any
schema (not both). The shipped revisions:
` + revisionHelp() + `The default is 0.0.1: it is the revision of the npm runtime and the one
existing captures and CI jobs were made against, so their results do not
change; a stream of the other revision checked against it gets findings
that name the revision difference (and suggest --revision). The summary
says which revision the run checked against.

Findings a CI can live with: --rule ID=off|info|warning|error sets one
rule's severity; --baseline FILE accepts known findings (by rule, method,
union tag and JSON pointer; reported as baselined, they do not fail the
run; an entry matching nothing fails it as baseline.stale);
--write-baseline FILE writes one from this run. See
gen/wire/validate/RULES.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var dir ir.Direction
			both := false
			switch direction {
			case "auto", "":
			case string(ir.ClientToServer), string(ir.ServerToClient):
				dir = ir.Direction(direction)
			case "both":
				both = true
			}
			if maxFrameBytes <= 0 {
				return usageErr(fmt.Errorf("--max-frame-bytes must be positive"))
			}
			m, err := src.loadForValidation(cmd.ErrOrStderr())
			if err != nil {
				return usageErr(err)
			}
			opts, bw, err := pol.options(validate.Options{Snapshot: snapshot, FullCauses: fullCauses})
			if err != nil {
				return usageErr(err)
			}
			v, err := validate.New(m, opts)
			if err != nil {
				return usageErr(err)
			}
			hints := newRevisionHints(m, opts)
			if len(args) == 0 {
				args = []string{"-"}
			}
			if typeName != "" {
				if err := v.CheckType(typeName); err != nil {
					return usageErr(err)
				}
			}
			// Every input is opened before anything is printed: a file that
			// cannot be read ends the run (exit 2, each one named) without a
			// report that would look like a clean verdict.
			files := make([]*os.File, len(args))
			var openErrs []error
			for i, a := range args {
				if a == "-" {
					continue
				}
				f, err := os.Open(a)
				if err != nil {
					openErrs = append(openErrs, err)
					continue
				}
				defer f.Close()
				files[i] = f
			}
			if len(openErrs) > 0 {
				return usageErr(errors.Join(openErrs...))
			}
			// Findings are written as they are final (bounded memory on
			// any input; see validate.ReportWriter for each format).
			rw, err := validate.NewReportWriter(cmd.OutOrStdout(), format)
			if err != nil {
				return usageErr(err)
			}
			rw.SetAgainst(against(m))
			emit := func(f validate.Finding) {
				hints.annotate(&f)
				if bw != nil {
					bw.Add(f)
				}
				rw.Finding(f)
			}
			var inputErrs []error
			for i, a := range args {
				name := a
				var r io.Reader = files[i]
				if a == "-" {
					name, r = stdinName, cmd.InOrStdin()
				}
				in := validate.Input{Name: name, Direction: dir, Both: both, MaxFrameBytes: maxFrameBytes}
				rw.BeginStream(name)
				var res validate.Result
				if typeName != "" {
					res, err = v.ValidateValuesStream(r, typeName, in, emit)
				} else {
					res, err = v.ValidateStream(r, in, emit)
				}
				rw.EndStream(res.Frames, res.Capture)
				if err != nil {
					inputErrs = append(inputErrs, fmt.Errorf("%s: %w", name, err))
				}
			}
			if opts.Baseline != nil && len(inputErrs) == 0 {
				stale := opts.Baseline.Stale()
				if len(stale) > 0 {
					rw.BeginStream(opts.Baseline.File)
					for _, f := range stale {
						rw.Finding(f)
					}
					rw.EndStream(0, false)
				}
			}
			if err := rw.Close(); err != nil {
				return usageErr(err)
			}
			if err := pol.saveBaseline(bw); err != nil {
				return usageErr(err)
			}
			if len(inputErrs) > 0 {
				return usageErr(errors.Join(inputErrs...))
			}
			if rw.Summary().Errors > 0 {
				return findings()
			}
			return nil
		},
	}
	f := cmd.Flags()
	addSchemaFlags(cmd, &src, schema.Default, defaultRevisionWhy)
	choiceFlag(cmd, &direction, "direction", "auto", directionChoices, "side that wrote an NDJSON input: auto (a mixed file when its first frames come from both sides, else the side of the first known method), client-to-server, server-to-client, or both (a mixed file; responses paired within it); captures always carry both")
	choiceFlag(cmd, &format, "format", "text", validate.Formats, "output format: text, json, junit or github (workflow annotations)")
	f.Int64Var(&maxFrameBytes, "max-frame-bytes", frame.DefaultMaxFrameBytes, "longest frame read; a longer line is reported (frame.too-large) and skipped without being buffered")
	f.BoolVar(&snapshot, "snapshot", false, "validate the upstream's normalized snapshot fixtures as they are (no jsonrpc, {{placeholder}} strings, time 0, sessions merged under one placeholder id)")
	addPolicyFlags(cmd, &pol)
	f.StringVar(&typeName, "type", "", "validate each input as instances of the `NAME`d $defs (or definitions) type instead of as frames: one JSON document (pretty-printed is fine) or NDJSON, one instance per line")
	f.BoolVar(&fullCauses, "full-causes", false, "debug: report every leaf of the validation library's error tree, not only the chosen union branch")
	rootCmd.AddCommand(cmd)
}

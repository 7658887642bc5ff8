package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/wire/diff"
)

// diffCmd is `dshgen diff OLD NEW`: which changes between two schema
// revisions break which side of the wire, and which break generated code.
var diffCmd = &cobra.Command{
	Use:   "diff OLD NEW",
	Short: "Report what changed between two schema revisions and whom each change breaks",
	Long: `Compare two revisions of a protocol schema and list every change with its
JSON pointer in both files, its rule id and its category:

  wire-breaking-client-to-server   a client→server frame of one revision is rejected by the other's server
  wire-breaking-server-to-client   the same for server→client frames
  code-breaking                    code compiled against the generated bindings breaks
  wire-strict-receivers            only receivers that reject unknown tags/enum values/methods break
  compatible                       nobody breaks

Each side is a schema file, or REV:path for the file at a git revision of the
repository the current directory is in (HEAD~1:schema/dsh-sdk-protocol.schema.json);
files it $refs are read from the same revision. --old-overlay and
--new-overlay (repeatable) apply overlay files to one side each (an overlay
is read from the working tree, also for REV:path); --allow-ref-dir applies to
both sides. The rules are listed in gen/wire/diff/RULES.md.

Exit status: 1 when a change of the --fail-on category or worse is found
(wire: wire-breaking-*; code: also code-breaking and any change that breaks
generated code; strict: also wire-strict-receivers; none: never), 0 otherwise,
2 for usage or input errors (unreadable file, schema problems, git failure).`,
	Args: func(cmd *cobra.Command, args []string) error {
		if len(args) != 2 {
			return usageErr(fmt.Errorf("diff needs two schemas: OLD NEW (got %d arguments)", len(args)))
		}
		return nil
	},
	RunE: runDiff,
}

func init() {
	diffCmd.Flags().String("format", "text", "report format: text or json")
	diffCmd.Flags().String("fail-on", string(diff.FailWire), "exit 1 on changes of this category or worse: wire, code, strict or none")
	diffCmd.Flags().StringArray("old-overlay", nil, "overlay `FILE` for the OLD schema (repeatable, applied in order)")
	diffCmd.Flags().StringArray("new-overlay", nil, "overlay `FILE` for the NEW schema (repeatable, applied in order)")
	addAllowRefDir(diffCmd.Flags(), &diffAllowRefDirs)
	rootCmd.AddCommand(diffCmd)
}

// diffAllowRefDirs is diff's --allow-ref-dir (both sides).
var diffAllowRefDirs []string

func runDiff(cmd *cobra.Command, args []string) error {
	format, _ := cmd.Flags().GetString("format")
	if format != "text" && format != "json" {
		return usageErr(fmt.Errorf("--format %q: want text or json", format))
	}
	fo, _ := cmd.Flags().GetString("fail-on")
	failOn, err := diff.ParseFailOn(fo)
	if err != nil {
		return usageErr(err)
	}
	oldOverlays, _ := cmd.Flags().GetStringArray("old-overlay")
	newOverlays, _ := cmd.Flags().GetStringArray("new-overlay")
	old, err := diff.LoadSource(args[0], diff.Options{Overlays: oldOverlays, AllowRefDirs: diffAllowRefDirs})
	if err != nil {
		return usageErr(fmt.Errorf("old schema: %w", err))
	}
	defer old.Close()
	nw, err := diff.LoadSource(args[1], diff.Options{Overlays: newOverlays, AllowRefDirs: diffAllowRefDirs})
	if err != nil {
		return usageErr(fmt.Errorf("new schema: %w", err))
	}
	defer nw.Close()
	r := diff.Compare(old.Model, nw.Model, old.Label, nw.Label)
	out := cmd.OutOrStdout()
	if format == "json" {
		_, err = out.Write(r.JSON())
	} else {
		_, err = fmt.Fprint(out, r.Text())
	}
	if err != nil {
		return usageErr(err)
	}
	if r.Fails(failOn) {
		return findings()
	}
	return nil
}

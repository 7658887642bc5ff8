package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshgen/dshgen/gen/wire/diff"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// diffCmd is `dshgen diff OLD NEW`: which changes between two schema
// revisions break which side of the wire, and which break generated code.
var diffCmd = &cobra.Command{
	Use:   "diff [--revision OLD] [--revision NEW] [OLD] [NEW]",
	Short: "Report what changed between two schema revisions and whom each change breaks",
	Long: `Compare two revisions of a protocol schema and list every change with its
JSON pointer in both files, its rule id and its category:

  wire-breaking-client-to-server   a client→server frame of one revision is rejected by the other's server
  wire-breaking-server-to-client   the same for server→client frames
  code-breaking                    code compiled against the generated bindings breaks
  wire-strict-receivers            only receivers that reject unknown tags/enum values/methods break
  compatible                       nobody breaks

Each side is a schema file, or REV:path for the file at a git revision of the
repository the current directory is in (HEAD~1:schema/0.0.1/dsh-sdk-protocol.schema.json);
files it $refs are read from the same revision. --old-overlay and
--new-overlay (repeatable) apply overlay files to one side each (an overlay
is read from the working tree, also for REV:path); --allow-ref-dir applies to
both sides. The rules are listed in gen/wire/diff/RULES.md.

A side may also be a shipped revision: --revision NAME (repeatable, in
order: the first is OLD). Two --revision flags compare two revisions, one
--revision with one FILE compares the revision (OLD) with your schema
(NEW). With no argument at all, diff compares the oldest shipped revision
with the newest, 0.0.1 → 0.2.1: the migration guide for SDK authors
(every change, whom it breaks; the default because it is the one upgrade
an SDK author of this protocol has to make). The shipped revisions:
` + revisionHelp() + `
Exit status: 1 when a change of the --fail-on category or worse is found
(wire: wire-breaking-*; code: also code-breaking and any change that breaks
generated code; strict: also wire-strict-receivers; none: never), 0 otherwise,
2 for usage or input errors (unreadable file, schema problems, git failure).`,
	Args: func(cmd *cobra.Command, args []string) error {
		n := len(diffRevisions) + len(args)
		if n != 2 && !(n == 0) {
			return usageErr(fmt.Errorf("diff needs two schemas: OLD NEW, --revision OLD --revision NEW, or --revision OLD NEW (got %s and %s)",
				validate.Count(len(diffRevisions), "--revision"), validate.Count(len(args), "argument")))
		}
		return nil
	},
	RunE: runDiff,
}

func init() {
	choiceFlag(diffCmd, new(string), "format", "text", []string{"text", "json"}, "report format: text or json")
	choiceFlag(diffCmd, new(string), "fail-on", string(diff.FailWire), diff.FailOnLevels(), "exit 1 on changes of this category or worse: wire, code, strict or none")
	diffCmd.Flags().StringArray("old-overlay", nil, "overlay `FILE` for the OLD schema (repeatable, applied in order)")
	diffCmd.Flags().StringArray("new-overlay", nil, "overlay `FILE` for the NEW schema (repeatable, applied in order)")
	addAllowRefDir(diffCmd.Flags(), &diffAllowRefDirs)
	diffCmd.Flags().Var(&revisionsValue{&diffRevisions}, "revision", "a shipped revision as one side (`NAME`: "+strings.Join(schema.Names(), " or ")+"); repeatable: the first is OLD")
	completeChoices(diffCmd, "revision", schema.Names())
	rootCmd.AddCommand(diffCmd)
}

// diffAllowRefDirs is diff's --allow-ref-dir (both sides).
var diffAllowRefDirs []string

// diffRevisions are diff's --revision flags, in order.
var diffRevisions []string

// revisionsValue is a repeatable --revision.
type revisionsValue struct{ target *[]string }

func (v *revisionsValue) String() string { return strings.Join(*v.target, ",") }
func (v *revisionsValue) Type() string   { return "stringArray" }
func (v *revisionsValue) Set(s string) error {
	if _, err := schema.Lookup(s); err != nil {
		return err
	}
	*v.target = append(*v.target, s)
	return nil
}
func (v *revisionsValue) GetSlice() []string    { return *v.target }
func (v *revisionsValue) Append(s string) error { return v.Set(s) }
func (v *revisionsValue) Replace(ss []string) error {
	*v.target = nil
	for _, s := range ss {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

// diffSide loads one side: a shipped revision (from the repository when
// run at its root, else embedded), or a file / REV:path argument.
func diffSide(rev, arg string, overlays []string) (*diff.Source, error) {
	if rev != "" {
		r := mustRevision(rev)
		m, err := loadRevision(r, overlays, diffAllowRefDirs)
		if err != nil {
			return nil, err
		}
		return &diff.Source{Model: m, Label: "revision " + r.Name + " (" + r.Path() + ")"}, nil
	}
	return diff.LoadSource(arg, diff.Options{Overlays: overlays, AllowRefDirs: diffAllowRefDirs})
}

func runDiff(cmd *cobra.Command, args []string) error {
	format := cmd.Flags().Lookup("format").Value.String()
	fo := cmd.Flags().Lookup("fail-on").Value.String()
	failOn, err := diff.ParseFailOn(fo)
	if err != nil {
		return usageErr(err)
	}
	oldOverlays, _ := cmd.Flags().GetStringArray("old-overlay")
	newOverlays, _ := cmd.Flags().GetStringArray("new-overlay")
	// The two sides: --revision flags first, then the arguments.
	var sides [2]struct{ rev, arg string }
	i := 0
	revs := diffRevisions
	if len(revs) == 0 && len(args) == 0 {
		names := schema.Names()
		revs = []string{names[0], names[len(names)-1]}
	}
	for _, r := range revs {
		sides[i].rev = r
		i++
	}
	for _, a := range args {
		sides[i].arg = a
		i++
	}
	old, err := diffSide(sides[0].rev, sides[0].arg, oldOverlays)
	if err != nil {
		return usageErr(fmt.Errorf("old schema: %w", err))
	}
	defer old.Close()
	nw, err := diffSide(sides[1].rev, sides[1].arg, newOverlays)
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

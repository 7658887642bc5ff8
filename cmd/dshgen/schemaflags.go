package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// schemaFlags are the schema-source flags every command that reads a
// schema shares (generate, validate, tap, conformance; diff has one set per
// side): --schema FILE, --overlay FILE (repeatable, applied in order) and
// --allow-ref-dir DIR (repeatable). The files are read by gen/schemadoc:
// regular files under its size cap, $refs confined to the schema's
// directory tree and the --allow-ref-dir directories, nothing fetched.
type schemaFlags struct {
	schema       string
	revision     string
	overlays     []string
	allowRefDirs []string
	set          *pflag.FlagSet
}

// revisionValue is --revision: a shipped revision's name (schema.Lookup),
// anything else a usage error listing the known ones.
type revisionValue struct{ target *string }

func (v revisionValue) String() string { return *v.target }
func (v revisionValue) Type() string   { return "string" }
func (v revisionValue) Set(s string) error {
	if _, err := schema.Lookup(s); err != nil {
		return err
	}
	*v.target = s
	return nil
}

// revisionHelp renders the shipped revisions for --help, one per line.
func revisionHelp() string {
	var b strings.Builder
	for _, r := range schema.Revisions() {
		fmt.Fprintf(&b, "  %-6s %s\n         runtime: %s\n", r.Name, r.Description, r.Runtime)
	}
	return b.String()
}

// addRevisionFlag registers --revision NAME with def as its default and
// the shipped revision names as its completion.
func addRevisionFlag(cmd *cobra.Command, p *string, def, usage string) {
	*p = def
	cmd.Flags().Var(revisionValue{p}, "revision", usage)
	completeChoices(cmd, "revision", schema.Names())
}

// addSchemaFlags registers --schema, --revision, --overlay and
// --allow-ref-dir on cmd; defRev is the command's default revision
// (README.md in schema/ says why each command has the one it has).
func addSchemaFlags(cmd *cobra.Command, sf *schemaFlags, defRev, why string) {
	fs := cmd.Flags()
	sf.set = fs
	fs.StringVar(&sf.schema, "schema", "", "protocol schema `FILE` (JSON Schema draft 2020-12, 2019-09 or draft-07) instead of a shipped revision; conflicts with --revision")
	def := "default " + defRev + ": " + why
	if defRev == "" {
		def = "default: " + why
	}
	addRevisionFlag(cmd, &sf.revision, defRev, "shipped revision `NAME` to use: "+strings.Join(schema.Names(), " or ")+" ("+def+")")
	fs.StringArrayVar(&sf.overlays, "overlay", nil, "overlay `FILE` adding dshgen's x- keywords (x-methods, x-name, ...) to the schema by JSON pointer; repeatable, applied in order (see gen/schemadoc/README.md)")
	addAllowRefDir(fs, &sf.allowRefDirs)
}

// addAllowRefDir registers --allow-ref-dir (shared with diff).
func addAllowRefDir(fs *pflag.FlagSet, dirs *[]string) {
	fs.StringArrayVar(dirs, "allow-ref-dir", nil, "let relative $refs read schema files under `DIR` too (by default only the schema's own directory tree); repeatable")
}

// defaultRevisionWhy is why validate, tap and conformance default to
// revision 0.0.1 (schema/README.md, "Defaults").
const defaultRevisionWhy = "the npm runtime's revision, the one existing captures and CI jobs were checked against; a 0.2.1 stream checked under it gets findings that say so"

// fileGiven reports whether a schema file, overlay or ref directory was
// given (what must be loaded before anything runs, so a bad one is a
// usage error); a shipped revision alone is known good.
func (sf *schemaFlags) fileGiven() bool {
	return sf.set.Changed("schema") || sf.set.Changed("overlay") || sf.set.Changed("allow-ref-dir")
}

// changed reports whether any schema-source flag was given.
func (sf *schemaFlags) changed() bool {
	return sf.set.Changed("schema") || sf.set.Changed("revision") || sf.set.Changed("overlay") || sf.set.Changed("allow-ref-dir")
}

// check refuses --schema together with --revision.
func (sf *schemaFlags) check() error {
	if sf.set.Changed("schema") && sf.set.Changed("revision") {
		return fmt.Errorf("--schema and --revision both name the schema: give one (--revision %s is %s)", sf.revision, mustRevision(sf.revision).Path())
	}
	if sf.set.Changed("schema") && sf.schema == "" {
		return fmt.Errorf("--schema needs a file")
	}
	return nil
}

func mustRevision(name string) schema.Revision {
	r, err := schema.Lookup(name)
	if err != nil {
		panic(err)
	}
	return r
}

// file is the schema path the flags name: --schema, or the revision's path
// in the repository.
func (sf *schemaFlags) file() string {
	if sf.schema != "" {
		return sf.schema
	}
	return mustRevision(sf.revision).Path()
}

// load loads the model the flags name: the --schema file, or the
// revision's file when dshgen runs at the repository root (so an edit
// there is seen), else the revision embedded in the binary; all go
// through the same reader and guards. Only the one revision is read. The
// model's warnings go to w (printWarnings).
func (sf *schemaFlags) load(w io.Writer) (*ir.Model, error) {
	return sf.loadBindings(w, false)
}

// loadBindings is load; with bindingsOnly the schema's text is dropped
// before the IR is built (ir.Source.BindingsOnly: nothing may compile the
// schema afterwards, as generate without vectors does not).
func (sf *schemaFlags) loadBindings(w io.Writer, bindingsOnly bool) (*ir.Model, error) {
	if err := sf.check(); err != nil {
		return nil, err
	}
	s := sf.source()
	s.BindingsOnly = bindingsOnly
	m, err := ir.LoadSource(s)
	if err == nil {
		printWarnings(w, m)
	}
	return m, err
}

// printWarnings writes each of the model's warnings (ir.Model.Warnings:
// a misspelt root keyword, no method at all) as one "dshgen: warning:"
// line with its file, line, pointer and fix. They never fail a command.
func printWarnings(w io.Writer, m *ir.Model) {
	for _, p := range m.Warnings {
		fmt.Fprintln(w, "dshgen: warning: "+p.String())
	}
}

// loadForValidation is load for the commands that only validate
// (validate, tap): problems that only keep the bindings from typing part
// of the schema do not stop them (ir.LoadForValidation); one line on w
// says how many there are and where to see them.
func (sf *schemaFlags) loadForValidation(w io.Writer) (*ir.Model, error) {
	if err := sf.check(); err != nil {
		return nil, err
	}
	m, binding, err := ir.LoadForValidation(sf.source())
	if err == nil {
		printWarnings(w, m)
	}
	if err == nil && len(binding) > 0 {
		fmt.Fprintf(w, "dshgen: note: %s keep dshgen generate from typing parts of %s (run it to list them); those parts are validated by JSON Schema alone\n", validate.Count(len(binding), "schema problem"), sf.file())
	}
	return m, err
}

// source is the ir.Source the flags name: the --schema file, or the
// revision's (revisionSource).
func (sf *schemaFlags) source() ir.Source {
	if sf.schema != "" {
		return ir.Source{Path: sf.schema, Overlays: sf.overlays, AllowRefDirs: sf.allowRefDirs, Verified: schema.Verified()}
	}
	return revisionSource(mustRevision(sf.revision), sf.overlays, sf.allowRefDirs)
}

// loadRevision loads a shipped revision (from the repository when run at
// its root, else embedded).
func loadRevision(r schema.Revision, overlays, allowRefDirs []string) (*ir.Model, error) {
	return ir.LoadSource(revisionSource(r, overlays, allowRefDirs))
}

// revisionSource is a shipped revision's file in the repository when
// dshgen runs at its root (so an edit there is seen), else the document
// embedded in the binary.
func revisionSource(r schema.Revision, overlays, allowRefDirs []string) ir.Source {
	src := ir.Source{Path: r.Path(), Overlays: overlays, AllowRefDirs: allowRefDirs, Verified: schema.Verified()}
	if _, err := os.Stat(src.Path); errors.Is(err, os.ErrNotExist) {
		src.Path, src.Bytes = schema.FileName, r.Bytes()
	}
	return src
}

// revisionOf names the shipped revision a loaded model is (by the sha256
// of its root document; ok false for any other schema or with overlays).
func revisionOf(m *ir.Model) (schema.Revision, bool) {
	if len(m.Overlays) > 0 {
		return schema.Revision{}, false
	}
	return schema.BySHA256(m.SHA256)
}

// args renders the non-default schema-source flags for a command line a
// message suggests (" --schema FILE --overlay O ...", or "").
func (sf *schemaFlags) args() string {
	var b strings.Builder
	if sf.schema != "" {
		b.WriteString(" --schema " + sf.schema)
	} else if sf.set.Changed("revision") {
		b.WriteString(" --revision " + sf.revision)
	}
	for _, o := range sf.overlays {
		b.WriteString(" --overlay " + o)
	}
	for _, d := range sf.allowRefDirs {
		b.WriteString(" --allow-ref-dir " + d)
	}
	return b.String()
}

// policyFlags are validate's and tap's finding switches: --rule ID=SEV
// (repeatable), --baseline FILE, --write-baseline FILE and the older
// --prompt-overlap SEV (the same as --rule state.prompt-overlap=SEV).
type policyFlags struct {
	rules         []string
	baseline      string
	writeBaseline string
	promptOverlap string
}

func addPolicyFlags(cmd *cobra.Command, p *policyFlags) {
	f := cmd.Flags()
	f.StringArrayVar(&p.rules, "rule", nil, "set one rule's severity: `ID=off|info|warning|error` (repeatable; rule ids in gen/wire/validate/RULES.md; wins over --prompt-overlap and the revision's own settings)")
	f.StringVar(&p.baseline, "baseline", "", "accepted findings `FILE` (one JSON object per line: rule, method, type, pointer): matching findings are reported as baselined and do not fail the run; an entry matching nothing fails it (baseline.stale)")
	f.StringVar(&p.writeBaseline, "write-baseline", "", "write a baseline `FILE` accepting every error and warning of this run (then use it with --baseline)")
	mustComplete(cmd, "rule", completeRule)
	choiceFlag(cmd, &p.promptOverlap, "prompt-overlap", "", overlapChoices, "severity of a session/prompt sent while the session's previous prompt has not settled: error, warning or off (default: the revision's: error for 0.0.1, whose protocol says an overlap fails; off for 0.2.1, whose runtime queues it)")
}

// completeRule completes --rule: a rule id followed by "=", then the
// severities.
func completeRule(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	if id, _, ok := strings.Cut(toComplete, "="); ok {
		for _, s := range []string{"off", "info", "warning", "error"} {
			out = append(out, id+"="+s)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, id := range validate.RuleIDs() {
		out = append(out, id+"=")
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// options builds the validator options the flags give (a bad --rule or
// an unreadable baseline is a usage error).
func (p *policyFlags) options(o validate.Options) (validate.Options, *validate.BaselineWriter, error) {
	if p.promptOverlap != "" {
		o.PromptOverlap, _ = validate.ParseSeverity(p.promptOverlap)
	}
	for _, r := range p.rules {
		id, sev, err := validate.ParseRuleSwitch(r)
		if err != nil {
			return o, nil, err
		}
		if o.Rules == nil {
			o.Rules = map[string]validate.Severity{}
		}
		o.Rules[id] = sev
	}
	if p.baseline != "" {
		b, err := validate.ReadBaseline(p.baseline)
		if err != nil {
			return o, nil, fmt.Errorf("--baseline: %w", err)
		}
		o.Baseline = b
	}
	var bw *validate.BaselineWriter
	if p.writeBaseline != "" {
		bw = &validate.BaselineWriter{}
	}
	return o, bw, nil
}

// saveBaseline writes --write-baseline's file (all or nothing: a temporary
// file renamed into place).
func (p *policyFlags) saveBaseline(bw *validate.BaselineWriter) error {
	if bw == nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.writeBaseline), ".dshgen-baseline-*")
	if err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := bw.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.writeBaseline); err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	return nil
}

// againstText is against as one phrase ("revision 0.0.1 (schema/...)").
func againstText(m *ir.Model) string {
	rev, file := against(m)
	if rev != "" {
		return "revision " + rev + " (" + file + ")"
	}
	return file
}

// against names what a validator checks against, for the report.
func against(m *ir.Model) (rev, file string) {
	if r, ok := revisionOf(m); ok {
		return r.Name, r.Path()
	}
	return "", m.File
}

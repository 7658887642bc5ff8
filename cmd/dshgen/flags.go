package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate"
)

// choiceValue is a string flag with a fixed set of values: Set rejects any
// other (a usage error, exit 2), and the same list is what shell completion
// offers (choiceFlag registers it), so the two cannot disagree.
type choiceValue struct {
	target  *string
	choices []string
}

func (v *choiceValue) String() string { return *v.target }
func (v *choiceValue) Type() string   { return "string" }
func (v *choiceValue) Set(s string) error {
	if !slices.Contains(v.choices, s) {
		return fmt.Errorf("want %s", orList(v.choices))
	}
	*v.target = s
	return nil
}

// choicesValue is a comma-separated list flag (repeatable) whose every
// element comes from a fixed set.
type choicesValue struct {
	target  *[]string
	choices []string
	changed bool
}

func (v *choicesValue) String() string { return "[" + strings.Join(*v.target, ",") + "]" }
func (v *choicesValue) Type() string   { return "strings" }
func (v *choicesValue) Set(s string) error {
	var got []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if !slices.Contains(v.choices, e) {
			return fmt.Errorf("%q: want %s (comma-separated)", e, orList(v.choices))
		}
		got = append(got, e)
	}
	if !v.changed {
		*v.target = nil
		v.changed = true
	}
	*v.target = append(*v.target, got...)
	return nil
}

// GetSlice, Append and Replace make choicesValue a pflag.SliceValue, so
// the fix command of generate --check renders it as a list.
func (v *choicesValue) GetSlice() []string { return *v.target }
func (v *choicesValue) Append(s string) error {
	return v.Set(s)
}
func (v *choicesValue) Replace(ss []string) error {
	*v.target = nil
	v.changed = false
	return v.Set(strings.Join(ss, ","))
}

// choiceFlag defines a string flag whose value must be one of choices and
// registers the same choices for shell completion.
func choiceFlag(cmd *cobra.Command, p *string, name, def string, choices []string, usage string) {
	*p = def
	cmd.Flags().Var(&choiceValue{p, choices}, name, usage)
	completeChoices(cmd, name, choices)
}

// choicesFlag is choiceFlag for a comma-separated list; completion after
// "go," offers the values not yet in the list, each after "go,".
func choicesFlag(cmd *cobra.Command, p *[]string, name string, def, choices []string, usage string) {
	*p = def
	cmd.Flags().Var(&choicesValue{target: p, choices: choices}, name, usage)
	mustComplete(cmd, name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		done, _ := cutLast(toComplete, ",")
		var out []string
		for _, c := range choices {
			if !slices.Contains(strings.Split(done, ","), c) {
				out = append(out, strings.TrimPrefix(done+","+c, ","))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

func completeChoices(cmd *cobra.Command, name string, choices []string) {
	mustComplete(cmd, name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return choices, cobra.ShellCompDirectiveNoFileComp
	})
}

func mustComplete(cmd *cobra.Command, name string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
		panic(err)
	}
}

// cutLast splits s around the last sep ("", s when there is none).
func cutLast(s, sep string) (string, string) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):]
	}
	return "", s
}

// orList renders choices as "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// invocation returns the command line that reruns cmd as the user ran it:
// the binary as invoked (go run ./cmd/dshgen when run with go run, else
// the path or name the user typed), the subcommand, and every flag that
// was set (in flag order), except those named in drop.
func invocation(cmd *cobra.Command, drop ...string) string {
	parts := []string{binaryName()}
	parts = append(parts, strings.Fields(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()))...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(drop, f.Name) {
			return
		}
		switch {
		case f.Value.Type() == "bool":
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			} else {
				parts = append(parts, "--"+f.Name+"=false")
			}
		case f.Value.Type() == "stringArray":
			for _, v := range f.Value.(pflag.SliceValue).GetSlice() {
				parts = append(parts, "--"+f.Name, shellQuote(v))
			}
		default:
			val := f.Value.String()
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				val = strings.Join(sv.GetSlice(), ",")
			}
			parts = append(parts, "--"+f.Name, shellQuote(val))
		}
	})
	return strings.Join(parts, " ")
}

// binaryName is how the user invoked dshgen: "go run ./cmd/dshgen" for a
// binary that go run built (in a go-build temporary directory, or in the
// build cache, where Go 1.24 and later keep go run's executables), else
// argv[0] as typed.
func binaryName() string {
	a := os.Args[0]
	if filepath.IsAbs(a) {
		dir := filepath.ToSlash(filepath.Dir(a))
		cache := os.Getenv("GOCACHE")
		if strings.Contains(dir, "/go-build") || (cache != "" && strings.HasPrefix(dir, filepath.ToSlash(cache)+"/")) {
			return "go run ./cmd/dshgen"
		}
	}
	return shellQuote(a)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The fixed value sets of flags that several commands share, or whose
// values are not a library's own list. Each is both what the flag accepts
// and what completion offers.
var (
	// directionChoices: validate --direction.
	directionChoices = []string{"auto", string(ir.ClientToServer), string(ir.ServerToClient), "both"}
	// overlapChoices: --prompt-overlap of validate and tap (a severity, or
	// off; info would be silent).
	overlapChoices = []string{string(validate.Error), string(validate.Warning), string(validate.Off)}
	// tapFormats: the validate report formats, plus jsonl (live).
	tapFormats = append(slices.Clone(validate.Formats), "jsonl")
	// tapFailOn: tap --fail-on.
	tapFailOn = []string{string(validate.Error), string(validate.Warning), "none"}
)

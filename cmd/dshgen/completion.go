package main

import (
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// Shell completion (cobra's `dshgen completion bash|zsh|fish|powershell`).
// A flag with a fixed set of values is declared with choiceFlag or
// choicesFlag, which complete from the list that validates it. Every other
// flag that takes a value says here what completes it: files (with
// extensions), directories, or nothing (free text, numbers, durations).
// TestEveryFlagCompletes fails on a value flag that is in neither place,
// and on an entry here that names no such flag.

type completeKind int

const (
	completeFile completeKind = iota
	completeDir
	completeNothing
)

// freeFlags maps "command flag" to what completes that flag's value; "*"
// as the command is every command that has the flag (the schema source
// flags several commands share).
var freeFlags = map[string]struct {
	kind completeKind
	ext  []string
}{
	"* schema":                 {completeFile, []string{"json"}},
	"* overlay":                {completeFile, []string{"json"}},
	"* allow-ref-dir":          {completeDir, nil},
	"* baseline":               {completeFile, []string{"jsonl"}},
	"* write-baseline":         {completeFile, []string{"jsonl"}},
	"diff old-overlay":         {completeFile, []string{"json"}},
	"diff new-overlay":         {completeFile, []string{"json"}},
	"generate out":             {completeDir, nil},
	"generate vectors":         {completeDir, nil},
	"generate package":         {completeNothing, nil},
	"generate go-module":       {completeNothing, nil},
	"validate max-frame-bytes": {completeNothing, nil},
	"validate type":            {completeNothing, nil},
	"conformance type":         {completeNothing, nil},
	"tap capture":              {completeFile, nil},
	"tap report":               {completeFile, nil},
	"tap capture-ms-decimals":  {completeNothing, nil},
	"tap drain-timeout":        {completeNothing, nil},
	"tap max-frame-bytes":      {completeNothing, nil},
	"tap queue-bytes":          {completeNothing, nil},
	"conformance out":          {completeDir, nil},
	"conformance package":      {completeNothing, nil},
}

var registerOnce sync.Once

func init() { cobra.OnInitialize(registerCompletions) }

// registerCompletions applies freeFlags (once; the commands add themselves
// in their init functions, so this runs when the CLI starts).
func registerCompletions() {
	registerOnce.Do(func() {
		for key, c := range freeFlags {
			for _, cf := range findFlags(key) {
				var err error
				switch c.kind {
				case completeFile:
					err = cf.cmd.MarkFlagFilename(cf.name, c.ext...)
				case completeDir:
					err = cf.cmd.MarkFlagDirname(cf.name)
				default:
					err = cf.cmd.RegisterFlagCompletionFunc(cf.name, cobra.NoFileCompletions)
				}
				if err != nil {
					panic(fmt.Sprintf("completion of %s: %v", key, err))
				}
			}
		}
	})
}

type cmdFlag struct {
	cmd  *cobra.Command
	name string
}

// findFlags resolves "command flag" ("*" for every command) to the
// commands that have the flag; none when the key names no flag (which
// TestEveryFlagCompletes reports).
func findFlags(key string) []cmdFlag {
	cmdName, flag, _ := strings.Cut(key, " ")
	var out []cmdFlag
	for _, c := range rootCmd.Commands() {
		if (cmdName == "*" || c.Name() == cmdName) && c.Flags().Lookup(flag) != nil {
			out = append(out, cmdFlag{c, flag})
		}
	}
	return out
}

// completionShells are the shells cobra's completion command writes
// scripts for (its subcommands).
func completionShells(c *cobra.Command) []string {
	var out []string
	for _, s := range c.Commands() {
		if s.Name() != "help" {
			out = append(out, s.Name())
		}
	}
	return out
}

// strictCompletion adds cobra's completion command now (instead of at
// Execute) and makes a missing or unknown shell a usage error naming the
// supported ones: cobra prints the command's help and exits 0 for
// `dshgen completion tcsh`.
func strictCompletion() {
	rootCmd.InitDefaultCompletionCmd()
	c, _, err := rootCmd.Find([]string{"completion"})
	if err != nil || c == rootCmd {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		shells := strings.Join(completionShells(cmd), ", ")
		if len(args) == 0 {
			return usageErr(fmt.Errorf("completion needs a shell: dshgen completion SHELL, one of %s", shells))
		}
		return usageErr(fmt.Errorf("completion: unknown shell %q (supported: %s)", args[0], shells))
	}
}

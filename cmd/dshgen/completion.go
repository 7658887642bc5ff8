package main

import (
	"fmt"
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

// freeFlags maps "command flag" to what completes that flag's value.
var freeFlags = map[string]struct {
	kind completeKind
	ext  []string
}{
	"generate schema":          {completeFile, []string{"json"}},
	"generate out":             {completeDir, nil},
	"generate vectors":         {completeDir, nil},
	"generate package":         {completeNothing, nil},
	"generate go-module":       {completeNothing, nil},
	"validate schema":          {completeFile, []string{"json"}},
	"validate max-frame-bytes": {completeNothing, nil},
	"validate type":            {completeNothing, nil},
	"tap schema":               {completeFile, []string{"json"}},
	"tap capture":              {completeFile, nil},
	"tap report":               {completeFile, nil},
	"tap capture-ms-decimals":  {completeNothing, nil},
	"tap drain-timeout":        {completeNothing, nil},
	"tap max-frame-bytes":      {completeNothing, nil},
	"tap queue-bytes":          {completeNothing, nil},
	"conformance schema":       {completeFile, []string{"json"}},
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
			cmd, name, err := findFlag(key)
			if err != nil {
				continue // TestEveryFlagCompletes reports it
			}
			switch c.kind {
			case completeFile:
				err = cmd.MarkFlagFilename(name, c.ext...)
			case completeDir:
				err = cmd.MarkFlagDirname(name)
			default:
				err = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
			}
			if err != nil {
				panic(fmt.Sprintf("completion of %s: %v", key, err))
			}
		}
	})
}

// findFlag resolves "command flag" to the command and the flag name.
func findFlag(key string) (*cobra.Command, string, error) {
	var cmdName, flag string
	if _, err := fmt.Sscan(key, &cmdName, &flag); err != nil {
		return nil, "", fmt.Errorf("%q: want \"command flag\"", key)
	}
	for _, c := range rootCmd.Commands() {
		if c.Name() == cmdName && c.Flags().Lookup(flag) != nil {
			return c, flag, nil
		}
	}
	return nil, "", fmt.Errorf("%q: no such command flag", key)
}

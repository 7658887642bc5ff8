// Command dshgen generates Go, Python and TypeScript bindings from one
// JSON-RPC protocol schema and validates frames against it.
//
// Exit codes everywhere: 0 ok, 1 findings or drift, 2 usage or input error.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshgen/dshgen/gen/ir"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// exitError carries an exit code out of a command's RunE. A nil Err means
// the command already printed what it had to say.
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *exitError) Unwrap() error { return e.Err }

// usageErr wraps err as a usage or input error (exit 2).
func usageErr(err error) error { return &exitError{Code: exitUsage, Err: err} }

// findings returns an exit-1 error that prints nothing more.
func findings() error { return &exitError{Code: exitFindings} }

// rootCmd is the dshgen command; subcommands add themselves in init().
var rootCmd = &cobra.Command{
	Use:           "dshgen",
	Short:         "Keep Go, Python and TypeScript SDKs of a JSON-RPC protocol in lockstep from one schema",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI with args and returns the process exit code.
func run(args []string) int {
	rootCmd.SetArgs(args)
	rootCmd.SetFlagErrorFunc(suggestFlag)
	strictCompletion()
	err := rootCmd.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(os.Stderr, "dshgen:", ee.Err)
		}
		return ee.Code
	}
	// cobra's own errors (unknown flag, bad args) are usage errors.
	fmt.Fprintln(os.Stderr, "dshgen:", err)
	return exitUsage
}

// maxFlagTypo is how far (ir.EditDistance) an unknown flag may be from a
// flag of the command to be suggested.
const maxFlagTypo = 2

// suggestFlag is every command's flag error function: to an unknown long
// flag it adds the command's flag it most likely meant, the nearest by
// edit distance (at most maxFlagTypo) or else the one flag it is a prefix
// of ("unknown flag: --schem (did you mean --schema?)"). Cobra suggests
// commands, not flags.
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names, prefixed []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
			if strings.HasPrefix(f.Name, name) {
				prefixed = append(prefixed, f.Name)
			}
		}
	})
	near := ir.Nearest(name, names, maxFlagTypo)
	if near == "" && len(prefixed) == 1 {
		near = prefixed[0]
	}
	if near == "" {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, near)
}

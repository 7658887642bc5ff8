// Package lifecycle is the rule set "initialize-first": in a protocol
// whose session starts with an initialize handshake (the DeepSeek Harness
// SDK runtime's, MCP's, ACP's), a client request other than initialize
// before the first initialize is an error; a keep-alive "ping" is allowed
// before it (MCP allows pings before the handshake). A failed initialize
// still counts (the DeepSeek Harness runtime accepts a second one). A
// schema opts in with "x-dshgen-rules": ["initialize-first"]; the rule runs
// only when the schema has an initialize method.
package lifecycle

import (
	"fmt"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
)

// Name is the rule set's name in x-dshgen-rules.
const Name = "initialize-first"

// RuleInitializeFirst is the set's rule id.
const RuleInitializeFirst = "state.initialize-first"

func init() { ruleset.Register(set{}) }

type set struct{}

func (set) Name() string { return Name }

func (set) Rules() []ruleset.Rule {
	return []ruleset.Rule{{ID: RuleInitializeFirst, Severity: ruleset.Error, Stage: "state",
		Doc:     "a request other than initialize (or a keep-alive ping) before the first initialize (when the schema has an initialize method)",
		Example: `"session/prompt" sent before "initialize"`}}
}

type checker struct{ on bool }

func (set) Compile(m *ir.Model, _ ruleset.Config) (ruleset.Checker, error) {
	return checker{on: m.Method("initialize") != nil}, nil
}

func (c checker) NewStream() ruleset.Stream { return &stream{on: c.on} }

// Reads implements ruleset.Reader: the set reads no params.
func (checker) Reads(string) []string { return nil }

type stream struct {
	on       bool
	initSeen bool
}

func (s *stream) Request(f ruleset.Frame, _ bool) any {
	if !s.on || f.Dir() == ir.ServerToClient {
		return nil
	}
	switch name := f.Method(); {
	case name == "initialize":
		s.initSeen = true
	case !s.initSeen && name != "ping":
		f.Report(RuleInitializeFirst, "", "/method", fmt.Sprintf("%q sent before \"initialize\"", name))
	}
	return nil
}

func (s *stream) Response(ruleset.Frame, any, bool) {}
func (s *stream) Notification(ruleset.Frame, bool)  {}

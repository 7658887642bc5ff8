package validate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
	// The built-in rule sets register themselves.
	_ "github.com/dshgen/dshgen/gen/wire/validate/rulesets/harness"
	_ "github.com/dshgen/dshgen/gen/wire/validate/rulesets/lifecycle"
)

// RuleSets returns the rule sets the schema opts into (its x-dshgen-rules).
func (v *Validator) RuleSets() []string { return append([]string(nil), v.ruleSets...) }

// compileRuleSets reads the schema's x-dshgen-rules and compiles each set
// it names; a name no set is registered under, or a keyword that is not
// an array of strings, is a schema problem naming the file, line and
// pointer.
func (v *Validator) compileRuleSets() error {
	names, err := schemaRuleSets(v.model.Source())
	if err != nil {
		return err
	}
	// Severities: the schema's x-dshgen-rule-severity, then
	// Options.PromptOverlap, then Options.Rules (the command line).
	v.ruleSev, err = schemaRuleSeverity(v.model.Source())
	if err != nil {
		return err
	}
	if v.opts.PromptOverlap != "" {
		v.ruleSev[RulePromptOverlap] = v.opts.PromptOverlap
	}
	for id, sev := range v.opts.Rules {
		v.ruleSev[id] = sev
	}
	cfg := ruleset.Config{Snapshot: v.opts.Snapshot, Severity: map[string]string{}}
	for id, sev := range v.ruleSev {
		cfg.Severity[id] = string(sev)
	}
	for _, n := range names {
		set, _ := ruleset.Lookup(n)
		c, err := set.Compile(v.model, cfg)
		if err != nil {
			return fmt.Errorf("rule set %q: %w", n, err)
		}
		v.ruleSets = append(v.ruleSets, n)
		v.checkers = append(v.checkers, c)
	}
	return nil
}

// schemaRuleSets returns the names in the root document's x-dshgen-rules.
func schemaRuleSets(src *schemadoc.Set) ([]string, error) {
	if src == nil || src.Root() == nil || src.Root().Root == nil {
		return nil, nil
	}
	doc := src.Root()
	kw := doc.Root.Get(ruleset.Keyword)
	if kw == nil {
		return nil, nil
	}
	at := schemadoc.Loc{Doc: doc}.Child(ruleset.Keyword)
	fail := func(l schemadoc.Loc, msg string) error {
		return &schemadoc.Error{Problems: []schemadoc.Problem{src.Problem(l, msg, "")}}
	}
	if kw.Kind() != schemadoc.Array {
		return nil, fail(at, fmt.Sprintf("must be an array of rule set names (known: %s)", knownSets()))
	}
	var names []string
	seen := map[string]bool{}
	for i, x := range kw.Items() {
		if x.Kind() != schemadoc.String {
			return nil, fail(at.Child(i), fmt.Sprintf("a rule set name must be a string, not %s", x.Compact()))
		}
		n := x.Str()
		if _, ok := ruleset.Lookup(n); !ok {
			return nil, fail(at.Child(i), fmt.Sprintf("unknown rule set %q (known: %s)", n, knownSets()))
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names, nil
}

// SeverityKeyword is the schema's top-level extension keyword that sets
// rules' severities for that protocol ({"rule id": "off|info|warning|
// error"}); revision 0.2.1 turns state.prompt-overlap off with it.
const SeverityKeyword = "x-dshgen-rule-severity"

// schemaRuleSeverity reads the root document's x-dshgen-rule-severity.
func schemaRuleSeverity(src *schemadoc.Set) (map[string]Severity, error) {
	out := map[string]Severity{}
	if src == nil || src.Root() == nil || src.Root().Root == nil {
		return out, nil
	}
	doc := src.Root()
	kw := doc.Root.Get(SeverityKeyword)
	if kw == nil {
		return out, nil
	}
	at := schemadoc.Loc{Doc: doc}.Child(SeverityKeyword)
	fail := func(l schemadoc.Loc, msg string) error {
		return &schemadoc.Error{Problems: []schemadoc.Problem{src.Problem(l, msg, "")}}
	}
	if kw.Kind() != schemadoc.Object {
		return nil, fail(at, "must be an object of rule id → severity (off, info, warning or error)")
	}
	for _, id := range kw.Keys() {
		if _, ok := RuleByID(id); !ok {
			return nil, fail(at.Child(id), fmt.Sprintf("unknown rule id %q (known: %s)", id, strings.Join(RuleIDs(), ", ")))
		}
		x := kw.Get(id)
		sev, ok := Severity(""), false
		if x.Kind() == schemadoc.String {
			sev, ok = ParseSeverity(x.Str())
		}
		if !ok {
			return nil, fail(at.Child(id), fmt.Sprintf("severity must be off, info, warning or error, not %s", x.Compact()))
		}
		out[id] = sev
	}
	return out, nil
}

func knownSets() string {
	var names []string
	for _, s := range ruleset.All() {
		names = append(names, s.Name())
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// setRules returns the rules of every registered set, by set name, as the
// validator's Rule values; the stage names the set ("state
// (deepseek-harness)"): they run only for a schema that opts into it.
func setRules() []Rule {
	var out []Rule
	for _, s := range ruleset.All() {
		for _, r := range s.Rules() {
			out = append(out, Rule{ID: r.ID, Severity: Severity(r.Severity), Stage: r.Stage + " (" + s.Name() + ")", Doc: r.Doc, Example: r.Example})
		}
	}
	return out
}

// SchemaSeverities returns the rule severities a model's schema sets with
// x-dshgen-rule-severity.
func SchemaSeverities(m *ir.Model) (map[string]Severity, error) {
	return schemaRuleSeverity(m.Source())
}

package validate

import (
	"fmt"
	"sort"
	"strings"

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
	v.ruleSev = map[string]Severity{RulePromptOverlap: v.opts.PromptOverlap}
	names, err := schemaRuleSets(v.model.Source())
	if err != nil {
		return err
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

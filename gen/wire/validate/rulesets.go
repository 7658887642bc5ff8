package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
	// The built-in rule sets register themselves.
	_ "github.com/dshgen/dshgen/gen/wire/validate/rulesets/harness"
	_ "github.com/dshgen/dshgen/gen/wire/validate/rulesets/lifecycle"
)

// RuleSets returns the rule sets the schema opts into (its x-dshgen-rules).
func (v *Validator) RuleSets() []string { return append([]string(nil), v.ruleSets...) }

// compileRuleSets reads the schema's x-dshgen-rules and compiles each set
// it names; a name no set is registered under, or a keyword that is not
// an array of strings, is an error naming the schema file and pointer.
func (v *Validator) compileRuleSets() error {
	v.ruleSev = map[string]Severity{RulePromptOverlap: v.opts.PromptOverlap}
	names, err := schemaRuleSets(v.model.File, v.model.Raw)
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
			return fmt.Errorf("%s: #/%s: rule set %q: %w", v.model.File, ruleset.Keyword, n, err)
		}
		v.ruleSets = append(v.ruleSets, n)
		v.checkers = append(v.checkers, c)
	}
	return nil
}

// schemaRuleSets returns the names in the root's x-dshgen-rules.
func schemaRuleSets(file string, raw []byte) ([]string, error) {
	var root map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(raw))
	if d.Decode(&root) != nil {
		return nil, nil // not an object: the loader reports it
	}
	kw, ok := root[ruleset.Keyword]
	if !ok {
		return nil, nil
	}
	ptr := "#/" + ruleset.Keyword
	var list []json.RawMessage
	if json.Unmarshal(kw, &list) != nil {
		return nil, fmt.Errorf("%s: %s: must be an array of rule set names (known: %s)", file, ptr, knownSets())
	}
	var names []string
	seen := map[string]bool{}
	for i, x := range list {
		var n string
		if json.Unmarshal(x, &n) != nil {
			return nil, fmt.Errorf("%s: %s/%d: a rule set name must be a string, not %s", file, ptr, i, strings.TrimSpace(string(x)))
		}
		if _, ok := ruleset.Lookup(n); !ok {
			return nil, fmt.Errorf("%s: %s/%d: unknown rule set %q (known: %s)", file, ptr, i, n, knownSets())
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

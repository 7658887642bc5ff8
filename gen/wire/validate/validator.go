// Package validate checks JSON-RPC frames against a dshgen protocol schema:
// framing, envelope, method table, params/result/error types (with union
// branches picked by their tag, so a bad frame gives one precise finding and
// not a wall of oneOf errors), request/response pairing, and the stateful
// rules of the rule sets the schema opts into (x-dshgen-rules; see
// rulesets.go and the ruleset package). It is what `dshgen validate` and
// `dshgen tap` run; SDK test suites can use it in-process. Memory is
// bounded on any stream (RULES.md, "Memory").
//
// Use New once per schema, then one Stream per connection or file (Feed
// each frame in arrival order, both directions, then Close), or the
// ValidateReader helper for a whole file. A Validator is safe for
// concurrent use by several Streams; a Stream is not.
package validate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/schemadoc"
	"github.com/dshgen/dshgen/gen/wire/validate/ruleset"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Options change what the validator accepts and reports.
type Options struct {
	// Snapshot validates the upstream's normalized snapshot fixtures as they
	// are: frames without "jsonrpc"; a schema error whose value is a whole
	// "{{placeholder}}" string, or a "time" of 0, is not reported; events
	// of different sessions merged under one placeholder session id are
	// told apart by their seq. Nothing else is relaxed.
	Snapshot bool
	// PromptOverlap is the severity of state.prompt-overlap: Error,
	// Warning, Info or Off; "" leaves it to the schema's
	// x-dshgen-rule-severity (revision 0.2.1: off, its runtime queues a
	// second prompt), else the rule's default (error).
	PromptOverlap Severity
	// Rules sets rules' severities by id (--rule ID=SEV); Off drops the
	// rule's findings. It wins over PromptOverlap and the schema's
	// x-dshgen-rule-severity.
	Rules map[string]Severity
	// Baseline marks the findings it accepts as Baselined (nil: none).
	Baseline *Baseline
	// FullCauses reports every leaf of the validation library's error tree,
	// unfiltered (for debugging the schema); off by default.
	FullCauses bool
}

// Validator holds one loaded schema, compiled for validation.
type Validator struct {
	model *ir.Model
	opts  Options

	// unions maps the schema location of a union's oneOf/anyOf keyword
	// ("#/$defs/SessionEvent/oneOf") to the union type.
	unions map[string]*ir.Type
	// openReach marks the types from which an open union is reachable (the
	// walker that reports unknown tags only descends into those).
	openReach map[*ir.Type]bool

	idType  *ir.Type // JsonRpcId, if the schema has it
	errType *ir.Type // JsonRpcError, if the schema has it

	// errorCodes are the compiled error object schemas of the codes the
	// schema types (ir.Model.ErrorCodes), by the code's JSON text.
	errorCodes map[string]string // schema pointers by code

	methods     map[string]*ir.Method
	methodNames string // "known: a, b" (sorted), or why there is none, for messages

	// ruleSets are the names the schema's x-dshgen-rules opts into,
	// checkers their compiled sets; ruleSev the severity overrides.
	ruleSets []string
	checkers []ruleset.Checker
	ruleSev  map[string]Severity

	// fast is the fast check by type pointer (see fast.go); nil disables it.
	fast map[string]*fnode
	// openDispatched: the fast check dispatches every open union by its tag
	// (and so counts the fallbacks it takes).
	openDispatched bool
	// reads is what the rule sets read of each method's params (nil:
	// nothing); readAll: a set reads every method's whole params
	// (project.go).
	reads   map[string]*ruleset.Selection
	readAll bool
	// noPlan turns the byte plan off (benchmarks compare).
	noPlan bool
	// intern holds the schema's member names and string literals, reused
	// by the decoder instead of allocating each occurrence.
	intern map[string]string
}

// New compiles model for validation.
func New(model *ir.Model, opts Options) (*Validator, error) {
	if model == nil {
		return nil, fmt.Errorf("validate: nil model")
	}
	if _, ok := ParseSeverity(string(opts.PromptOverlap)); !ok && opts.PromptOverlap != "" {
		return nil, fmt.Errorf("validate: bad prompt-overlap severity %q", opts.PromptOverlap)
	}
	if model.Source() == nil {
		return nil, fmt.Errorf("validate: the model was not loaded from a schema (use ir.Load)")
	}
	v := &Validator{model: model, opts: opts, unions: map[string]*ir.Type{}}
	for _, t := range model.Types {
		if t.Kind == ir.KindUnion && t.Union != nil {
			kw := t.Union.Keyword
			if kw == "" {
				kw = "oneOf"
			}
			v.unions[t.Pointer+"/"+kw] = t
		}
	}
	v.openReach = openReach(model)
	// A schema whose every file is a verified shipped one (it compiles:
	// gen/schemadoc Source.Verified) is compiled by the library on first
	// use, for the first value the fast check does not accept; any other
	// is compiled here, so that a schema the library refuses is an error
	// before the first frame.
	lazy := model.Source().Verified()
	var names []string
	v.methods = map[string]*ir.Method{}
	for _, m := range model.Methods {
		names = append(names, m.Name)
		v.methods[m.Name] = m
		for i, t := range append([]*ir.Type{m.Params, m.Result}, m.ResultAlternatives...) {
			if t == nil || lazy || (i == 0 && m.ParamsUndeclared) {
				continue
			}
			if _, err := v.schemaAt(t.Pointer); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(names)
	v.methodNames = "known: " + strings.Join(names, ", ")
	if len(names) == 0 {
		v.methodNames = "the schema declares no method: no x-methods, and none inferred"
	}
	v.idType = model.TypeByName("JsonRpcId")
	v.errType = model.TypeByName("JsonRpcError")
	for _, t := range []*ir.Type{v.idType, v.errType} {
		if t == nil || lazy {
			continue
		}
		if _, err := v.schemaAt(t.Pointer); err != nil {
			return nil, err
		}
	}
	v.errorCodes = map[string]string{}
	for _, ec := range model.ErrorCodes {
		if !lazy {
			if _, err := v.schemaAt(ec.Pointer); err != nil {
				return nil, err
			}
		}
		v.errorCodes[fmt.Sprint(ec.Code)] = ec.Pointer
	}
	if err := v.compileRuleSets(); err != nil {
		return nil, err
	}
	v.fast = v.compileFast()
	v.openDispatched = v.fast != nil
	for _, t := range model.Types {
		if t.Kind == ir.KindUnion && t.Union != nil && t.Union.Open {
			if n := v.fast[t.Pointer]; n == nil || n.byTag == nil || n.fallback < 0 {
				v.openDispatched = false
			}
		}
	}
	v.intern = internTable(model)
	v.compileReads()
	return v, nil
}

// Model returns the model the validator was built from.
func (v *Validator) Model() *ir.Model { return v.model }

// Options returns the validator's options.
func (v *Validator) Options() Options { return v.opts }

// schemaAt returns the validation library's compiled schema at a model
// pointer ("#/..." or "file.json#/..."), compiled once per loaded schema by
// the model's documents (gen/schemadoc): the same files the IR was built
// from, nothing else reachable, each meta-validated once per load.
func (v *Validator) schemaAt(ptr string) (*jsonschema.Schema, error) {
	s, err := v.model.Source().Compile(ptr)
	if err != nil {
		return nil, fmt.Errorf("validate: compiling %s: %w", ptr, err)
	}
	return s, nil
}

// typeByName returns the named $defs type of the model and its compiled
// schema, for --type mode.
func (v *Validator) typeByName(name string) (*ir.Type, *jsonschema.Schema, error) {
	t := v.model.TypeByName(name)
	if t == nil {
		var names []string
		for _, x := range v.model.Types {
			names = append(names, x.Name)
		}
		sort.Strings(names)
		return nil, nil, fmt.Errorf("no type %q in the schema (types: %s)", name, strings.Join(names, ", "))
	}
	s, err := v.schemaAt(t.Pointer)
	return t, s, err
}

// issue is one schema problem in a value, before it becomes a Finding.
type issue struct {
	ptr    string // JSON pointer inside the validated value
	schema string // "#/..." location of the failed keyword
	msg    string
	rule   string   // "" = the caller's schema rule
	sev    Severity // "" = the rule's default
	branch []string
}

// checkValue validates val (a decoded JSON value, numbers as json.Number)
// against s, whose IR type is t (may be nil), and returns the issues: the
// pruned library errors plus the unknown tags of open unions. A nil s is
// compiled from t when the library is needed (the fast check did not
// accept val).
func (v *Validator) checkValue(s *jsonschema.Schema, t *ir.Type, val any) []issue {
	var out []issue
	fv := unknown
	fallbacks := 0
	if t != nil {
		if n := v.fast[t.Pointer]; n != nil {
			fv = n.check(val, 0, &fallbacks)
		}
	}
	if fv == accept {
		// Valid: the library would say the same (see fast.go).
	} else if depth(val, 0) > MaxReportDepth {
		// The library's cost grows with the square of the nesting depth
		// (its keyword locations are rebuilt at every level): a 2 KB frame
		// of 1000 nested arrays takes it tens of seconds. Such a value is
		// not handed to it.
		name := "its type"
		if t != nil {
			name = t.Name
		}
		if fv == reject {
			out = append(out, issue{msg: fmt.Sprintf("does not match %s; it nests more than %d levels deep, so the detailed report is skipped", name, MaxReportDepth)})
		} else {
			out = append(out, issue{sev: Warning, msg: fmt.Sprintf("not checked against %s: it nests more than %d levels deep", name, MaxReportDepth)})
		}
	} else if s == nil && t == nil {
		out = append(out, issue{msg: "validate: no schema to check against"})
	} else if s == nil {
		if sch, err := v.schemaAt(t.Pointer); err != nil {
			out = append(out, issue{msg: err.Error()})
		} else {
			out = append(out, v.libraryIssues(sch, val)...)
		}
	} else {
		out = append(out, v.libraryIssues(s, val)...)
	}
	// The walker finds the unknown tags of open unions; a value the fast
	// check accepted without taking any fallback branch has none.
	if t != nil && v.openReach[t] && (fv != accept || fallbacks > 0 || !v.openDispatched) {
		w := walker{v: v}
		w.walkType(t, val, 0)
		out = append(out, w.out...)
	}
	if v.opts.Snapshot {
		out = v.dropPlaceholders(out, val)
	}
	return group(out)
}

// checkRaw is checkValue for a value still in its bytes: when the byte
// plan accepts it (and took no fallback branch that the walker would
// report), there is nothing to report and nothing is decoded; anything
// else is decoded and checked by checkValue. ok is false when raw is not
// JSON.
func (v *Validator) checkRaw(t *ir.Type, raw rawJSON) (is []issue, ok bool) {
	if v.planAccepts(t, raw) {
		return nil, true
	}
	return v.checkDecoded(t, raw)
}

// checkDecoded is checkRaw without the byte plan (for bytes it already
// did not accept).
func (v *Validator) checkDecoded(t *ir.Type, raw rawJSON) (is []issue, ok bool) {
	val, err := decodeJSON(raw)
	if err != nil {
		return nil, false
	}
	return v.checkValue(nil, t, val), true
}

// planAccepts reports whether the byte plan accepts raw as a t with
// nothing to report: no fallback branch taken that the walker would
// report as an unknown tag.
func (v *Validator) planAccepts(t *ir.Type, raw []byte) bool {
	if t == nil || v.opts.Snapshot {
		return false
	}
	n := v.fast[t.Pointer]
	if n == nil {
		return false
	}
	fb := 0
	return n.scanValue(raw, &fb) == accept && (!v.openReach[t] || (fb == 0 && v.openDispatched))
}

// libraryIssues validates val with the library: every number in it that is
// not tame is replaced by its surrogate first (num.go), and the messages
// name the numbers as they were sent.
func (v *Validator) libraryIssues(s *jsonschema.Schema, val any) []issue {
	var ss surrogates
	lv, _ := tameValue(val, &ss)
	err := s.Validate(lv)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []issue{{msg: err.Error()}}
	}
	var out []issue
	if v.opts.FullCauses {
		v.allLeaves(ve, lv, &out)
	} else {
		v.explain(ve, lv, nil, &out)
	}
	ss.restore(out)
	return out
}

// group merges the issues at one pointer (same rule, severity and branch)
// into one, messages sorted and joined, so each problem value gives one
// finding; identical messages are kept once. The library's cause order
// follows Go map order, so everything is sorted here.
// internTable collects the strings a frame is likely to repeat: the
// envelope's members, method names, and every member name, const and enum
// string of the schema.
func internTable(m *ir.Model) map[string]string {
	t := map[string]string{}
	add := func(s string) {
		if len(s) <= maxIntern {
			t[s] = s
		}
	}
	for _, s := range []string{"jsonrpc", "2.0", "id", "method", "params", "result", "error", "code", "message", "data"} {
		add(s)
	}
	for _, me := range m.Methods {
		add(me.Name)
	}
	for _, d := range m.Source().Docs() {
		d.Root.Walk(func(k string, e *schemadoc.Node) bool {
			switch k {
			case "properties":
				for _, p := range e.Keys() {
					add(p)
				}
			case "const":
				if e.Kind() == schemadoc.String {
					add(e.Str())
				}
			case "enum", "required":
				for _, it := range e.Items() {
					if it.Kind() == schemadoc.String {
						add(it.Str())
					}
				}
			case "description", "examples", "title":
				return false
			}
			return true
		})
	}
	return t
}

// MaxReportDepth is the deepest nesting of a value that is handed to the
// validation library for a detailed report (only values the fast check
// does not accept are; valid values of any depth are accepted by it).
const MaxReportDepth = 128

// depth returns the nesting depth of a decoded value (0 for a scalar),
// stopping early above MaxReportDepth.
func depth(v any, d int) int {
	if d > MaxReportDepth {
		return d
	}
	best := d
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if n := depth(e, d+1); n > best {
				best = n
			}
		}
		if len(x) == 0 {
			best = d + 1
		}
	case []any:
		for _, e := range x {
			if n := depth(e, d+1); n > best {
				best = n
			}
		}
		if len(x) == 0 {
			best = d + 1
		}
	}
	return best
}

// fastAccepts reports whether the fast check accepts val as a t.
func (v *Validator) fastAccepts(t *ir.Type, val any) bool {
	n := v.fast[t.Pointer]
	return n != nil && n.check(val, 0, nil) == accept
}

func group(in []issue) []issue {
	if len(in) < 2 {
		return in
	}
	type key struct{ ptr, rule, sev, branch string }
	byKey := map[key][]issue{}
	var keys []key
	for _, is := range in {
		k := key{is.ptr, is.rule, string(is.sev), strings.Join(is.branch, ", ")}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], is)
	}
	out := make([]issue, 0, len(keys))
	for _, k := range keys {
		g := byKey[k]
		sort.Slice(g, func(i, j int) bool { return g[i].msg < g[j].msg })
		first := g[0]
		var msgs []string
		for i, is := range g {
			if i > 0 && is.msg == g[i-1].msg {
				continue
			}
			msgs = append(msgs, is.msg)
		}
		first.msg = strings.Join(msgs, "; ")
		out = append(out, first)
	}
	return out
}

// dropPlaceholders removes, in snapshot mode, the issues whose value is a
// whole "{{…}}" string or a zeroed "time".
func (v *Validator) dropPlaceholders(in []issue, root any) []issue {
	out := in[:0]
	for _, is := range in {
		if tolerated(root, is.ptr) {
			continue
		}
		out = append(out, is)
	}
	return out
}

func tolerated(root any, ptr string) bool {
	val, ok := lookup(root, ptr)
	if !ok {
		return false
	}
	if isPlaceholder(val) {
		return true
	}
	if strings.HasSuffix(ptr, "/time") {
		if n, ok := val.(json.Number); ok && n.String() == "0" {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether val is a whole-string normalizer token such
// as "{{sessionId}}".
func isPlaceholder(val any) bool {
	s, ok := val.(string)
	return ok && len(s) > 4 && strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}") &&
		!strings.Contains(s[2:len(s)-2], "{{") && !strings.Contains(s[2:len(s)-2], "}}")
}

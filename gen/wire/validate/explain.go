package validate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// explain turns the library's error tree into issues. At a union's
// oneOf/anyOf it keeps only the causes under the branch the value selects
// (by its tag, or by its JSON type), so a frame that picked its branch and
// got one member wrong gives that one error, not every branch's. Unions by
// shape, and oneOf/anyOf the IR does not name, give one issue that groups
// each branch's reasons, unless exactly one branch fits the value's type.
func (v *Validator) explain(ve *jsonschema.ValidationError, root any, branch []string, out *[]issue) {
	loc := schemaLoc(ve.AbsoluteKeywordLocation)
	if u := v.unions[loc]; u != nil {
		v.explainUnion(ve, u, root, branch, out)
		return
	}
	if kw := lastToken(ve.KeywordLocation); (kw == "oneOf" || kw == "anyOf") && len(ve.Causes) > 0 {
		v.explainAnonymousUnion(ve, root, branch, out)
		return
	}
	if len(ve.Causes) == 0 {
		*out = append(*out, v.leaf(ve, root, branch))
		return
	}
	for _, c := range ve.Causes {
		v.explain(c, root, branch, out)
	}
}

// leaf turns a library error without causes into an issue.
func (v *Validator) leaf(ve *jsonschema.ValidationError, root any, branch []string) issue {
	msg := ve.Message
	switch lastToken(ve.KeywordLocation) {
	case "additionalProperties", "unevaluatedProperties":
		msg = sortQuotedList(msg)
	case "enum", "const":
		if val, ok := lookup(root, ve.InstanceLocation); ok {
			msg = jsonText(val) + ": " + msg
		}
	}
	return issue{ptr: ve.InstanceLocation, schema: schemaLoc(ve.AbsoluteKeywordLocation), msg: msg, branch: branch}
}

// sortQuotedList sorts the names in a library message like
// "additionalProperties 'b', 'a' not allowed", which the library builds in
// map order (findings must be the same every run).
func sortQuotedList(msg string) string {
	i := strings.IndexByte(msg, '\'')
	j := strings.LastIndexByte(msg, '\'')
	if i < 0 || j <= i {
		return msg
	}
	names := strings.Split(msg[i+1:j], "', '")
	sort.Strings(names)
	return msg[:i+1] + strings.Join(names, "', '") + msg[j:]
}

// allLeaves is the FullCauses mode: every leaf, unfiltered.
func (v *Validator) allLeaves(ve *jsonschema.ValidationError, root any, out *[]issue) {
	if len(ve.Causes) == 0 {
		*out = append(*out, v.leaf(ve, root, nil))
		return
	}
	for _, c := range ve.Causes {
		v.allLeaves(c, root, out)
	}
}

// branchCauses returns the causes of a oneOf/anyOf error that belong to
// branch idx.
func branchCauses(ve *jsonschema.ValidationError, idx int) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		if i, ok := branchIndex(ve, c); ok && i == idx {
			out = append(out, c)
		}
	}
	return out
}

// branchIndex returns the branch a cause of a oneOf/anyOf error is under.
func branchIndex(ve, c *jsonschema.ValidationError) (int, bool) {
	rest := strings.TrimPrefix(c.KeywordLocation, ve.KeywordLocation+"/")
	if rest == c.KeywordLocation {
		return 0, false
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

func (v *Validator) explainUnion(ve *jsonschema.ValidationError, t *ir.Type, root any, branch []string, out *[]issue) {
	u := t.Union
	val, _ := lookup(root, ve.InstanceLocation)
	unionLoc := strings.TrimSuffix(t.Pointer, "/") + "/" + keyword(u)
	switch u.By {
	case ir.ByTag:
		obj, ok := val.(map[string]any)
		if !ok {
			*out = append(*out, issue{ptr: ve.InstanceLocation, schema: unionLoc, branch: branch,
				msg: fmt.Sprintf("expected object (%s), but got %s", t.Name, jsonType(val))})
			return
		}
		tv, has := obj[u.Tag]
		if !has {
			*out = append(*out, issue{ptr: ve.InstanceLocation, schema: unionLoc, branch: branch, rule: RuleUnionMissingTag,
				msg: fmt.Sprintf("discriminator %q missing (%s: one of %s)", u.Tag, t.Name, knownTags(u))})
			return
		}
		tag, isStr := tv.(string)
		if !isStr {
			*out = append(*out, issue{ptr: ve.InstanceLocation + "/" + escapeToken(u.Tag), schema: unionLoc, branch: branch, rule: RuleUnionMissingTag,
				msg: fmt.Sprintf("discriminator %q must be a string, but got %s (%s)", u.Tag, jsonType(tv), t.Name)})
			return
		}
		var vr *ir.Variant
		for _, x := range u.Variants {
			if x.TagValue == tag {
				vr = x
				break
			}
		}
		idx := -1
		nb := append(append([]string(nil), branch...), u.Tag+"="+tag)
		if vr != nil {
			idx = vr.Index
		} else if u.Open {
			idx = u.FallbackIndex
		} else {
			*out = append(*out, issue{ptr: ve.InstanceLocation + "/" + escapeToken(u.Tag), schema: unionLoc, branch: branch,
				rule: RuleUnionUnknownTag, sev: Error,
				msg: fmt.Sprintf("unknown %s %s %q (not one of its %s; closed union)", t.Name, u.Tag, tag, Count(len(u.Variants), "known tag"))})
			return
		}
		v.explainBranch(ve, idx, root, nb, out)
	case ir.ByJSONType:
		jt := jsonType(val)
		for _, x := range u.Variants {
			if x.JSONType == jt || (jt == "integer" && x.JSONType == "number") {
				v.explainBranch(ve, x.Index, root, branch, out)
				return
			}
		}
		var types []string
		for _, x := range u.Variants {
			types = append(types, x.JSONType)
		}
		*out = append(*out, issue{ptr: ve.InstanceLocation, schema: unionLoc, branch: branch,
			msg: fmt.Sprintf("expected %s (%s), but got %s", strings.Join(types, " or "), t.Name, jt)})
	default:
		// By shape or by ordered tries: a value that has every required
		// member of exactly one branch, of the right JSON type, and fails
		// only inside its members picked that branch (MCP 2026-07-28's
		// InputRequiredResult | CallToolResult with a bad input request):
		// its errors are explained as if selected.
		if idx, ok := onlyFittingBranch(ve); ok {
			v.explainBranch(ve, idx, root, branch, out)
			return
		}
		names := map[int]string{}
		for _, x := range u.Variants {
			n := x.TagValue
			if x.Type != nil {
				n = x.Type.Name
			}
			names[x.Index] = n
		}
		v.groupBranches(ve, t.Name, unionLoc, names, root, branch, out)
	}
}

// explainBranch explains the causes under branch idx; when there are none
// (a oneOf whose value matched several branches) it reports the union's own
// message.
func (v *Validator) explainBranch(ve *jsonschema.ValidationError, idx int, root any, branch []string, out *[]issue) {
	cs := branchCauses(ve, idx)
	if len(cs) == 0 {
		*out = append(*out, issue{ptr: ve.InstanceLocation, schema: schemaLoc(ve.AbsoluteKeywordLocation), msg: ve.Message, branch: branch})
		return
	}
	for _, c := range cs {
		v.explain(c, root, branch, out)
	}
}

// explainAnonymousUnion handles a oneOf/anyOf the IR has no union type
// for (a nullable wrapper, an inline assertion): branches whose type does
// not even fit the value are dropped; one remaining branch is explained as
// if selected, several are grouped.
func (v *Validator) explainAnonymousUnion(ve *jsonschema.ValidationError, root any, branch []string, out *[]issue) {
	byIdx := map[int][]*jsonschema.ValidationError{}
	var order []int
	for _, c := range ve.Causes {
		i, ok := branchIndex(ve, c)
		if !ok {
			continue
		}
		if _, seen := byIdx[i]; !seen {
			order = append(order, i)
		}
		byIdx[i] = append(byIdx[i], c)
	}
	var fit []int
	for _, i := range order {
		if !typeMismatchAt(byIdx[i], ve.InstanceLocation) {
			fit = append(fit, i)
		}
	}
	if len(fit) == 1 {
		for _, c := range byIdx[fit[0]] {
			v.explain(c, root, branch, out)
		}
		return
	}
	if len(order) == 0 {
		*out = append(*out, v.leaf(ve, root, branch))
		return
	}
	v.groupBranches(ve, "", schemaLoc(ve.AbsoluteKeywordLocation), nil, root, branch, out)
}

// onlyFittingBranch returns the one branch of a failed oneOf/anyOf whose
// every error is inside the value (below its own location: a member, an
// item), when there is exactly one; a branch with an error at the value
// itself (its JSON type, a const or enum, a missing required member, a
// member it does not allow) does not fit.
func onlyFittingBranch(ve *jsonschema.ValidationError) (int, bool) {
	fits := map[int]bool{}
	var order []int
	for _, c := range ve.Causes {
		i, ok := branchIndex(ve, c)
		if !ok {
			return 0, false
		}
		if _, seen := fits[i]; !seen {
			fits[i] = true
			order = append(order, i)
		}
		if errorAt(c, ve.InstanceLocation) {
			fits[i] = false
		}
	}
	found, n := 0, 0
	for _, i := range order {
		if fits[i] {
			found, n = i, n+1
		}
	}
	return found, n == 1
}

// errorAt reports whether e has a leaf error at the instance location ptr.
func errorAt(e *jsonschema.ValidationError, ptr string) bool {
	if len(e.Causes) == 0 {
		return e.InstanceLocation == ptr
	}
	for _, c := range e.Causes {
		if errorAt(c, ptr) {
			return true
		}
	}
	return false
}

// typeMismatchAt reports whether a branch failed because the value at ptr
// has the wrong JSON type (or const/enum) for it, i.e. the branch was not
// meant for this value at all.
func typeMismatchAt(cs []*jsonschema.ValidationError, ptr string) bool {
	var walk func(*jsonschema.ValidationError) bool
	walk = func(e *jsonschema.ValidationError) bool {
		if e.InstanceLocation == ptr {
			switch lastToken(e.KeywordLocation) {
			case "type", "const", "enum":
				return true
			}
		}
		for _, c := range e.Causes {
			if c.InstanceLocation == ptr && walk(c) {
				return true
			}
		}
		return false
	}
	for _, c := range cs {
		if walk(c) {
			return true
		}
	}
	return false
}

// groupBranches reports one issue at the union's value, listing for each
// branch the reasons that ruled it out.
func (v *Validator) groupBranches(ve *jsonschema.ValidationError, name, loc string, names map[int]string, root any, branch []string, out *[]issue) {
	byIdx := map[int][]issue{}
	var order []int
	for _, c := range ve.Causes {
		i, ok := branchIndex(ve, c)
		if !ok {
			continue
		}
		if _, seen := byIdx[i]; !seen {
			order = append(order, i)
		}
		var sub []issue
		v.explain(c, root, nil, &sub)
		byIdx[i] = append(byIdx[i], sub...)
	}
	if v.opts.Snapshot {
		// A branch that fails only on placeholders matches.
		for _, i := range order {
			if len(v.dropPlaceholders(append([]issue(nil), byIdx[i]...), root)) == 0 {
				return
			}
		}
	}
	sort.Ints(order)
	var parts []string
	for _, i := range order {
		n := names[i]
		if n == "" {
			n = "branch " + strconv.Itoa(i)
		}
		var reasons []string
		for _, is := range byIdx[i] {
			r := is.msg
			if is.ptr != ve.InstanceLocation {
				r = strings.TrimPrefix(is.ptr, ve.InstanceLocation) + ": " + r
			}
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		parts = append(parts, n+": "+strings.Join(reasons, ", "))
	}
	what := "no branch"
	if name != "" {
		what = "no branch of " + name
	}
	msg := what + " matched (" + strings.Join(parts, "; ") + ")"
	if len(order) == 0 {
		msg = ve.Message
	}
	*out = append(*out, issue{ptr: ve.InstanceLocation, schema: loc, msg: msg, branch: branch})
}

func keyword(u *ir.Union) string {
	if u.Keyword == "" {
		return "oneOf"
	}
	return u.Keyword
}

// knownTags lists a union's tags, sorted and quoted.
func knownTags(u *ir.Union) string {
	var tags []string
	for _, x := range u.Variants {
		tags = append(tags, strconv.Quote(x.TagValue))
	}
	sort.Strings(tags)
	return strings.Join(tags, ", ")
}

// schemaLoc returns the "#/..." fragment of an absolute keyword location.
func schemaLoc(abs string) string {
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		return abs[i:]
	}
	return abs
}

func lastToken(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[i+1:]
	}
	return ptr
}

// escapeToken escapes one JSON pointer token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// lookup returns the value at a JSON pointer ("" is the root).
func lookup(root any, ptr string) (any, bool) {
	if ptr == "" {
		return root, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch c := cur.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonType names the JSON type of a decoded value ("integer" for a number
// without fraction or exponent).
func jsonType(val any) string {
	switch x := val.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", val)
}

// isInteger reports whether a JSON number is an integer (1, -3, 1.0, 2e3),
// exactly (see num.go).
func isInteger(n json.Number) bool { return numIsInteger(n) }

// jsonText renders a value as short JSON (long values are cut).
func jsonText(val any) string {
	if n, ok := val.(json.Number); ok {
		return showNumber(n.String())
	}
	b, err := json.Marshal(val)
	if err != nil {
		return fmt.Sprint(val)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// Finding is one reported change.
type Finding struct {
	// Rule is the rule id (see Rules).
	Rule string `json:"rule"`
	// Category is whom the change breaks; never WireBreaking.
	Category Category `json:"category"`
	// Direction is the direction of the changed payload or method
	// ("client-to-server", "server-to-client"); empty for changes with no
	// wire direction (renames, identifiers, types no method reaches).
	Direction string `json:"direction,omitempty"`
	// Breaks names the pairings of revisions that break, e.g.
	// "old clients → new server"; empty for compatible and code-only changes.
	Breaks string `json:"breaks,omitempty"`
	// Code is true when the change also breaks code compiled against the
	// generated bindings.
	Code bool `json:"code"`
	// Subject names what changed: "Type", "Type.member", "Type.member[]",
	// "Union|tag", "method m".
	Subject string `json:"subject"`
	// Old and New are JSON pointers (as the IR writes them: "#/$defs/…",
	// or "file.json#/…" for a file beside the root) of the changed node in
	// each revision. When the node does not exist on one side (something
	// added or removed), that side's pointer is the enclosing node and
	// OldAbsent/NewAbsent is true.
	Old       string `json:"old"`
	New       string `json:"new"`
	OldAbsent bool   `json:"oldAbsent,omitempty"`
	NewAbsent bool   `json:"newAbsent,omitempty"`
	// Message says what changed, in one line.
	Message string `json:"message"`
}

// Report is the result of comparing two revisions.
type Report struct {
	// Old and New label the two revisions (file paths or REV:path).
	Old string `json:"old"`
	New string `json:"new"`
	// Findings are sorted by category (worst first), subject, rule,
	// direction and pointers.
	Findings []Finding `json:"findings"`
}

// Compare reports every change from old to new. oldLabel and newLabel name
// the revisions in the report. It never fails: both models are already
// valid.
func Compare(old, new *ir.Model, oldLabel, newLabel string) *Report {
	d := &differ{
		old: old, new: new,
		oraw: newRawDocs(old), nraw: newRawDocs(new),
		match: map[*ir.Type]*ir.Type{}, rmatch: map[*ir.Type]*ir.Type{},
		renamed: map[*ir.Type]string{},
		oflow:   flows(old), nflow: flows(new),
		done: map[[2]*ir.Type]bool{},
		seen: map[string]bool{},
	}
	d.noMethods = len(old.Methods) == 0 && len(new.Methods) == 0
	d.matchTypes()
	d.types()
	d.methods()
	for len(d.queue) > 0 {
		p := d.queue[0]
		d.queue = d.queue[1:]
		d.comparePair(p[0], p[1])
	}
	sortFindings(d.findings)
	return &Report{Old: oldLabel, New: newLabel, Findings: d.findings}
}

type differ struct {
	old, new     *ir.Model
	oraw, nraw   *rawDocs
	match        map[*ir.Type]*ir.Type // old → new
	rmatch       map[*ir.Type]*ir.Type // new → old
	renamed      map[*ir.Type]string   // old type → how its rename was found
	oflow, nflow map[*ir.Type]dirSet
	noMethods    bool
	queue        [][2]*ir.Type
	done         map[[2]*ir.Type]bool
	findings     []Finding
	seen         map[string]bool
}

// site is where a compared value lives in both revisions.
type site struct {
	subject        string
	oldPtr, newPtr string
	oldNode        map[string]any // constraint node of the value schema (may be nil)
	newNode        map[string]any
	dirs           dirSet
}

// child is the site of an array item or map value.
func (s site) child(label, ptr, key string) site {
	return site{
		subject: s.subject + label,
		oldPtr:  s.oldPtr + ptr, newPtr: s.newPtr + ptr,
		oldNode: childNode(s.oldNode, key), newNode: childNode(s.newNode, key),
		dirs: s.dirs,
	}
}

// enqueue schedules the comparison of an old and a new type.
func (d *differ) enqueue(o, n *ir.Type) {
	if o == nil || n == nil {
		return
	}
	k := [2]*ir.Type{o, n}
	if d.done[k] {
		return
	}
	d.done[k] = true
	d.queue = append(d.queue, k)
}

// emit records a finding of rule at s. effect 0 takes the rule's effect.
// A per-direction rule makes one finding per direction of s (none reached:
// the wire part is dropped and the finding says so).
func (d *differ) emit(rule string, s site, effect Effect, oldAbsent, newAbsent bool, format string, args ...any) {
	r := RuleByID(rule)
	if r == nil {
		panic("diff: unknown rule " + rule)
	}
	if effect == 0 {
		effect = r.Effect
	}
	msg := fmt.Sprintf(format, args...)
	f := Finding{Rule: rule, Code: r.Code, Subject: s.subject, Old: s.oldPtr, New: s.newPtr, OldAbsent: oldAbsent, NewAbsent: newAbsent, Message: msg}
	if !r.PerDirection || r.Category == CodeBreaking {
		// Code-only changes do not depend on the direction.
		f.Category = r.Category
		d.add(f)
		return
	}
	dirs := s.dirs
	if dirs == 0 {
		// No method reaches the type (an envelope definition, or a type
		// only $defs holds): assume the worst, both directions.
		dirs = dirBoth
		if !d.noMethods {
			f.Message += " (no method uses this type: checked as travelling both ways)"
		}
	}
	for _, dir := range dirs.names() {
		g := f
		g.Direction = dir
		g.Category, g.Breaks = resolve(r.Category, dir, effect)
		d.add(g)
	}
}

// emitMethod records a finding about a method, sent in direction dir (a
// method both sides send: one finding per direction).
func (d *differ) emitMethod(rule string, dir ir.Direction, s site, oldAbsent, newAbsent bool, format string, args ...any) {
	if dir == ir.Both {
		d.emitMethod(rule, ir.ClientToServer, s, oldAbsent, newAbsent, format, args...)
		d.emitMethod(rule, ir.ServerToClient, s, oldAbsent, newAbsent, format, args...)
		return
	}
	r := RuleByID(rule)
	f := Finding{Rule: rule, Code: r.Code, Subject: s.subject, Old: s.oldPtr, New: s.newPtr, OldAbsent: oldAbsent, NewAbsent: newAbsent,
		Message: fmt.Sprintf(format, args...), Direction: string(dir)}
	f.Category, f.Breaks = resolve(r.Category, string(dir), r.Effect)
	d.add(f)
}

// resolve turns a rule category into a finding's category and pairing text.
func resolve(c Category, dir string, e Effect) (Category, string) {
	switch c {
	case WireBreaking:
		if dir == string(ir.ServerToClient) {
			return WireBreakingS2C, breaksText(dir, e, false)
		}
		return WireBreakingC2S, breaksText(dir, e, false)
	case StrictReceivers:
		return c, breaksText(dir, e, true)
	}
	return c, ""
}

func (d *differ) add(f Finding) {
	k := strings.Join([]string{f.Rule, f.Direction, f.Subject, f.Old, f.New, f.Message}, "\x00")
	if d.seen[k] {
		return
	}
	d.seen[k] = true
	d.findings = append(d.findings, f)
}

// dirsOf is the union of the directions o travels in the old revision and
// n in the new one.
func (d *differ) dirsOf(o, n *ir.Type) dirSet {
	var s dirSet
	if o != nil {
		s |= d.oflow[o]
	}
	if n != nil {
		s |= d.nflow[n]
	}
	return s
}

// types reports added, removed and renamed types and schedules the
// comparison of every pair.
func (d *differ) types() {
	for _, o := range d.old.Types {
		n := d.match[o]
		if n == nil {
			s := site{subject: o.Name, oldPtr: o.Pointer, newPtr: "#/$defs"}
			d.emit("type-removed", s, 0, false, true, "type %s was removed", o.Name)
			continue
		}
		if o.Name != n.Name {
			s := site{subject: o.Name + " → " + n.Name, oldPtr: o.Pointer, newPtr: n.Pointer}
			how := "same shape"
			if d.renamed[o] == "usage" {
				how = "same usage sites"
			}
			d.emit("type-renamed", s, 0, false, false, "type %s is now %s (found by: %s); the rename itself changes no wire byte", o.Name, n.Name, how)
		}
		d.enqueue(o, n)
	}
	for _, n := range d.new.Types {
		if d.rmatch[n] == nil {
			s := site{subject: n.Name, oldPtr: "#/$defs", newPtr: n.Pointer}
			d.emit("type-added", s, 0, true, false, "type %s was added", n.Name)
		}
	}
}

// methods compares the x-methods catalogues.
func (d *differ) methods() {
	for _, om := range d.old.Methods {
		nm := d.new.Method(om.Name)
		s := site{subject: "method " + om.Name, oldPtr: om.Pointer, newPtr: "#/x-methods"}
		if nm == nil {
			if om.Kind == ir.Request {
				d.emitMethod("request-removed", om.Direction, s, false, true, "%s request %s was removed", sentBy(om.Direction), om.Name)
			} else {
				d.emitMethod("notification-removed", om.Direction, s, false, true, "%s notification %s was removed", sentBy(om.Direction), om.Name)
			}
			continue
		}
		s.newPtr = nm.Pointer
		if om.Names != nm.Names {
			d.emit("method-identifier-changed", s, 0, false, false, "generated identifiers of %s changed: %s", om.Name, namesDiff(om.Names, nm.Names))
		}
		if om.Kind != nm.Kind {
			d.emitMethod("method-kind-changed", nm.Direction, site{subject: s.subject, oldPtr: om.Pointer + "/kind", newPtr: nm.Pointer + "/kind"}, false, false,
				"%s changed from %s to %s", om.Name, om.Kind, nm.Kind)
		}
		if om.Direction != nm.Direction {
			ds := site{subject: s.subject, oldPtr: om.Pointer + "/direction", newPtr: nm.Pointer + "/direction"}
			d.emitMethod("method-direction-changed", om.Direction, ds, false, false, "%s was sent %s and is now sent %s", om.Name, sentBy(om.Direction), sentBy(nm.Direction))
			d.emitMethod("method-direction-changed", nm.Direction, ds, false, false, "%s was sent %s and is now sent %s", om.Name, sentBy(om.Direction), sentBy(nm.Direction))
		}
		if om.ParamsOptional != nm.ParamsOptional {
			ps := site{subject: s.subject, oldPtr: om.Pointer, newPtr: nm.Pointer}
			if nm.ParamsOptional {
				ps.newPtr += "/paramsOptional"
				d.emitMethod("params-made-optional", nm.Direction, ps, false, false, "params of %s may now be absent", om.Name)
			} else {
				ps.oldPtr += "/paramsOptional"
				d.emitMethod("params-made-required", nm.Direction, ps, false, false, "params of %s are now required", om.Name)
			}
		}
		if om.Params != nil && nm.Params != nil && !d.paired(om.Params, nm.Params) {
			d.emit("method-params-type-changed", site{subject: s.subject, oldPtr: om.Pointer + "/params", newPtr: nm.Pointer + "/params"}, 0, false, false,
				"params of %s changed from %s to %s", om.Name, typeText(om.Params), typeText(nm.Params))
			d.enqueue(om.Params, nm.Params)
		}
		if om.Result != nil && nm.Result != nil && !d.paired(om.Result, nm.Result) {
			d.emit("method-result-type-changed", site{subject: s.subject, oldPtr: om.Pointer + "/result", newPtr: nm.Pointer + "/result"}, 0, false, false,
				"result of %s changed from %s to %s", om.Name, resultText(om), resultText(nm))
			d.enqueue(om.Result, nm.Result)
		}
	}
	for _, nm := range d.new.Methods {
		if d.old.Method(nm.Name) != nil {
			continue
		}
		s := site{subject: "method " + nm.Name, oldPtr: "#/x-methods", newPtr: nm.Pointer}
		if nm.Kind == ir.Request {
			d.emitMethod("request-added", nm.Direction, s, true, false, "%s request %s was added", sentBy(nm.Direction), nm.Name)
		} else {
			d.emitMethod("notification-added", nm.Direction, s, true, false, "%s notification %s was added", sentBy(nm.Direction), nm.Name)
		}
	}
}

// sentBy says who sends a method: its direction, or "by both sides".
func sentBy(d ir.Direction) string {
	if d == ir.Both {
		return "both-ways"
	}
	return string(d)
}

// typeText names a method's params or result type; a union the schema
// writes inline is named with its branches ("CallToolResultResponseResult
// (InputRequiredResult | CallToolResult)").
func typeText(t *ir.Type) string {
	if t.Kind != ir.KindUnion || t.Union == nil || strings.HasPrefix(t.Pointer, "#/$defs/") && !strings.Contains(strings.TrimPrefix(t.Pointer, "#/$defs/"), "/") {
		return t.Name
	}
	vs := append([]*ir.Variant(nil), t.Union.Variants...)
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Index < vs[j].Index })
	var bs []string
	for _, v := range vs {
		if v.Type != nil {
			bs = append(bs, v.Type.Name)
		}
	}
	return t.Name + " (" + strings.Join(bs, " | ") + ")"
}

// resultText is typeText of a method's result with the alternatives a
// success response may carry instead.
func resultText(m *ir.Method) string {
	s := typeText(m.Result)
	for _, a := range m.ResultAlternatives {
		s += " or " + typeText(a)
	}
	return s
}

func namesDiff(o, n ir.Names) string {
	var parts []string
	for _, l := range ir.Langs {
		if o.Of(l) != n.Of(l) {
			parts = append(parts, fmt.Sprintf("%s %s → %s", l, o.Of(l), n.Of(l)))
		}
	}
	return strings.Join(parts, ", ")
}

// comparePair compares an old type with the new type it is matched with
// (same name, rename, or the type a method/member/variant now uses).
func (d *differ) comparePair(o, n *ir.Type) {
	subject := n.Name
	if o.Name != n.Name {
		subject = o.Name + " → " + n.Name
	}
	s := site{subject: subject, oldPtr: o.Pointer, newPtr: n.Pointer,
		oldNode: constraintNode(d.oraw.node(o.Pointer)), newNode: constraintNode(d.nraw.node(n.Pointer)),
		dirs: d.dirsOf(o, n)}
	if o.Name == n.Name && o.Names != n.Names {
		d.emit("type-identifier-changed", s, 0, false, false, "generated identifiers of %s changed: %s", o.Name, namesDiff(o.Names, n.Names))
	}
	switch {
	case o.Kind == n.Kind && o.Kind == ir.KindObject:
		d.compareObject(o, n, s)
	case o.Kind == n.Kind && o.Kind == ir.KindUnion:
		d.compareUnion(o, n, s)
	case o.Kind == n.Kind && o.Kind == ir.KindEnum:
		d.compareEnum(o, n, s)
	case o.Kind == n.Kind && o.Kind == ir.KindAlias:
		d.compareRef(o.Alias, n.Alias, s)
	case o.Kind == ir.KindAlias || n.Kind == ir.KindAlias || o.Kind == ir.KindEnum && n.Kind != ir.KindUnion || n.Kind == ir.KindEnum && o.Kind != ir.KindUnion:
		// An alias (or enum) on one side: compare what the values are.
		if (o.Kind == ir.KindObject || o.Kind == ir.KindUnion) && n.Kind == ir.KindEnum ||
			(n.Kind == ir.KindObject || n.Kind == ir.KindUnion) && o.Kind == ir.KindEnum {
			d.emit("type-kind-changed", s, 0, false, false, "%s changed from %s to %s", subject, o.Kind, n.Kind)
			return
		}
		ov := d.unwrap(&ir.TypeRef{Kind: ir.RefNamed, Named: o}, nil, true)
		nv := d.unwrap(&ir.TypeRef{Kind: ir.RefNamed, Named: n}, nil, false)
		if ov.kind == ir.RefNamed && nv.kind == ir.RefNamed && ov.named == o && nv.named == n {
			return
		}
		d.compareViews(ov, nv, s)
	default:
		d.emit("type-kind-changed", s, 0, false, false, "%s changed from %s to %s", subject, o.Kind, n.Kind)
	}
}

// isTag reports whether member wire of t is the tag of a tagged union t is
// a variant of (tag changes are reported by the union).
func isTag(t *ir.Type, wire string) bool {
	for _, u := range t.Unions {
		if u.Union.By == ir.ByTag && u.Union.Tag == wire {
			return true
		}
	}
	if t.FallbackOf != nil && t.FallbackOf.Union.Tag == wire {
		return true
	}
	return false
}

func (d *differ) compareObject(o, n *ir.Type, s site) {
	if o.Closed && !n.Closed {
		d.emit("object-opened", s, 0, false, false, "%s was closed (additionalProperties: false) and is now open", s.subject)
	}
	if !o.Closed && n.Closed {
		d.emit("object-closed", s, 0, false, false, "%s was open and is now closed (additionalProperties: false)", s.subject)
	}
	nf := map[string]*ir.Field{}
	for _, f := range n.Fields {
		nf[f.Wire] = f
	}
	of := map[string]*ir.Field{}
	for _, f := range o.Fields {
		of[f.Wire] = f
		g := nf[f.Wire]
		ms := site{subject: s.subject + "." + f.Wire, oldPtr: f.Pointer, newPtr: n.Pointer, dirs: s.dirs}
		if g == nil {
			switch {
			case n.Closed:
				if f.Required {
					d.emit("required-member-removed", ms, 0, false, true, "required member %q was removed", f.Wire)
				}
				d.emit("member-removed-from-closed-object", ms, 0, false, true, "member %q was removed from the closed object %s", f.Wire, s.subject)
			case f.Required:
				d.emit("required-member-removed", ms, 0, false, true, "required member %q was removed", f.Wire)
			default:
				d.emit("optional-member-removed", ms, 0, false, true, "optional member %q was removed", f.Wire)
			}
			continue
		}
		d.compareField(o, n, f, g, s)
	}
	for _, g := range n.Fields {
		if of[g.Wire] != nil {
			continue
		}
		ms := site{subject: s.subject + "." + g.Wire, oldPtr: o.Pointer, newPtr: g.Pointer, dirs: s.dirs}
		if g.Required {
			d.emit("required-member-added", ms, 0, true, false, "member %q was added as required", g.Wire)
		}
		if o.Closed {
			d.emit("member-added-to-closed-object", ms, 0, true, false, "member %q was added to the closed object %s", g.Wire, s.subject)
		} else if !g.Required {
			d.emit("optional-member-added", ms, 0, true, false, "optional member %q was added", g.Wire)
		}
	}
	d.forbidden(o, n, s, of, nf)
	if !o.Closed && !n.Closed && (o.Extra != nil || n.Extra != nil) {
		any := &ir.TypeRef{Kind: ir.RefJSON}
		oe, ne := o.Extra, n.Extra
		if oe == nil {
			oe = any
		}
		if ne == nil {
			ne = any
		}
		es := s.child(".*", "/additionalProperties", "additionalProperties")
		d.compareRef(oe, ne, es)
	}
}

// forbidden compares the members each revision forbids with a not
// assertion (forbiddenMembers): a member the old revision could carry (it
// declared it, or the object was open) that the new one forbids, and the
// reverse.
func (d *differ) forbidden(o, n *ir.Type, s site, of, nf map[string]*ir.Field) {
	ofb := forbiddenMembers(d.oraw.node(o.Pointer), o.Pointer)
	nfb := forbiddenMembers(d.nraw.node(n.Pointer), n.Pointer)
	for _, m := range sortedKeys(nfb) {
		if _, was := ofb[m]; was || (of[m] == nil && o.Closed) {
			continue
		}
		oldPtr := o.Pointer
		if f := of[m]; f != nil {
			oldPtr = f.Pointer
		}
		ms := site{subject: s.subject + "." + m, oldPtr: oldPtr, newPtr: nfb[m], dirs: s.dirs}
		d.emit("member-forbidden", ms, 0, false, false, "member %q is now forbidden (%s)", m, strings.TrimPrefix(nfb[m], n.Pointer+"/"))
	}
	for _, m := range sortedKeys(ofb) {
		if _, still := nfb[m]; still || (nf[m] == nil && n.Closed) {
			continue
		}
		newPtr := n.Pointer
		if g := nf[m]; g != nil {
			newPtr = g.Pointer
		}
		ms := site{subject: s.subject + "." + m, oldPtr: ofb[m], newPtr: newPtr, dirs: s.dirs}
		d.emit("member-unforbidden", ms, 0, false, false, "member %q was forbidden (%s) and is now allowed", m, strings.TrimPrefix(ofb[m], o.Pointer+"/"))
	}
}

// forbiddenMembers returns the members an object schema node forbids, by
// name, each with the pointer of its assertion: "not": {"required": [m,
// ...]} (the object may not have all of them: with one name, m is
// forbidden), "not": {"anyOf": [{"required": [m]}, ...]} (none of them),
// on the node itself or inside its allOf, recursively.
func forbiddenMembers(n any, ptr string) map[string]string {
	out := map[string]string{}
	var walk func(node map[string]any, at string, depth int)
	walk = func(node map[string]any, at string, depth int) {
		if node == nil || depth > 8 {
			return
		}
		if not, ok := node["not"].(map[string]any); ok {
			if req := requiredOnly(not); len(req) == 1 {
				out[req[0]] = at + "/not"
			}
			if alts, ok := not["anyOf"].([]any); ok && len(not) == 1 {
				for i, a := range alts {
					am, _ := a.(map[string]any)
					for _, r := range requiredOnly(am) {
						out[r] = fmt.Sprintf("%s/not/anyOf/%d", at, i)
					}
				}
			}
		}
		if all, ok := node["allOf"].([]any); ok {
			for i, a := range all {
				am, _ := a.(map[string]any)
				walk(am, fmt.Sprintf("%s/allOf/%d", at, i), depth+1)
			}
		}
	}
	m, _ := n.(map[string]any)
	walk(m, ptr, 0)
	return out
}

// requiredOnly returns the names of a schema that is only {"required":
// [...]} (with an optional description), else nil.
func requiredOnly(m map[string]any) []string {
	if m == nil {
		return nil
	}
	for k := range m {
		if k != "required" && k != "description" && k != "$comment" {
			return nil
		}
	}
	req, _ := m["required"].([]any)
	var out []string
	for _, r := range req {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (d *differ) compareField(ot, nt *ir.Type, f, g *ir.Field, s site) {
	ms := site{subject: s.subject + "." + f.Wire, oldPtr: f.Pointer, newPtr: g.Pointer,
		oldNode: constraintNode(d.oraw.node(f.Pointer)), newNode: constraintNode(d.nraw.node(g.Pointer)), dirs: s.dirs}
	if f.Names != g.Names {
		d.emit("member-identifier-changed", ms, 0, false, false, "generated identifiers of member %q changed: %s", f.Wire, namesDiff(f.Names, g.Names))
	}
	if f.Required && !g.Required {
		d.emit("member-made-optional", ms, 0, false, false, "member %q was required and is now optional", f.Wire)
	}
	if !f.Required && g.Required {
		d.emit("member-made-required", ms, 0, false, false, "member %q was optional and is now required", f.Wire)
	}
	if !isTag(ot, f.Wire) && !isTag(nt, g.Wire) {
		switch {
		case f.Const != nil && g.Const != nil && *f.Const != *g.Const:
			d.emit("const-changed", ms, 0, false, false, "member %q changed from const %s to const %s", f.Wire, *f.Const, *g.Const)
			return
		case f.Const == nil && g.Const != nil:
			d.emit("const-added", ms, 0, false, false, "member %q is now pinned to const %s", f.Wire, *g.Const)
		case f.Const != nil && g.Const == nil:
			d.emit("const-removed", ms, 0, false, false, "member %q is no longer pinned to const %s", f.Wire, *f.Const)
		}
	} else if f.Const != nil && g.Const != nil {
		return // the union compares tag values
	}
	d.compareRef(&f.Type, &g.Type, ms)
}

// view is a value's wire shape: aliases followed, named enums as string
// enums, constraint nodes merged along the way.
type view struct {
	kind     ir.RefKind
	named    *ir.Type // RefNamed: an object or union type
	enum     []string // RefString with an enum (named or inline)
	hasEnum  bool
	elem     *ir.TypeRef
	nullable bool
	node     map[string]any
	via      *ir.Type // the first named type met (alias, enum, object, union), for code identity
}

func merge(a, b map[string]any) map[string]any {
	if b == nil {
		return a
	}
	if a == nil {
		return b
	}
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

func (d *differ) unwrap(r *ir.TypeRef, node map[string]any, old bool) view {
	raw := d.nraw
	if old {
		raw = d.oraw
	}
	v := view{nullable: r.Nullable, node: node}
	cur := r
	for i := 0; i < 64 && cur.Kind == ir.RefNamed; i++ {
		t := cur.Named
		if v.via == nil {
			v.via = t
		}
		switch t.Kind {
		case ir.KindAlias:
			v.node = merge(v.node, constraintNode(raw.node(t.Pointer)))
			cur = t.Alias
			v.nullable = v.nullable || cur.Nullable
			continue
		case ir.KindEnum:
			v.kind = ir.RefString
			v.hasEnum = true
			for _, e := range t.Enum {
				v.enum = append(v.enum, e.Value)
			}
			v.node = merge(v.node, constraintNode(raw.node(t.Pointer)))
			return v
		default:
			v.kind, v.named = ir.RefNamed, t
			return v
		}
	}
	v.kind, v.elem = cur.Kind, cur.Elem
	if len(cur.Enum) > 0 {
		v.enum, v.hasEnum = cur.Enum, true
	}
	return v
}

// compareRef compares one use of a value in both revisions.
func (d *differ) compareRef(o, n *ir.TypeRef, s site) {
	if o.Kind == ir.RefNamed && n.Kind == ir.RefNamed {
		if o.Nullable != n.Nullable {
			d.nullable(o.Nullable, n.Nullable, s)
		}
		d.constraints(s.oldNode, s.newNode, s)
		if !d.paired(o.Named, n.Named) {
			d.emit("value-ref-changed", s, 0, false, false, "%s now refers to %s instead of %s", s.subject, n.Named.Name, o.Named.Name)
			d.enqueue(o.Named, n.Named)
		}
		return
	}
	ov, nv := d.unwrap(o, s.oldNode, true), d.unwrap(n, s.newNode, false)
	if (ov.via == nil) != (nv.via == nil) {
		from, to := "an inline schema", "an inline schema"
		if ov.via != nil {
			from = ov.via.Name
		}
		if nv.via != nil {
			to = nv.via.Name
		}
		d.emit("value-ref-changed", s, 0, false, false, "%s changed from %s to %s", s.subject, from, to)
	}
	d.compareViews(ov, nv, s)
}

func (d *differ) nullable(o, n bool, s site) {
	if n {
		d.emit("nullable-added", s, 0, false, false, "%s may now be null", s.subject)
	} else {
		d.emit("nullable-removed", s, 0, false, false, "%s may no longer be null", s.subject)
	}
}

func kindName(v view) string {
	switch v.kind {
	case ir.RefString:
		if v.hasEnum {
			return "string enum"
		}
		return "string"
	case ir.RefInteger:
		return "integer"
	case ir.RefNumber:
		return "number"
	case ir.RefBoolean:
		return "boolean"
	case ir.RefJSON:
		return "any JSON value"
	case ir.RefNamed:
		return v.named.Kind.String() + " " + v.named.Name
	case ir.RefArray:
		return "array"
	case ir.RefMap:
		return "map"
	case ir.RefNull:
		return "null"
	}
	return "?"
}

func (d *differ) compareViews(ov, nv view, s site) {
	if ov.nullable != nv.nullable {
		d.nullable(ov.nullable, nv.nullable, s)
	}
	if ov.kind == ir.RefNamed && nv.kind == ir.RefNamed {
		if !d.paired(ov.named, nv.named) {
			d.enqueue(ov.named, nv.named)
		}
		return
	}
	if ov.kind != nv.kind {
		switch {
		case ov.kind == ir.RefInteger && nv.kind == ir.RefNumber, nv.kind == ir.RefJSON:
			d.emit("value-type-widened", s, 0, false, false, "%s changed from %s to %s", s.subject, kindName(ov), kindName(nv))
		case ov.kind == ir.RefNumber && nv.kind == ir.RefInteger, ov.kind == ir.RefJSON:
			d.emit("value-type-narrowed", s, 0, false, false, "%s changed from %s to %s", s.subject, kindName(ov), kindName(nv))
		default:
			d.emit("value-type-changed", s, 0, false, false, "%s changed from %s to %s", s.subject, kindName(ov), kindName(nv))
		}
		return
	}
	switch ov.kind {
	case ir.RefString:
		d.enumValues(ov, nv, s)
	case ir.RefArray:
		d.compareRef(ov.elem, nv.elem, s.child("[]", "/items", "items"))
	case ir.RefMap:
		d.compareRef(ov.elem, nv.elem, s.child("{}", "/additionalProperties", "additionalProperties"))
	}
	d.constraints(ov.node, nv.node, s)
}

// enumValues compares the value sets of two string values (either may be
// an enum).
func (d *differ) enumValues(ov, nv view, s site) {
	switch {
	case !ov.hasEnum && !nv.hasEnum:
	case ov.hasEnum && !nv.hasEnum:
		d.emit("enum-value-added", s, 0, false, false, "%s was the enum %s and is now any string", s.subject, jsonText(ov.enum))
	case !ov.hasEnum && nv.hasEnum:
		d.emit("enum-value-removed", s, 0, false, false, "%s was any string and is now the enum %s", s.subject, jsonText(nv.enum))
	default:
		have := map[string]bool{}
		for _, v := range nv.enum {
			have[v] = true
		}
		had := map[string]bool{}
		for _, v := range ov.enum {
			had[v] = true
			if !have[v] {
				d.emit("enum-value-removed", s, 0, false, false, "enum value %q was removed from %s", v, s.subject)
			}
		}
		for _, v := range nv.enum {
			if !had[v] {
				d.emit("enum-value-added", s, 0, false, false, "enum value %q was added to %s", v, s.subject)
			}
		}
	}
}

func (d *differ) constraints(o, n map[string]any, s site) {
	for _, c := range compareConstraints(o, n) {
		d.emit(c.rule, s, 0, false, false, "%s: %s %s → %s", s.subject, c.key, jsonText(c.old), jsonText(c.new))
	}
}

func (d *differ) compareEnum(o, n *ir.Type, s site) {
	nv := map[string]*ir.EnumValue{}
	for _, v := range n.Enum {
		nv[v.Value] = v
	}
	ov := map[string]bool{}
	for _, v := range o.Enum {
		ov[v.Value] = true
		w := nv[v.Value]
		if w == nil {
			d.emit("enum-value-removed", site{subject: s.subject, oldPtr: v.Pointer, newPtr: n.Pointer, dirs: s.dirs}, 0, false, true, "enum value %q was removed from %s", v.Value, s.subject)
			continue
		}
		if v.Names != w.Names && !followsTypeName(o, n, v, w) {
			d.emit("enum-identifier-changed", site{subject: s.subject, oldPtr: v.Pointer, newPtr: w.Pointer}, 0, false, false,
				"generated constant of %s value %q changed: %s", s.subject, v.Value, namesDiff(v.Names, w.Names))
		}
	}
	for _, w := range n.Enum {
		if !ov[w.Value] {
			d.emit("enum-value-added", site{subject: s.subject, oldPtr: o.Pointer, newPtr: w.Pointer, dirs: s.dirs}, 0, true, false, "enum value %q was added to %s", w.Value, s.subject)
		}
	}
	d.constraints(s.oldNode, s.newNode, s)
}

// followsTypeName reports whether an enum constant's identifiers changed
// only because its type's Go name did (Go constants are the type name plus
// the value): that change is reported once, for the type.
func followsTypeName(o, n *ir.Type, v, w *ir.EnumValue) bool {
	og, ng := o.Names.Of(ir.LangGo), n.Names.Of(ir.LangGo)
	if og == ng || !strings.HasPrefix(v.Names.Of(ir.LangGo), og) {
		return false
	}
	want := v.Names
	want[ir.LangGo] = ng + strings.TrimPrefix(v.Names.Of(ir.LangGo), og)
	return want == w.Names
}

var byName = [...]string{ir.ByTag: "tag", ir.ByJSONType: "JSON type", ir.ByShape: "shape", ir.ByTry: "ordered tries"}

func (d *differ) compareUnion(o, n *ir.Type, s site) {
	ou, nu := o.Union, n.Union
	if ou.By != nu.By {
		d.emit("union-mode-changed", s, 0, false, false, "%s was chosen by %s and is now chosen by %s", s.subject, byName[ou.By], byName[nu.By])
		return
	}
	if ou.By == ir.ByTag {
		d.compareTagged(o, n, s)
		return
	}
	// By JSON type or by shape: match branches by JSON type, or by paired
	// type / required member set.
	key := func(v *ir.Variant, old bool) string {
		if ou.By == ir.ByJSONType {
			return v.JSONType
		}
		name := v.Type.Name
		if old && d.match[v.Type] != nil {
			name = d.match[v.Type].Name
		}
		return name
	}
	nk := map[string]*ir.Variant{}
	for _, w := range nu.Variants {
		nk[key(w, false)] = w
	}
	ok := map[string]bool{}
	for _, v := range ou.Variants {
		k := key(v, true)
		ok[k] = true
		vs := site{subject: s.subject + "|" + k, oldPtr: v.Pointer, newPtr: n.Pointer + "/" + nu.Keyword, dirs: s.dirs}
		w := nk[k]
		if w == nil {
			d.emit("union-branch-removed", vs, 0, false, true, "branch %s was removed from %s", k, s.subject)
			continue
		}
		vs.newPtr = w.Pointer
		d.compareRef(&ir.TypeRef{Kind: ir.RefNamed, Named: v.Type}, &ir.TypeRef{Kind: ir.RefNamed, Named: w.Type}, vs)
	}
	for _, w := range nu.Variants {
		k := key(w, false)
		if !ok[k] {
			vs := site{subject: s.subject + "|" + k, oldPtr: o.Pointer + "/" + ou.Keyword, newPtr: w.Pointer, dirs: s.dirs}
			d.emit("union-branch-added", vs, 0, true, false, "branch %s was added to %s", k, s.subject)
		}
	}
}

func (d *differ) compareTagged(o, n *ir.Type, s site) {
	ou, nu := o.Union, n.Union
	if ou.Tag != nu.Tag {
		d.emit("union-tag-changed", s, 0, false, false, "%s was tagged by %q and is now tagged by %q", s.subject, ou.Tag, nu.Tag)
		return
	}
	if !ou.Open && nu.Open {
		d.emit("union-opened", site{subject: s.subject, oldPtr: o.Pointer, newPtr: nu.FallbackPointer, dirs: s.dirs}, 0, false, false,
			"%s gained a fallback branch: unknown %q values are now valid", s.subject, nu.Tag)
	}
	if ou.Open && !nu.Open {
		d.emit("union-closed", site{subject: s.subject, oldPtr: ou.FallbackPointer, newPtr: n.Pointer, dirs: s.dirs}, 0, false, false,
			"%s lost its fallback branch: unknown %q values are now errors", s.subject, ou.Tag)
	}
	nt := map[string]*ir.Variant{}
	for _, w := range nu.Variants {
		nt[w.TagValue] = w
	}
	ot := map[string]*ir.Variant{}
	for _, v := range ou.Variants {
		ot[v.TagValue] = v
	}
	retagged := map[*ir.Variant]bool{}
	for _, v := range ou.Variants {
		vs := site{subject: s.subject + "|" + v.TagValue, oldPtr: v.Pointer, dirs: s.dirs}
		if w := nt[v.TagValue]; w != nil {
			vs.newPtr = w.Pointer
			if !d.paired(v.Type, w.Type) {
				d.emit("union-variant-type-changed", vs, 0, false, false, "the %q variant of %s changed from %s to %s", v.TagValue, s.subject, v.Type.Name, w.Type.Name)
				d.enqueue(v.Type, w.Type)
			}
			continue
		}
		var moved *ir.Variant
		for _, w := range nu.Variants {
			if ot[w.TagValue] == nil && d.paired(v.Type, w.Type) {
				moved = w
				break
			}
		}
		if moved != nil {
			retagged[moved] = true
			vs.newPtr = moved.Pointer
			d.emit("union-variant-tag-changed", vs, 0, false, false, "variant %s of %s changed its %q from %q to %q", moved.Type.Name, s.subject, ou.Tag, v.TagValue, moved.TagValue)
			continue
		}
		vs.newPtr = n.Pointer + "/" + nu.Keyword
		if nu.Open {
			d.emit("open-union-variant-removed", vs, 0, false, true, "variant %q was removed from open union %s", v.TagValue, s.subject)
		} else {
			d.emit("union-variant-removed", vs, 0, false, true, "variant %q was removed from %s", v.TagValue, s.subject)
		}
	}
	for _, w := range nu.Variants {
		if ot[w.TagValue] != nil || retagged[w] {
			continue
		}
		vs := site{subject: s.subject + "|" + w.TagValue, oldPtr: o.Pointer + "/" + ou.Keyword, newPtr: w.Pointer, dirs: s.dirs}
		if ou.Open {
			d.emit("open-union-variant-added", vs, 0, true, false, "variant %q was added to open union %s", w.TagValue, s.subject)
		} else {
			d.emit("union-variant-added", vs, 0, true, false, "variant %q was added to %s", w.TagValue, s.subject)
		}
	}
}

// sortFindings orders findings worst category first, then by subject, rule,
// direction and pointers.
func sortFindings(fs []Finding) {
	rank := func(c Category) int {
		switch c {
		case WireBreakingC2S:
			return 0
		case WireBreakingS2C:
			return 1
		case CodeBreaking:
			return 2
		case StrictReceivers:
			return 3
		}
		return 4
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if rank(a.Category) != rank(b.Category) {
			return rank(a.Category) < rank(b.Category)
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Direction != b.Direction {
			return a.Direction < b.Direction
		}
		if a.Old != b.Old {
			return a.Old < b.Old
		}
		if a.New != b.New {
			return a.New < b.New
		}
		return a.Message < b.Message
	})
}

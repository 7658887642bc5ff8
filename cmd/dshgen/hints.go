package main

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/diff"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/schema"
)

// revisionHints adds to a finding, when the validator checks against a
// shipped revision, what another shipped revision says about the same
// spot: a method or union tag only the other has, or the change (from
// `dshgen diff`) at the schema location the finding failed. So a 0.2.1
// stream checked against 0.0.1 (or the reverse) says "revision 0.2.1 adds
// ..." instead of leaving a generic schema error to puzzle over. The other
// revisions are loaded at the first finding that could use them, never at
// start (the tap's start stays as fast as with one revision).
type revisionHints struct {
	cur    schema.Revision
	active bool

	once   sync.Once
	others []*otherRevision
}

type otherRevision struct {
	r       schema.Revision
	m       *ir.Model
	cur     *ir.Model
	changes []diff.Finding // Compare(older, newer)
	curOld  bool           // the current revision is the diff's old side
	sev     map[string]validate.Severity
}

func newRevisionHints(m *ir.Model, _ validate.Options) *revisionHints {
	r, ok := revisionOf(m)
	return &revisionHints{cur: r, active: ok}
}

// hintRules are the rules whose findings may come from a revision
// mismatch.
var hintRules = map[string]bool{
	validate.RuleMethodUnknown: true, validate.RuleMethodKind: true, validate.RuleMethodDirection: true,
	validate.RuleParams: true, validate.RuleResult: true, validate.RuleError: true,
	validate.RuleUnionUnknownTag: true, validate.RuleUnionMissingTag: true,
	validate.RulePromptOverlap: true, validate.RuleSurfaceOp: true,
}

func (h *revisionHints) load() {
	for _, r := range schema.Revisions() {
		if r.Name == h.cur.Name {
			continue
		}
		m, err := loadRevision(r, nil, nil)
		if err != nil {
			continue
		}
		cur, err := loadRevision(h.cur, nil, nil)
		if err != nil {
			continue
		}
		o := &otherRevision{r: r, m: m, cur: cur}
		if revisionIndex(h.cur.Name) < revisionIndex(r.Name) {
			o.curOld = true
			o.changes = diff.Compare(cur, m, h.cur.Name, r.Name).Findings
		} else {
			o.changes = diff.Compare(m, cur, r.Name, h.cur.Name).Findings
		}
		o.sev, _ = validate.SchemaSeverities(m)
		h.others = append(h.others, o)
	}
}

func revisionIndex(name string) int {
	for i, n := range schema.Names() {
		if n == name {
			return i
		}
	}
	return -1
}

var unknownTagMsg = regexp.MustCompile(`unknown (\S+) (\S+) ("(?:[^"\\]|\\.)*")`)

// annotate appends the hint, if any, to f's message.
func (h *revisionHints) annotate(f *validate.Finding) {
	if !h.active || !hintRules[f.Rule] || f.Baselined {
		return
	}
	h.once.Do(h.load)
	for _, o := range h.others {
		if hint := o.hint(h.cur, f); hint != "" {
			f.Message += " — " + hint
			return
		}
	}
}

func (o *otherRevision) hint(cur schema.Revision, f *validate.Finding) string {
	check := fmt.Sprintf("if the peer speaks revision %s, check with --revision %s", o.r.Name, o.r.Name)
	switch f.Rule {
	case validate.RuleMethodUnknown:
		if name := f.Method; name != "" && o.m.Method(name) != nil {
			return fmt.Sprintf("revision %s has method %q (%s)", o.r.Name, name, check)
		}
		return ""
	case validate.RulePromptOverlap:
		if o.sev[validate.RulePromptOverlap] == validate.Off {
			return fmt.Sprintf("revision %s's runtime queues a second prompt on a busy session (%s)", o.r.Name, check)
		}
		return ""
	case validate.RuleUnionUnknownTag:
		if m := unknownTagMsg.FindStringSubmatch(f.Message); m != nil {
			if t := o.m.TypeByName(m[1]); t != nil && t.Union != nil {
				tag := strings.Trim(m[3], `"`)
				for _, v := range t.Union.Variants {
					if v.TagValue == tag {
						return fmt.Sprintf("revision %s declares %s %s %s (%s)", o.r.Name, m[1], m[2], m[3], check)
					}
				}
			}
		}
	}
	// A value under a tag the other revision declares (and this one
	// checked with its fallback branch): say so.
	for _, part := range strings.Split(f.Branch, ", ") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		for _, t := range o.m.Types {
			if t.Union == nil || t.Union.Tag != k {
				continue
			}
			for _, x := range t.Union.Variants {
				if x.TagValue == v && !o.curHasTag(t.Name, v) {
					return fmt.Sprintf("revision %s declares %s %s %q as %s (%s)", o.r.Name, t.Name, k, v, x.Type.Name, check)
				}
			}
		}
	}
	if f.Schema == "" {
		return ""
	}
	// The most specific change at or above the failed keyword; a change
	// naming the member the finding points at wins.
	last := f.Pointer[strings.LastIndex(f.Pointer, "/")+1:]
	var best *diff.Finding
	bestLen, bestMember := 0, false
	for i := range o.changes {
		c := &o.changes[i]
		p := c.New
		if o.curOld {
			p = c.Old
		}
		if p == "#/$defs" || !(f.Schema == p || strings.HasPrefix(f.Schema, p+"/")) {
			continue
		}
		member := last != "" && strings.HasSuffix(c.Subject, "."+last)
		if (member && !bestMember) || (member == bestMember && len(p) > bestLen) {
			best, bestLen, bestMember = c, len(p), member
		}
	}
	if best == nil {
		// A required or additional member named in the message ('m'),
		// changed anywhere in the failed keyword's type.
		segs := strings.SplitN(f.Schema, "/", 4)
		if len(segs) < 3 {
			return ""
		}
		typ := strings.Join(segs[:3], "/")
		for i := range o.changes {
			c := &o.changes[i]
			p := c.New
			if o.curOld {
				p = c.Old
			}
			if !(p == typ || strings.HasPrefix(p, typ+"/")) {
				continue
			}
			if j := strings.LastIndex(c.Subject, "."); j >= 0 && strings.Contains(f.Message, "'"+c.Subject[j+1:]+"'") {
				best = c
				break
			}
		}
	}
	if best == nil {
		return ""
	}
	return fmt.Sprintf("revision %s → %s changed this: %s: %s (%s)", o.older(cur), o.newer(cur), best.Subject, best.Message, check)
}

func (o *otherRevision) older(cur schema.Revision) string {
	if o.curOld {
		return cur.Name
	}
	return o.r.Name
}

func (o *otherRevision) newer(cur schema.Revision) string {
	if o.curOld {
		return o.r.Name
	}
	return cur.Name
}

// curHasTag reports whether the current revision's union named name
// declares tag.
func (o *otherRevision) curHasTag(name, tag string) bool {
	t := o.cur.TypeByName(name)
	if t == nil || t.Union == nil {
		return false
	}
	for _, x := range t.Union.Variants {
		if x.TagValue == tag {
			return true
		}
	}
	return false
}

package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// matchTypes pairs old and new types: first by schema name, then renames
// among the types left over on both sides. A rename is an old type and a new
// type of the same kind that have the same shape (members, tags, values and
// referenced types, with already paired types counted as equal), or the same
// usage sites (the same methods, members and variants refer to them). A
// candidate pairs only when the match is unique; trivial shapes (an object
// without members, an alias of a primitive) need their usage sites to agree
// as well. Pairing repeats until nothing new pairs, so a renamed type that
// refers to another renamed type is found too.
func (d *differ) matchTypes() {
	for _, o := range d.old.Types {
		if n := d.new.TypeByName(o.Name); n != nil {
			d.pair(o, n)
		}
	}
	for {
		var oldOnly, newOnly []*ir.Type
		for _, o := range d.old.Types {
			if d.match[o] == nil {
				oldOnly = append(oldOnly, o)
			}
		}
		for _, n := range d.new.Types {
			if d.rmatch[n] == nil {
				newOnly = append(newOnly, n)
			}
		}
		if len(oldOnly) == 0 || len(newOnly) == 0 {
			return
		}
		osites, nsites := d.usageSites(d.old, true), d.usageSites(d.new, false)
		found := false
		// By shape.
		oSig := map[string][]*ir.Type{}
		nSig := map[string][]*ir.Type{}
		for _, o := range oldOnly {
			s := d.signature(o, true)
			oSig[s] = append(oSig[s], o)
		}
		for _, n := range newOnly {
			s := d.signature(n, false)
			nSig[s] = append(nSig[s], n)
		}
		sigs := make([]string, 0, len(oSig))
		for s := range oSig {
			sigs = append(sigs, s)
		}
		sort.Strings(sigs)
		for _, s := range sigs {
			os, ns := oSig[s], nSig[s]
			if len(os) != 1 || len(ns) != 1 {
				continue
			}
			o, n := os[0], ns[0]
			if trivial(o) && (osites[o] == "" || osites[o] != nsites[n]) {
				continue
			}
			d.pair(o, n)
			d.renamed[o] = "shape"
			found = true
		}
		if found {
			continue
		}
		// By usage sites.
		oBy := map[string][]*ir.Type{}
		nBy := map[string][]*ir.Type{}
		for _, o := range oldOnly {
			if s := osites[o]; s != "" {
				k := o.Kind.String() + "\x00" + s
				oBy[k] = append(oBy[k], o)
			}
		}
		for _, n := range newOnly {
			if s := nsites[n]; s != "" {
				k := n.Kind.String() + "\x00" + s
				nBy[k] = append(nBy[k], n)
			}
		}
		keys := make([]string, 0, len(oBy))
		for k := range oBy {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			os, ns := oBy[k], nBy[k]
			if len(os) != 1 || len(ns) != 1 {
				continue
			}
			d.pair(os[0], ns[0])
			d.renamed[os[0]] = "usage"
			found = true
		}
		if !found {
			return
		}
	}
}

func (d *differ) pair(o, n *ir.Type) {
	d.match[o] = n
	d.rmatch[n] = o
}

// paired reports whether old type o and new type n are the same type.
func (d *differ) paired(o, n *ir.Type) bool { return o != nil && d.match[o] == n }

// trivial reports whether a shape says too little to identify a type.
func trivial(t *ir.Type) bool {
	switch t.Kind {
	case ir.KindObject:
		return len(t.Fields) == 0
	case ir.KindAlias:
		return t.Alias.Kind != ir.RefNamed && t.Alias.Kind != ir.RefArray && t.Alias.Kind != ir.RefMap
	}
	return false
}

// nameFor is the name a type contributes to signatures and usage sites:
// the new name of a paired type, "?" for one still unpaired.
func (d *differ) nameFor(t *ir.Type, old bool) string {
	if old {
		if n := d.match[t]; n != nil {
			return n.Name
		}
		return "?" + t.Kind.String()
	}
	if d.rmatch[t] != nil {
		return t.Name
	}
	return "?" + t.Kind.String()
}

func (d *differ) refSig(r *ir.TypeRef, old bool) string {
	if r == nil {
		return "-"
	}
	s := ""
	if r.Nullable {
		s = "?"
	}
	switch r.Kind {
	case ir.RefNamed:
		return s + "<" + d.nameFor(r.Named, old) + ">"
	case ir.RefArray:
		return s + "[" + d.refSig(r.Elem, old) + "]"
	case ir.RefMap:
		return s + "{" + d.refSig(r.Elem, old) + "}"
	}
	s += fmt.Sprintf("k%d", r.Kind)
	if len(r.Enum) > 0 {
		e := append([]string(nil), r.Enum...)
		sort.Strings(e)
		s += "(" + strings.Join(e, "|") + ")"
	}
	return s
}

// signature renders t's shape with referenced types by (paired) name.
func (d *differ) signature(t *ir.Type, old bool) string {
	var b strings.Builder
	b.WriteString(t.Kind.String())
	switch t.Kind {
	case ir.KindObject:
		fmt.Fprintf(&b, " closed=%v extra=%s {", t.Closed, d.refSig(t.Extra, old))
		fs := append([]*ir.Field(nil), t.Fields...)
		sort.Slice(fs, func(i, j int) bool { return fs[i].Wire < fs[j].Wire })
		for _, f := range fs {
			c := ""
			if f.Const != nil {
				c = "=" + *f.Const
			}
			fmt.Fprintf(&b, "%q req=%v %s%s;", f.Wire, f.Required, d.refSig(&f.Type, old), c)
		}
		b.WriteString("}")
	case ir.KindEnum:
		var vs []string
		for _, v := range t.Enum {
			vs = append(vs, v.Value)
		}
		sort.Strings(vs)
		fmt.Fprintf(&b, "%q", vs)
	case ir.KindUnion:
		u := t.Union
		fmt.Fprintf(&b, " by=%d tag=%q open=%v (", u.By, u.Tag, u.Open)
		var vs []string
		for _, v := range u.Variants {
			vs = append(vs, v.TagValue+":"+d.nameFor(v.Type, old))
		}
		sort.Strings(vs)
		b.WriteString(strings.Join(vs, ",") + ")")
	case ir.KindAlias:
		b.WriteString(" " + d.refSig(t.Alias, old))
	}
	return b.String()
}

// usageSites maps each type of m to a sorted, joined list of the places
// that use it: "method M params|result" and "<referrer>.<member>" or
// "<union>|<tag>", where a referrer counts by its paired name (unpaired
// referrers are left out).
func (d *differ) usageSites(m *ir.Model, old bool) map[*ir.Type]string {
	sites := map[*ir.Type][]string{}
	for _, me := range m.Methods {
		if me.Params != nil {
			sites[me.Params] = append(sites[me.Params], "method "+me.Name+" params")
		}
		if me.Result != nil {
			sites[me.Result] = append(sites[me.Result], "method "+me.Name+" result")
		}
	}
	for _, t := range m.Types {
		name := d.nameFor(t, old)
		if strings.HasPrefix(name, "?") {
			continue
		}
		refsOf(t, func(label string, u *ir.Type) {
			sites[u] = append(sites[u], name+label)
		})
	}
	out := map[*ir.Type]string{}
	for t, s := range sites {
		sort.Strings(s)
		out[t] = strings.Join(s, ",")
	}
	return out
}

package python

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/templates"
)

// methodsView is methods.py: method constants, the catalogue and the
// JSON-RPC frame helpers.
type methodsView struct {
	commonView
	Imports       string
	Gap           string // blank lines between Imports and Body
	Body          string
	Methods       []*methodView
	Requests      []*methodView
	Notifications []*methodView
	// Annotations of the typed members of frames (union of every method's
	// type, then raw JSON for unknown methods).
	RequestParamsAnn      string
	NotificationParamsAnn string
	ResultAnn             string
	Exports               []string
}

type methodView struct {
	Const          string
	Wire           string // Python literal of the wire name
	Kind           string
	Direction      string
	Doc            string
	ParamsAnn      string
	ParamsRef      string
	ParamsDecode   string
	ParamsOptional string
	ResultAnn      string
	ResultRef      string
	ResultDecode   string
	Description    string
}

func (e *emitter) typeRef(t *ir.Type) (ann, ref, dec string) {
	r := ir.TypeRef{Kind: ir.RefNamed, Named: t}
	ann = namedAnn(r.Named, "_t.")
	ref = "_t." + t.Names.Of(py)
	if isClass(t) {
		dec = ref + ".from_json"
	} else {
		dec = "_t.decode_" + t.Names.Of(py)
	}
	return
}

func (e *emitter) methodsView() *methodsView {
	mv := &methodsView{}
	var reqAnns, noteAnns, resAnns []string
	for _, me := range e.m.Methods {
		v := &methodView{
			Const:          me.Names.Of(py),
			Wire:           pyStr(me.Name),
			Kind:           string(me.Kind),
			Direction:      string(me.Direction),
			ParamsOptional: "False",
			Description:    pyStr(strings.Join(ir.DocLines(me.Description), "\n")),
		}
		if me.ParamsOptional {
			v.ParamsOptional = "True"
		}
		v.ParamsAnn, v.ParamsRef, v.ParamsDecode = e.typeRef(me.Params)
		facts := fmt.Sprintf("%s: %s, %s. Params: %s", pyStr(me.Name), me.Kind, me.Direction, me.Params.Names.Of(py))
		if me.ParamsOptional {
			facts += " (the member may be absent)"
		}
		facts += "."
		if me.Kind == ir.Request {
			v.ResultAnn, v.ResultRef, v.ResultDecode = e.typeRef(me.BindingResult())
			facts += " Result: " + me.BindingResult().Names.Of(py) + "."
			resAnns = append(resAnns, v.ResultAnn)
			reqAnns = append(reqAnns, v.ParamsAnn)
			mv.Requests = append(mv.Requests, v)
		} else {
			noteAnns = append(noteAnns, v.ParamsAnn)
			mv.Notifications = append(mv.Notifications, v)
		}
		v.Doc = docstring(docParas("", facts, me.Description, "Schema: "+me.Pointer+"."), "")
		mv.Methods = append(mv.Methods, v)
	}
	join := func(anns []string) string {
		seen := map[string]bool{}
		var parts []string
		for _, a := range anns {
			for _, p := range strings.Split(a, " | ") {
				if !seen[p] {
					seen[p] = true
					parts = append(parts, p)
				}
			}
		}
		sort.Strings(parts)
		parts = append(parts, "_JsonValue")
		return strings.Join(parts, " | ")
	}
	mv.RequestParamsAnn = join(reqAnns)
	mv.NotificationParamsAnn = join(noteAnns)
	mv.ResultAnn = join(resAnns)
	for _, m := range mv.Methods {
		mv.Exports = append(mv.Exports, m.Const)
	}
	mv.Exports = append(mv.Exports, e.m.RequestMap.Of(py), e.m.NotificationMap.Of(py))
	mv.Exports = append(mv.Exports, methodsTemplateNames()...)
	return mv
}

// methodsTemplateNames are the public names methods.py.tmpl defines itself
// (its classes, functions and tables; not its imports).
func methodsTemplateNames() []string {
	src, err := fs.ReadFile(templates.FS, "python/methods.py.tmpl")
	if err != nil {
		panic("dshgen: templates/python/methods.py.tmpl: " + err.Error())
	}
	return ir.PyModuleNames(string(src)).Helpers()
}

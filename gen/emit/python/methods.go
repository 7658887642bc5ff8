package python

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dshgen/dshgen/gen/ir"
)

// methodsView is methods.py: method constants, the catalogue and the
// JSON-RPC frame helpers.
type methodsView struct {
	commonView
	Doc           string
	Imports       string
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
	ann = e.ann(&r, "_t.")
	ref = "_t." + t.Names.Of(py)
	if e.isClass(t) {
		dec = ref + ".from_json"
	} else {
		dec = "_t.decode_" + t.Names.Of(py)
	}
	return
}

func (e *emitter) methodsView(tv *typesView) *methodsView {
	mv := &methodsView{}
	var reqAnns, noteAnns, resAnns []string
	for _, me := range e.m.Methods {
		v := &methodView{
			Const:          me.Names.Of(py),
			Wire:           pyStr(me.Name),
			Kind:           string(me.Kind),
			Direction:      string(me.Direction),
			ParamsOptional: "False",
			Description:    pyStr(strings.Join(docLines(me.Description), "\n")),
		}
		if me.ParamsOptional {
			v.ParamsOptional = "True"
		}
		if me.Params == nil {
			e.problem("method %q has no params type", me.Name)
			continue
		}
		v.ParamsAnn, v.ParamsRef, v.ParamsDecode = e.typeRef(me.Params)
		doc := []string{fmt.Sprintf("%s: %s, %s.", pyStr(me.Name), me.Kind, me.Direction)}
		p := "Params: " + me.Params.Names.Of(py)
		if me.ParamsOptional {
			p += " (the member may be absent)"
		}
		doc = append(doc, p+".")
		if me.Kind == ir.Request {
			if me.Result == nil {
				e.problem("request %q has no result type", me.Name)
				continue
			}
			v.ResultAnn, v.ResultRef, v.ResultDecode = e.typeRef(me.Result)
			doc = append(doc, "Result: "+me.Result.Names.Of(py)+".")
			resAnns = append(resAnns, v.ResultAnn)
			reqAnns = append(reqAnns, v.ParamsAnn)
			mv.Requests = append(mv.Requests, v)
		} else {
			noteAnns = append(noteAnns, v.ParamsAnn)
			mv.Notifications = append(mv.Notifications, v)
		}
		doc = append(doc, "Schema: "+me.Pointer+".")
		if dl := docLines(me.Description); len(dl) > 0 {
			doc = append(doc, "")
			doc = append(doc, dl...)
		}
		v.Doc = docstring(doc, "")
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
		parts = append(parts, "_Json")
		return strings.Join(parts, " | ")
	}
	mv.RequestParamsAnn = join(reqAnns)
	mv.NotificationParamsAnn = join(noteAnns)
	mv.ResultAnn = join(resAnns)
	for _, m := range mv.Methods {
		mv.Exports = append(mv.Exports, m.Const)
	}
	mv.Exports = append(mv.Exports, methodsNames...)
	title := e.m.Title
	if title == "" {
		title = "the protocol"
	}
	mv.Doc = docstring([]string{
		"Method catalogue of " + title + " and JSON-RPC 2.0 frame helpers.",
		"",
		"* One ``Final`` constant per method name; ``METHODS`` maps each name to its",
		"  ``MethodInfo`` (kind, direction, params and result types, decoders):",
		"  ``REQUESTS`` and ``NOTIFICATIONS`` are its two halves (the Python",
		"  counterparts of the TypeScript request and notification maps).",
		"* ``decode_params`` / ``decode_result`` decode by method name, typed per",
		"  method through overloads.",
		"* ``decode_frame`` decodes a whole frame: requests and notifications by",
		"  their method, responses by the method of the request they answer (given",
		"  by the caller, or tracked by ``FrameDecoder``). Frames of methods not in",
		"  the catalogue keep their params/result as raw JSON. ``to_json`` encodes a",
		"  frame back.",
		"* Classification follows the JSON-RPC 2.0 transport: ``id`` and ``method``:",
		"  request; ``method`` alone: notification; ``id`` alone: response (``error``",
		"  present: error response). A missing ``jsonrpc`` member is tolerated on",
		"  decode (readers never check it) and left out again on encode.",
	}, "")
	return mv
}

// methodsImports lists the imports methods.py uses, in isort order.
func methodsImports(body string) string {
	std := []string{
		fromImport("collections.abc", "Callable", "Mapping"),
		fromImport("dataclasses", "dataclass", "field"),
	}
	ty := []string{"Final", "Literal"}
	if uses(body, "cast") {
		ty = append(ty, "cast")
	}
	if uses(body, "overload") {
		ty = append(ty, "overload")
	}
	std = append(std, fromImport("typing", isortSorted(ty)...))
	std = append(std, "from typing import TypeAlias as _TypeAlias")
	var local []string
	if uses(body, "_t") {
		local = append(local, "from . import types as _t")
	}
	var pairs [][2]string
	for _, p := range [][2]string{{"ABSENT", "_ABSENT"}, {"Absent", "_Absent"}, {"DecodeError", "_DecodeError"}, {"JsonValue", "_Json"}} {
		if uses(body, p[1]) {
			pairs = append(pairs, p)
		}
	}
	local = append(local, aliasImports(".codec", pairs)...)
	var helpers []string
	for _, n := range runtimeNames {
		if uses(body, n) {
			helpers = append(helpers, n)
		}
	}
	if len(helpers) > 0 {
		local = append(local, fromImport(".codec", isortSorted(helpers)...))
	}
	return strings.Join(std, "\n") + "\n\n" + strings.Join(local, "\n")
}

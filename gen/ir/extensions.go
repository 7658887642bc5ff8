package ir

import (
	"slices"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// The extension keywords the IR reads: the only x- keywords dshgen gives a
// meaning, and so the only ones an overlay may set. The IR reads each
// through its entry here (kwName.Name, ...); TestKeywordTableIsComplete
// fails when the IR reads an "x-" keyword that is not listed, or a listed
// one is read nowhere.
var (
	kwName = schemadoc.Keyword{Name: "x-name", Shape: schemadoc.ShapeString,
		Where: "a $defs entry, a titled schema, a properties member or an x-methods entry (the identifier base in every language)"}
	kwGoName = schemadoc.Keyword{Name: "x-go-name", Shape: schemadoc.ShapeString,
		Where: "a $defs entry, a titled schema or a properties member (the Go identifier, verbatim)"}
	kwPythonName = schemadoc.Keyword{Name: "x-python-name", Shape: schemadoc.ShapeString,
		Where: "a $defs entry, a titled schema or a properties member (the Python identifier)"}
	kwTSName = schemadoc.Keyword{Name: "x-ts-name", Shape: schemadoc.ShapeString,
		Where: "a $defs entry, a titled schema or a properties member (the TypeScript identifier)"}
	kwEnumNames = schemadoc.Keyword{Name: "x-enum-names", Shape: schemadoc.ShapeStrings,
		Where: "a named string enum, beside its enum or oneOf of consts (one identifier per value)"}
	kwValidationOnly = schemadoc.Keyword{Name: "x-validation-only", Shape: schemadoc.ShapeBool,
		Where: "a $defs (or definitions) entry of the root schema that no other type uses"}
	kwUnionTag = schemadoc.Keyword{Name: "x-union-tag", Shape: schemadoc.ShapeString,
		Where: "a oneOf/anyOf union whose branches all require the named member with a string const of their own (the tag the IR would otherwise not pick)"}
	kwMethods = schemadoc.Keyword{Name: "x-methods", Shape: schemadoc.ShapeObject, RootOnly: true,
		Where: "the root of the schema (method name → entry)"}
	kwTSRequestMap = schemadoc.Keyword{Name: "x-ts-request-map", Shape: schemadoc.ShapeString, RootOnly: true,
		Where: "the root of the schema (name of the TypeScript request map)"}
	kwTSNotificationMap = schemadoc.Keyword{Name: "x-ts-notification-map", Shape: schemadoc.ShapeString, RootOnly: true,
		Where: "the root of the schema (name of the TypeScript notification map)"}
	kwRequestID = schemadoc.Keyword{Name: "x-request-id", Shape: schemadoc.ShapeString, RootOnly: true,
		Where: "the root of the schema (how SDK senders mint request ids: prefix{counter|uuid-hex|uuid}suffix)"}
	kwMethod = schemadoc.Keyword{Name: "x-method", Shape: schemadoc.ShapeString,
		Where: "a $defs entry that is the params (or, named *Response, the result) of a JSON-RPC method (ACP's convention; see METHODS.md)"}
	kwSide = schemadoc.Keyword{Name: "x-side", Shape: schemadoc.ShapeString,
		Where: "a $defs entry with x-method: the side that handles the method, \"agent\" or \"client\" (ACP's convention)"}
	kwExtensionPrefix = schemadoc.Keyword{Name: "x-extension-method-prefix", Shape: schemadoc.ShapeString, RootOnly: true,
		Where: "the root of the schema (method names starting with it are extension methods: raw params and result, not method.unknown)"}
	kwRuleSets = schemadoc.Keyword{Name: "x-dshgen-rules", Shape: schemadoc.ShapeStrings, RootOnly: true,
		Where: "the root of the schema (the stateful rule sets the validator runs, see gen/wire/validate/rulesets)"}
)

// Keywords returns the extension keywords the IR reads (the overlay
// checker's table).
func Keywords() []schemadoc.Keyword {
	return []schemadoc.Keyword{kwName, kwGoName, kwPythonName, kwTSName, kwEnumNames, kwValidationOnly, kwUnionTag, kwMethods, kwTSRequestMap, kwTSNotificationMap, kwMethod, kwSide, kwExtensionPrefix, kwRuleSets, kwRequestID}
}

// maxKeywordTypo is how far (EditDistance) an unknown root "x-" keyword may
// be from a known one to be taken for a misspelling of it.
const maxKeywordTypo = 2

// schemaWarnings are the things in a loaded schema that make generation
// and validation do less than the schema's author likely meant, without
// being wrong (Model.Warnings): a root "x-" keyword dshgen does not read
// that is a likely misspelling of one it does ("x-methds"), and a schema
// with no method at all — no x-methods and none inferred
// (methods_infer.go) — so no SDK is printed and the validator knows no
// method.
func (l *loader) schemaWarnings(root loc, m *Model) []Problem {
	var known []string
	for _, kw := range Keywords() {
		known = append(known, kw.Name)
	}
	var out []Problem
	for _, k := range root.Node().Keys() {
		if len(k) < 2 || k[:2] != "x-" || slices.Contains(known, k) {
			continue
		}
		if near := Nearest(k, known, maxKeywordTypo); near != "" {
			out = append(out, l.set.Problem(root.Child(k), "dshgen reads no keyword "+k+": did you mean "+near+"?", "rename it to "+near))
		}
	}
	if root.Node().Get(kwMethods.Name) == nil && len(m.Methods) == 0 && len(m.InputRequests) == 0 && m.ExtensionPrefix == "" {
		out = append(out, l.set.Problem(root, "no JSON-RPC method: the schema has no "+kwMethods.Name+" and none could be inferred, so generate prints types without an SDK and validate reports every method as unknown",
			"add an "+kwMethods.Name+" table at the root, see gen/ir/METHODS.md"))
	}
	return out
}

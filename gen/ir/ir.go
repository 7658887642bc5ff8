// Package ir loads a dshgen protocol schema (JSON Schema draft 2020-12, 2019-09
// or draft-07, with an x-methods table in the schema or an overlay; the
// documents are read by gen/schemadoc) and builds the one intermediate model (IR) from which every
// emitter prints and the validator routes. Every decision — names per target
// language, optionality, nullability, union tags, recursion — is made here, so
// the Go, Python and TypeScript emitters cannot drift apart.
//
// # Openness
//
// One rule for every binding, decided here and printed the same way by all
// three emitters: an older SDK must not fail on a newer peer's value. A
// string enum value or a tagged-union tag that the binding does not know is
// not a decode error: the value is kept exactly and encoded back unchanged
// (an enum value as the string it is, an unknown tag as the union's Unknown
// variant holding the raw JSON object). Whether such a value is acceptable is
// the validator's business and follows the schema (outside an enum: an
// error; an unknown tag: an error for a closed union, a warning for an open
// one). In the printed types every use of an enum admits any string in Go
// (the string-based type) and Python (the Literal alias or any str), and
// every use of a tagged union admits its Unknown variant (Go: the
// interface; Python: the union alias or the Unknown class). TypeScript
// parses nothing (a received value is the JSON as it is), so it cannot fail
// on one; its declared types are the known sets, as the published
// TypeScript types of such protocols are (so the two stay assignable both
// ways, and a tagged union narrows on its tag, which it does only when
// every member's tag is a literal), and the open forms have names of their
// own: WithUnknown<U> for a tagged union, OpenEnum<E> for an enum.
package ir

import (
	"fmt"

	"github.com/dshgen/dshgen/gen/schemadoc"
)

// Lang identifies a target language for naming decisions.
type Lang int

// The target languages, in the order names are computed and reported.
const (
	LangGo Lang = iota
	LangPython
	LangTS
	numLangs
)

// Langs lists every target language.
var Langs = [...]Lang{LangGo, LangPython, LangTS}

func (l Lang) String() string {
	switch l {
	case LangGo:
		return "Go"
	case LangPython:
		return "Python"
	case LangTS:
		return "TypeScript"
	}
	return "?"
}

// Names holds one identifier per target language, indexed by Lang.
type Names [numLangs]string

// Of returns the identifier for lang.
func (n Names) Of(l Lang) string { return n[l] }

// Model is the whole loaded protocol: named types and the method catalogue.
type Model struct {
	// Title and Description come from the schema's top level.
	Title       string
	Description string
	// ID is the schema's $id (may be empty); File is the path it was loaded from.
	ID   string
	File string
	// SHA256 is the lowercase hex sha256 of the root schema file's bytes.
	SHA256 string
	// Overlays are the overlay files applied, in order (see gen/schemadoc).
	Overlays []Overlay
	// TSRequestMap and TSNotificationMap are the root's x-ts-request-map and
	// x-ts-notification-map as written ("" when not set); RequestMap and
	// NotificationMap below are the names the IR decides from them.
	TSRequestMap, TSNotificationMap string
	// Types holds every named type of the schema, sorted by Name (the
	// validator and the schema diff read these).
	Types []*Type
	// Decls is what every binding declares, in one order for all of them
	// (by Name, then Pointer): every type of Types except fallback branch
	// types (FallbackOf != nil), plus the Unknown variant of every tagged
	// union, plus the ResultUnion of every method that has one. Emitters
	// print Decls and nothing else.
	Decls []*Type
	// RequestMap and NotificationMap name the two method maps per language
	// (Go Requests/Notifications, Python REQUESTS/NOTIFICATIONS, TypeScript
	// from the top-level "x-ts-request-map"/"x-ts-notification-map", else
	// <title without "Protocol">RequestMap/NotificationMap).
	RequestMap, NotificationMap Names
	// Methods holds the x-methods catalogue, sorted by Name. Empty for a
	// schema that only has $defs.
	Methods []*Method
	// SDK is the generated clients' and servers' view of Methods: the
	// identifiers of every call and handler, which side sends and receives
	// each method, and how request ids are minted (sdk.go).
	SDK *SDK
	// InputRequests are methods a request's result asks the client to run
	// inside the protocol's own payload rather than as JSON-RPC requests
	// (MCP 2026-07-28's InputRequest: sampling/createMessage,
	// elicitation/create, roots/list). Not in Methods: a JSON-RPC frame
	// calling one is method.unknown.
	InputRequests []*Method
	// ExtensionPrefix is the prefix of extension method names (ACP: "_"):
	// such methods are not in the table and are not method.unknown; their
	// params and results are any JSON. "" when the protocol has none.
	ExtensionPrefix string
	// ErrorCodes are the error codes with an error object type of their own
	// (errors_infer.go), by code.
	ErrorCodes []ErrorCode
	// RuleSets are the names in the schema's (or overlay's) x-dshgen-rules.
	RuleSets []string
	// ValidationOnly lists the pointers of $defs entries marked
	// "x-validation-only": true — checked by the validator, not generated
	// (for example a JSON-RPC envelope union told apart by "not" clauses).
	ValidationOnly []string
	// Warnings are what about the schema makes dshgen do less than its
	// author likely meant, without failing the load: a misspelt root "x-"
	// keyword, no method at all (extensions.go, schemaWarnings). Each has
	// its file, line, pointer and fix; dshgen prints them on stderr.
	Warnings []Problem

	byPointer map[string]*Type
	source    *schemadoc.Set
}

// Overlay is one overlay file applied to the schema: its path as given and
// the lowercase hex sha256 of its bytes.
type Overlay struct {
	File   string
	SHA256 string
}

// TypeByPointer returns the named type defined at a JSON pointer such as
// "#/$defs/SessionEvent" (nil when none).
func (m *Model) TypeByPointer(ptr string) *Type { return m.byPointer[ptr] }

// TypeByName returns the named type whose schema name is name (nil when none).
func (m *Model) TypeByName(name string) *Type {
	for _, t := range m.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Method returns the method called name (nil when none).
func (m *Model) Method(name string) *Method {
	for _, x := range m.Methods {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// MethodKind is the JSON-RPC 2.0 frame kind a method is sent as.
type MethodKind string

// Method kinds.
const (
	Request      MethodKind = "request"
	Notification MethodKind = "notification"
)

// Direction says which side sends a request or notification.
type Direction string

// Directions.
const (
	ClientToServer Direction = "client-to-server"
	ServerToClient Direction = "server-to-client"
	// Both: either side sends it (MCP ping, notifications/progress,
	// notifications/cancelled); the validator checks no direction.
	Both Direction = "both"
)

// Method is one x-methods entry.
type Method struct {
	Name        string // wire method name, e.g. "session/prompt"
	Names       Names  // identifier base per language, e.g. Go "SessionPrompt"
	Kind        MethodKind
	Direction   Direction
	Description string
	// Params is the params type; ParamsOptional means the member may be absent.
	Params         *Type
	ParamsOptional bool
	// ParamsUndeclared: the def the method was inferred from declares no
	// params member, so Params is an object type with no members that the
	// bindings print (<Def>Params, in Model.Decls, not a schema type),
	// ParamsOptional is true, and the validator checks no params type (a
	// params member is an error only when the def is closed: Params.Closed).
	ParamsUndeclared bool
	// Result is the success result type (requests only, else nil).
	Result *Type
	// ResultAlternatives are further result types a success response may
	// carry instead of Result (MCP 2025-11-25: CreateTaskResult answers a
	// task-augmented request). The validator accepts a result that matches
	// Result or any of them; the bindings type the result as ResultUnion.
	ResultAlternatives []*Type
	// ResultUnion is the union of Result and ResultAlternatives the
	// bindings, method tables and SDKs type the result as (nil when the
	// method has no alternatives; see BindingResult). It is named Result's
	// name + "Or" + each alternative's name (CallToolResultOrCreateTaskResult),
	// decided by the union rules of every oneOf/anyOf (an anyOf of the
	// $refs, in this order: README.md "Result unions"), and listed in
	// Model.Decls, not in Model.Types (it is no schema location: the
	// validator checks Result and ResultAlternatives themselves); its
	// Pointer is the method's.
	ResultUnion *Type
	// Source says where the entry comes from: "#/x-methods/NAME" (the
	// schema or an overlay), or the convention it was inferred by with the
	// defs it was read from (see METHODS.md).
	Source string
	// Pointer is the JSON pointer of the entry, e.g. "#/x-methods/initialize".
	Pointer string

	nameBase string // the entry's x-name, else Name: what every identifier is made from
	at       loc    // the entry (x-methods) or the def it was inferred from
}

// BindingResult is the type the bindings print for a request's result:
// ResultUnion when the method has result alternatives, else Result (nil
// for a notification).
func (m *Method) BindingResult() *Type {
	if m.ResultUnion != nil {
		return m.ResultUnion
	}
	return m.Result
}

// TypeKind says what shape a named type has.
type TypeKind int

// Type kinds.
const (
	// KindObject: a JSON object with declared fields.
	KindObject TypeKind = iota
	// KindUnion: a oneOf/anyOf of named variants (see Union).
	KindUnion
	// KindEnum: a string enum (or a single string const).
	KindEnum
	// KindAlias: a name for another type use (array, map, primitive, JSON value).
	KindAlias
	// KindUnknown: the unknown-tag variant of a tagged union (UnknownOf):
	// any object whose tag is none of the union's known tags, kept as its
	// raw JSON and re-encoded unchanged. Never in Model.Types (it is not a
	// schema type of its own); listed in Model.Decls and Union.Unknown.
	KindUnknown
)

func (k TypeKind) String() string {
	return [...]string{"object", "union", "enum", "alias", "unknown"}[k]
}

// Type is a named type: a $defs entry, a titled inline schema, or an inline
// union branch named from its union and tag value.
type Type struct {
	Name        string // schema name: the $defs key, title, or union+Tag
	Names       Names  // identifier per language
	Pointer     string // JSON pointer of the definition, e.g. "#/$defs/TurnStartEvent"
	Description string
	Kind        TypeKind

	// KindObject.
	Fields []*Field
	// Closed is true for additionalProperties: false.
	Closed bool
	// Extra types the undeclared members when additionalProperties is a
	// schema; nil with Closed false means any JSON (kept raw).
	Extra *TypeRef

	// KindUnion.
	Union *Union

	// KindEnum: the known string values, in schema order; the enum is
	// open (see "Openness" in the package doc).
	Enum []*EnumValue

	// KindAlias.
	Alias *TypeRef

	// KindUnknown: UnknownOf is the tagged union whose unknown tags this
	// variant holds; Fallback is the schema's fallback branch type it stands
	// for (nil when the union has no named fallback and the variant is
	// named union name + "Unknown").
	UnknownOf *Type
	Fallback  *Type

	// Recursive is true when the type reaches itself through its fields.
	Recursive bool
	// FallbackOf is the union this type is the fallback (unknown-tag) branch
	// of, or nil. Such a type is in Model.Types (the validator checks it) but
	// not in Model.Decls: the bindings print the union's Unknown instead.
	FallbackOf *Type
	// Unions lists the unions this type is a variant of (in Model.Types order).
	Unions []*Type
}

// Field is one declared member of an object type.
type Field struct {
	Wire        string // member name on the wire
	Names       Names  // identifier per language (Go field, Python attribute, TS property)
	Pointer     string // JSON pointer of the property schema
	Description string
	Type        TypeRef
	Required    bool
	// Const is set when the member is pinned to one string value (a union tag
	// or a literal member); the emitters write it without the caller setting it.
	Const *string
}

// Optional reports whether the member may be absent.
func (f *Field) Optional() bool { return !f.Required }

// RefKind says what a TypeRef is.
type RefKind int

// TypeRef kinds.
const (
	RefString RefKind = iota
	RefInteger
	RefNumber
	RefBoolean
	RefJSON  // any JSON value, kept exactly (anonymous: {} or true)
	RefNamed // a named Type
	RefArray // Elem is the item type
	RefMap   // Elem is the value type (object with only additionalProperties)
	RefNull  // only null
)

// TypeRef is one use of a type: a primitive, a named type, an array or a map,
// possibly nullable.
type TypeRef struct {
	Kind     RefKind
	Named    *Type    // RefNamed
	Elem     *TypeRef // RefArray, RefMap
	Nullable bool     // null is allowed besides the type
	// Enum lists the known values of an anonymous string enum (RefString);
	// open like every enum (see "Openness" in the package doc).
	Enum []string
}

// Union describes a KindUnion type.
type Union struct {
	// Tag is the discriminating member ("type", "kind") for tagged unions;
	// empty for unions by JSON type or by shape.
	Tag string
	// By says how a value's variant is chosen.
	By UnionBy
	// Variants are the known variants in schema order.
	Variants []*Variant
	// Open is true when the schema has a fallback branch accepting unknown
	// tags (the validator then reports an unknown tag as a warning).
	Open bool
	// FallbackPointer is the JSON pointer of the fallback branch (Open only).
	FallbackPointer string
	// FallbackIndex is the fallback branch's index in the oneOf/anyOf.
	FallbackIndex int
	// Keyword is "oneOf" or "anyOf".
	Keyword string
	// Unknown is the variant every binding decodes an unknown tag into
	// (ByTag only, open or closed union alike; nil otherwise): a KindUnknown
	// type named after the schema's fallback branch type when it is named,
	// else union name + "Unknown". It holds the raw JSON object and
	// re-encodes it unchanged (see "Openness" in the package doc).
	Unknown *Type

	fallbackType *Type // the named fallback branch type, while loading
}

// UnionBy says how a union picks its variant. Every emitter switches on it
// and refuses a value it does not know, so a new mode cannot be printed as
// another by accident.
//
// ByTry is the mode for every union the other three do not separate: the
// bindings try Variants in their order (sorted by the loader, see README.md
// "Unions") and keep the first that decodes (anyOf) or the only one
// (oneOf); ByShape is its special case where at most one branch can match.
type UnionBy int

// Union selection modes.
const (
	ByTag      UnionBy = iota // the Tag member's const value
	ByJSONType                // the JSON type of the value
	ByShape                   // the required member sets of closed objects
	// ByTry: no member or JSON type tells the branches apart; every binding
	// tries Variants in their order (already sorted: see README.md "Unions")
	// and keeps the first that decodes (anyOf) or the only one (oneOf).
	ByTry
)

func (b UnionBy) String() string {
	switch b {
	case ByTag:
		return "by tag"
	case ByJSONType:
		return "by JSON type"
	case ByShape:
		return "by shape"
	case ByTry:
		return "by ordered tries"
	}
	return fmt.Sprintf("UnionBy(%d)", int(b))
}

// Variant is one known branch of a union.
type Variant struct {
	// TagValue is the tag's const (ByTag); for ByJSONType the JSON type name.
	TagValue string
	// Names is the identifier base for the variant's constant/case per language.
	Names Names
	// Type is the branch's type (a named object, an enum for a string const,
	// or an alias).
	Type *Type
	// Index is the branch's index in the oneOf/anyOf array.
	Index int
	// Pointer is the JSON pointer of the branch schema (…/oneOf/N).
	Pointer string
	// JSONType is the JSON type a ByJSONType variant accepts ("object",
	// "string", …).
	JSONType string
	// Required lists the branch's required members (ByShape).
	Required []string
}

// EnumValue is one value of a string enum.
type EnumValue struct {
	Value   string
	Names   Names // constant identifier per language
	Pointer string
}

// Package ir loads a dshgen protocol schema (JSON Schema draft 2020-12, 2019-09
// or draft-07, with an x-methods table in the schema or an overlay; the
// documents are read by gen/schemadoc) and builds the one intermediate model (IR) from which every
// emitter prints and the validator routes. Every decision — names per target
// language, optionality, nullability, union tags, recursion — is made here, so
// the Go, Python and TypeScript emitters cannot drift apart.
package ir

import "github.com/dshgen/dshgen/gen/schemadoc"

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
	// x-ts-notification-map (the TypeScript map names; "" when not set).
	TSRequestMap, TSNotificationMap string
	// Types holds every named type, sorted by Name.
	Types []*Type
	// Methods holds the x-methods catalogue, sorted by Name. Empty for a
	// schema that only has $defs.
	Methods []*Method
	// ValidationOnly lists the pointers of $defs entries marked
	// "x-validation-only": true — checked by the validator, not generated
	// (for example a JSON-RPC envelope union told apart by "not" clauses).
	ValidationOnly []string

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
	// Result is the success result type (requests only, else nil).
	Result *Type
	// Pointer is the JSON pointer of the entry, e.g. "#/x-methods/initialize".
	Pointer string
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
)

func (k TypeKind) String() string {
	return [...]string{"object", "union", "enum", "alias"}[k]
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

	// KindEnum: the allowed string values, in schema order.
	Enum []*EnumValue

	// KindAlias.
	Alias *TypeRef

	// Recursive is true when the type reaches itself through its fields.
	Recursive bool
	// FallbackOf is the union this type is the fallback (unknown-tag) branch
	// of, or nil.
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
	// Enum lists the allowed values of an anonymous string enum (RefString).
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
	// Unknown names the variant every binding decodes an unknown tag into
	// (ByTag only): the fallback branch's type when it is named, else
	// union name + "Unknown". It holds the raw JSON and re-encodes it unchanged.
	Unknown Names
	// UnknownType is the named fallback type (nil when the fallback is
	// inline or the union is closed). Emitters print it as the unknown
	// variant, not as a plain object.
	UnknownType *Type
}

// UnionBy says how a union picks its variant.
type UnionBy int

// Union selection modes.
const (
	ByTag      UnionBy = iota // the Tag member's const value
	ByJSONType                // the JSON type of the value
	ByShape                   // the required member sets of closed objects
)

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

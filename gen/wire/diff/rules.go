// Package diff compares two revisions of a dshgen protocol schema and says,
// change by change, which side of the wire and which generated code each
// change breaks.
//
// Both revisions are loaded into the one IR (ir.Load), types are matched by
// schema name (and renames are found structurally), and every difference is
// reported as a Finding under one of the Rules below, with the JSON pointer
// of the changed node in both files. Wire effects are direction-aware: a
// type's direction comes from where methods use it (params are sent by the
// method's direction, results the other way), so the same change can break
// old clients talking to a new server in one place and nobody in another.
//
// The rules, their categories and the reasoning behind them are data
// (Rules) and are printed as a Markdown table (RulesMarkdown, committed as
// RULES.md).
package diff

import (
	"fmt"
	"strings"
)

// Category says whom a change breaks. Categories are ordered by Severity.
type Category string

// The categories, mildest first.
const (
	// Compatible: no receiver that follows its schema and no code compiled
	// against the generated bindings breaks.
	Compatible Category = "compatible"
	// StrictReceivers: only receivers that refuse unknown values break:
	// unknown union tags, unknown enum strings, unknown methods. Receivers
	// that follow the protocol's extension policy (the generated bindings
	// keep unknown tags as raw "unknown" variants, accept unknown enum
	// strings, and peers answer or drop unknown methods) do not.
	StrictReceivers Category = "wire-strict-receivers"
	// CodeBreaking: no wire byte changes meaning, but code compiled against
	// the generated Go/Python/TypeScript bindings must change (a type,
	// member, constant or identifier disappears or changes type).
	CodeBreaking Category = "code-breaking"
	// WireBreakingC2S: a frame sent from client to server by one revision
	// is rejected (or misread) by the other revision's server, even one
	// that follows the extension policy.
	WireBreakingC2S Category = "wire-breaking-client-to-server"
	// WireBreakingS2C: the same for frames sent from server to client.
	WireBreakingS2C Category = "wire-breaking-server-to-client"
)

// WireBreaking is the category of a rule whose findings become
// WireBreakingC2S or WireBreakingS2C by the direction the changed payload
// travels in. It never appears on a Finding.
const WireBreaking Category = "wire-breaking-<direction>"

// Severity orders categories: compatible 0, wire-strict-receivers 1,
// code-breaking 2, wire-breaking-* 3.
func (c Category) Severity() int {
	switch c {
	case StrictReceivers:
		return 1
	case CodeBreaking:
		return 2
	case WireBreakingC2S, WireBreakingS2C, WireBreaking:
		return 3
	}
	return 0
}

// Effect says which pairing of revisions a wire change breaks. Narrow: the
// new revision accepts less, so old senders → new receivers break. Widen:
// the new revision may send more, so new senders → old receivers break.
type Effect uint8

// Effects; Both = Narrow|Widen.
const (
	Narrow Effect = 1 << iota
	Widen
	Both = Narrow | Widen
)

// Rule is one kind of change.
type Rule struct {
	// ID is the stable rule id, e.g. "required-member-added".
	ID string
	// Category is the rule's category; WireBreaking resolves per direction.
	Category Category
	// Effect is the pairing a wire-breaking or strict change breaks (0 for
	// the other categories; some findings compute their own).
	Effect Effect
	// Code is true when the change also breaks code compiled against the
	// generated bindings.
	Code bool
	// PerDirection is true for changes to a payload: one finding is made for
	// each direction the payload travels in.
	PerDirection bool
	// Description says what the rule detects and why it has its category.
	Description string
}

// Rules lists every rule, in the order of the RULES.md table.
var Rules = []Rule{
	// Methods.
	{"request-added", Compatible, 0, false, false,
		"A request method was added. Old senders never send it; a new sender calling it on an old receiver gets a JSON-RPC error response (-32603/-32601 for an unknown method), which the protocol already defines."},
	{"notification-added", StrictReceivers, Widen, false, false,
		"A notification was added. Old receivers that follow the extension policy drop an unknown notification (both SDKs do); receivers that reject unknown methods (a strict validator) break when a new sender sends it."},
	{"request-removed", WireBreaking, Narrow, true, false,
		"A request method was removed: old senders still call it and the new receiver answers with an error (old senders → new receiver). Its constants and params/result map entries disappear from the bindings."},
	{"notification-removed", WireBreaking, Both, true, false,
		"A notification was removed: old receivers waiting for it never get it from a new sender (new sender → old receivers), and a new receiver does not know it when an old sender sends it (old sender → new receivers). Its constants disappear from the bindings."},
	{"method-kind-changed", WireBreaking, Both, true, false,
		"A method changed between request and notification: one side waits for a response the other never sends, or gets one it never asked for."},
	{"method-direction-changed", WireBreaking, Both, true, false,
		"A method is now sent by the other side: each revision's receiver of the method is the other revision's sender. Reported once for each direction."},
	{"params-made-required", WireBreaking, Narrow, false, false,
		"paramsOptional was turned off: old senders that leave params out are rejected by the new receiver."},
	{"params-made-optional", WireBreaking, Widen, false, false,
		"paramsOptional was turned on: new senders may leave params out, which old receivers reject."},
	{"method-params-type-changed", CodeBreaking, 0, true, false,
		"The params $ref names another type (not a rename of the old one): the method's params type in the bindings changes. What changes on the wire is reported by comparing the two types."},
	{"method-result-type-changed", CodeBreaking, 0, true, false,
		"The result $ref names another type (not a rename of the old one): the method's result type in the bindings changes. What changes on the wire is reported by comparing the two types."},
	{"method-identifier-changed", CodeBreaking, 0, true, false,
		"A method keeps its wire name but its generated identifiers change (x-name)."},

	// Named types.
	{"type-added", Compatible, 0, false, false,
		"A named type was added."},
	{"type-removed", CodeBreaking, 0, true, false,
		"A named type was removed (and no new type has its shape or its usage sites). Code using it breaks; wire effects are reported where it was used."},
	{"type-renamed", CodeBreaking, 0, true, false,
		"A named type has a new name: same shape at the new name, or the same usage sites. Nothing changes on the wire; code naming the old type breaks. The two definitions are compared as one type."},
	{"type-identifier-changed", CodeBreaking, 0, true, false,
		"A type keeps its schema name but its generated identifiers change (x-name, x-go-name, x-python-name, x-ts-name)."},
	{"type-kind-changed", WireBreaking, Both, true, true,
		"A type changed what it is (object, union, enum): values of one revision do not fit the other in either pairing."},

	// Object members.
	{"optional-member-added", Compatible, 0, false, true,
		"An optional member was added to an open object: old receivers keep it as an unknown member, new receivers do without it."},
	{"required-member-added", WireBreaking, Narrow, true, true,
		"A required member was added: old senders do not send it and the new receiver rejects the value (old senders → new receivers). Constructors in the bindings need the new member."},
	{"member-added-to-closed-object", WireBreaking, Widen, false, true,
		"A member was added to a closed object (additionalProperties: false): new senders send it, old receivers reject an undeclared member (new senders → old receivers)."},
	{"optional-member-removed", CodeBreaking, 0, true, false,
		"An optional member was removed from an open object: old senders' member is kept as unknown, old receivers do without it. Its accessor disappears from the bindings."},
	{"required-member-removed", WireBreaking, Widen, true, true,
		"A required member was removed: new senders may leave it out and old receivers require it (new senders → old receivers)."},
	{"member-removed-from-closed-object", WireBreaking, Narrow, true, true,
		"A member was removed from a closed object: old senders still send it and the new receiver rejects an undeclared member (old senders → new receivers)."},
	{"member-forbidden", WireBreaking, Narrow, false, true,
		"An object now forbids a member with a not assertion (not: {required: [m]}, on the object or inside its allOf), whether or not it still declares it: old senders that send it are rejected by the new receiver (old senders → new receivers). A member removed this way is also reported as removed."},
	{"member-unforbidden", WireBreaking, Widen, false, true,
		"An object no longer forbids a member its not assertion forbade: new senders may send it and old receivers reject it (new senders → old receivers)."},
	{"member-made-required", WireBreaking, Narrow, true, true,
		"An optional member became required: old senders that leave it out are rejected (old senders → new receivers). Its binding type changes from optional to plain."},
	{"member-made-optional", WireBreaking, Widen, true, true,
		"A required member became optional: new senders may leave it out and old receivers require it (new senders → old receivers). Its binding type becomes optional."},
	{"member-identifier-changed", CodeBreaking, 0, true, false,
		"A member keeps its wire name but its generated identifiers change (x-name and the per-language overrides)."},
	{"object-closed", WireBreaking, Narrow, true, true,
		"An open object became closed: old senders' extra members are rejected by the new receiver. The bindings lose the map that kept unknown members."},
	{"object-opened", WireBreaking, Widen, false, true,
		"A closed object became open: new senders may add members that old receivers reject."},

	// Values: members, array items, map values, alias targets.
	{"value-type-changed", WireBreaking, Both, true, true,
		"A value's JSON type changed (for example string → integer): neither revision's values fit the other."},
	{"value-type-widened", WireBreaking, Widen, true, true,
		"A value's type now allows more (integer → number, a type → any JSON value): new senders may send values old receivers reject."},
	{"value-type-narrowed", WireBreaking, Narrow, true, true,
		"A value's type now allows less (number → integer, any JSON value → a type): old senders' values may be rejected by new receivers."},
	{"value-ref-changed", CodeBreaking, 0, true, false,
		"A value refers to another named type, or a named type was inlined or named, with the same wire shape: the binding type of the value changes. Wire differences between the two types are reported separately."},
	{"nullable-added", WireBreaking, Widen, true, true,
		"A value may now be null: new senders may send null, which old receivers reject."},
	{"nullable-removed", WireBreaking, Narrow, true, true,
		"A value may no longer be null: old senders' null is rejected by new receivers."},
	{"const-changed", WireBreaking, Both, true, true,
		"A member pinned to a const (a literal member, not a union tag) has another value: each revision rejects the other's value."},
	{"const-added", WireBreaking, Narrow, true, true,
		"A member is now pinned to one const value: old senders' other values are rejected."},
	{"const-removed", WireBreaking, Widen, true, true,
		"A member is no longer pinned to a const: new senders may send other values, which old receivers reject."},

	// Enums (named, or inline string enums).
	{"enum-value-added", StrictReceivers, Widen, false, true,
		"An enum value was added (or the enum was dropped for a plain string): new senders may send it; receivers that accept unknown enum strings (the generated bindings) keep it, strict receivers reject it."},
	{"enum-value-removed", StrictReceivers, Narrow, true, true,
		"An enum value was removed (or a plain string became an enum): old senders may still send it; receivers that accept unknown enum strings keep it, strict receivers reject it. Its constant disappears from the bindings."},
	{"enum-identifier-changed", CodeBreaking, 0, true, false,
		"An enum value keeps its wire value but its generated constant name changes (x-enum-names)."},

	// Unions.
	{"union-variant-added", StrictReceivers, Widen, false, true,
		"A variant was added to a closed tagged union: new senders may send its tag; old bindings keep it as an unknown variant, strict receivers (a closed union rejects unknown tags) break."},
	{"open-union-variant-added", Compatible, 0, false, true,
		"A variant was added to an open tagged union: its tag was already valid for old receivers through the fallback branch (reported as unknown, never lost)."},
	{"union-variant-removed", StrictReceivers, Narrow, true, true,
		"A variant was removed from a tagged union that is closed in the new revision: old senders' tag is unknown to new receivers; the bindings keep it as an unknown variant, strict receivers reject it. The variant type disappears from the union in the bindings."},
	{"open-union-variant-removed", CodeBreaking, 0, true, false,
		"A variant was removed from a tagged union that is open in the new revision: old senders' tag is still valid (as an unknown tag through the fallback); code using the variant breaks."},
	{"union-variant-tag-changed", WireBreaking, Both, true, true,
		"A variant kept its type but its tag value changed: each revision reads the other's tag as a different (unknown) variant."},
	{"union-variant-type-changed", CodeBreaking, 0, true, false,
		"The variant at a tag is now another named type (not a rename): the variant type in the bindings changes. Wire differences between the two types are reported separately."},
	{"union-opened", StrictReceivers, Widen, false, true,
		"A closed tagged union gained a fallback branch: new senders may send unknown tags, which strict old receivers reject (the bindings keep them)."},
	{"union-closed", StrictReceivers, Narrow, false, true,
		"An open tagged union lost its fallback branch: old senders' unknown tags become errors for strict receivers (the bindings still keep them)."},
	{"union-tag-changed", WireBreaking, Both, true, true,
		"A tagged union is discriminated by another member: no tagged value of one revision is read as the same variant by the other."},
	{"union-mode-changed", WireBreaking, Both, true, true,
		"A union changed how its variant is chosen (by tag, by JSON type, by shape)."},
	{"union-branch-added", WireBreaking, Widen, false, true,
		"A branch was added to a union chosen by JSON type or by shape: new senders may send values old receivers cannot place (no unknown-variant fallback exists for these unions)."},
	{"union-branch-removed", WireBreaking, Narrow, true, true,
		"A branch was removed from a union chosen by JSON type or by shape: old senders' values of that branch are rejected by new receivers."},

	// Constraints (validator-checked assertions).
	{"constraint-tightened", WireBreaking, Narrow, false, true,
		"A constraint now allows less (minimum/minLength/minItems/minProperties raised or added, maximum/maxLength/maxItems/maxProperties lowered or added, pattern/format/multipleOf added, uniqueItems turned on): old senders' values may be rejected."},
	{"constraint-loosened", WireBreaking, Widen, false, true,
		"A constraint now allows more (the reverse of constraint-tightened, or a constraint removed): new senders may send values old receivers reject."},
	{"constraint-changed", WireBreaking, Both, false, true,
		"A pattern, format or multipleOf changed to another value: each revision may reject values of the other."},
}

// ruleByID indexes Rules.
var ruleByID = func() map[string]*Rule {
	m := make(map[string]*Rule, len(Rules))
	for i := range Rules {
		r := &Rules[i]
		if m[r.ID] != nil {
			panic("diff: duplicate rule id " + r.ID)
		}
		m[r.ID] = r
	}
	return m
}()

// RuleByID returns the rule with id (nil when there is none).
func RuleByID(id string) *Rule { return ruleByID[id] }

// breaksText describes the pairings an effect breaks for a payload in
// direction dir ("client-to-server" or "server-to-client").
func breaksText(dir string, e Effect, strict bool) string {
	senders, receivers := "clients", "server"
	if dir == "server-to-client" {
		senders, receivers = "server", "clients"
	}
	if strict {
		receivers = "strict " + receivers
	}
	var parts []string
	if e&Narrow != 0 {
		parts = append(parts, fmt.Sprintf("old %s → new %s", senders, receivers))
	}
	if e&Widen != 0 {
		parts = append(parts, fmt.Sprintf("new %s → old %s", senders, receivers))
	}
	return strings.Join(parts, "; ")
}

// RulesMarkdown renders the rule table as Markdown (the content of RULES.md).
func RulesMarkdown() string {
	var b strings.Builder
	b.WriteString("# `dshgen diff` rules\n\n")
	b.WriteString("Generated from `gen/wire/diff/rules.go` (`go test ./gen/wire/diff -run TestRulesMarkdown -update` rewrites this file).\n\n")
	b.WriteString("`dshgen diff OLD NEW` reports every change between two schema revisions under one of these rules.\n")
	b.WriteString("A payload type travels in the directions in which methods use it: params are sent in the method's\n")
	b.WriteString("direction, results the other way, and every type reachable from them inherits that direction (a type\n")
	b.WriteString("used both ways is checked both ways). Rules marked *per direction* give one finding per direction,\n")
	b.WriteString("and `wire-breaking-<direction>` becomes `wire-breaking-client-to-server` or\n")
	b.WriteString("`wire-breaking-server-to-client`. A type that no method reaches (the JSON-RPC envelope definitions, or\n")
	b.WriteString("a schema with only `$defs`) is checked as travelling both ways: the conservative choice.\n\n")
	b.WriteString("Wire-breaking or strict? Both compare what one revision's sender may write with what the other\n")
	b.WriteString("revision's receiver accepts. The protocol's extension policy says receivers keep what they do not\n")
	b.WriteString("know at its extension points: unknown members of open objects, unknown tags of tagged unions (kept\n")
	b.WriteString("as an unknown variant), unknown enum strings, and unknown notifications/methods (dropped, or\n")
	b.WriteString("answered with an error). A change whose only casualty is a receiver that refuses unknowns at those\n")
	b.WriteString("points is `wire-strict-receivers` — in either pairing, so removing an enum value or a variant is strict\n")
	b.WriteString("like adding one (the removal also breaks code). Everything else a schema-following receiver rejects\n")
	b.WriteString("is wire-breaking: types, required members, null, closed objects, consts, untagged unions, and\n")
	b.WriteString("constraints (minimum, maxLength, pattern, …), which are contracts that real receivers enforce (the\n")
	b.WriteString("runtime rejects `initialize.maxTokens` < 1), not extension points.\n\n")
	b.WriteString("Which pairing breaks: *old → new* means senders of the old revision talking to receivers of the new\n")
	b.WriteString("one (the new revision accepts less); *new → old* the reverse (the new revision may send more).\n\n")
	b.WriteString("Categories, mildest first (`--fail-on` fails on the named category or worse):\n\n")
	b.WriteString("| category | meaning | fails `--fail-on` |\n|---|---|---|\n")
	b.WriteString("| `compatible` | nobody breaks | — |\n")
	b.WriteString("| `wire-strict-receivers` | only receivers that reject unknown tags, unknown enum strings or unknown methods break; the generated bindings keep unknown tags as an unknown variant and accept unknown enum strings | `strict` |\n")
	b.WriteString("| `code-breaking` | no wire byte changes meaning, but code compiled against the generated bindings breaks | `code`, `strict` |\n")
	b.WriteString("| `wire-breaking-client-to-server` | a client→server frame of one revision is rejected or misread by the other revision's server | `wire` (default), `code`, `strict` |\n")
	b.WriteString("| `wire-breaking-server-to-client` | the same for server→client frames (notifications, and results of client requests) | `wire` (default), `code`, `strict` |\n\n")
	b.WriteString("A finding whose rule also breaks generated code says so (`breaks generated code`; `\"code\": true` in JSON) and\n")
	b.WriteString("fails `--fail-on code`. Constraints compared: `minimum`, `maximum`, `exclusiveMinimum`,\n")
	b.WriteString("`exclusiveMaximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, `minProperties`, `maxProperties`,\n")
	b.WriteString("`uniqueItems`, `pattern`, `format`, `multipleOf`, on member, item, alias and enum schemas (including\n")
	b.WriteString("the non-null branch of a nullable `anyOf`/`oneOf`); constraints inside `allOf`, `if`/`then` and `not`\n")
	b.WriteString("are not compared.\n\n")
	b.WriteString("| rule | category | breaks | per direction | + code | description |\n|---|---|---|---|---|---|\n")
	for _, r := range Rules {
		pairing := "—"
		switch r.Effect {
		case Narrow:
			pairing = "old → new"
		case Widen:
			pairing = "new → old"
		case Both:
			pairing = "both"
		}
		per, code := "", ""
		if r.PerDirection {
			per = "yes"
		}
		if r.Code {
			code = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s |\n", r.ID, r.Category, pairing, per, code, r.Description)
	}
	return b.String()
}

// Package ruleset is the registry of protocol rule sets: the stateful
// rules of one protocol beyond what JSON-RPC 2.0 and the schema say (the
// DeepSeek Harness SDK's session event numbering, tool pairing and the
// like). A schema opts into rule sets by name with the top-level extension
// keyword
//
//	"x-dshgen-rules": ["deepseek-harness"]
//
// and gen/wire/validate runs them on every stream; a schema without it gets
// only the generic JSON-RPC 2.0 rules (envelope, id and error object,
// request/response pairing, duplicate ids in flight, method table and
// direction). A rule set registers itself from its package's init (the
// built-in ones are linked by gen/wire/validate); it sees the frames through
// Frame and reports through it, so it needs nothing of the validator.
package ruleset

import (
	"fmt"
	"sort"
	"sync"

	"github.com/dshgen/dshgen/gen/ir"
)

// Keyword is the schema's top-level extension keyword naming its rule sets.
const Keyword = "x-dshgen-rules"

// Severity names: "error", "warning", "info" (and "off" as an override).
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
	Off     = "off"
)

// Rule describes one rule of a set for the validator's rule table (RULES.md).
// IDs are stable: CI jobs filter on them.
type Rule struct {
	ID       string
	Severity string // default severity
	Stage    string // "state" for the stateful rules
	Doc      string
	Example  string
}

// Config is what a rule set may be told about one validator.
type Config struct {
	// Snapshot: the upstream's normalized snapshot fixtures are validated
	// (placeholder session ids stand for several sessions).
	Snapshot bool
	// Severity overrides a rule's default severity by rule id (Off: the
	// rule does not report).
	Severity map[string]string
}

// Frame is one frame as a rule set sees it, in stream order.
type Frame interface {
	// Line is the frame's line in its stream.
	Line() int
	// Dir is the side that sent it ("" when unknown).
	Dir() ir.Direction
	// Method is the request's or notification's method.
	Method() string
	// ID is a request's or response's id as JSON text.
	ID() string
	// Params is the params (Absent when the frame has none), as far as
	// the Checker's Reads selects them: a view of the frame's bytes in the
	// common case, nothing decoded (Value). A set checks its Kind: params
	// that are not an object are no params.
	Params() Value
	// Report adds a finding on this frame: rule is one of the set's rule
	// ids, sev "" its default (or the configured override), ptr a JSON
	// pointer into the frame, msg one line.
	Report(rule, sev, ptr, msg string)
}

// Stream is a rule set's state for one stream (connection or file). Its
// methods are called from one goroutine, frame by frame. valid is false
// when the frame's params did not match the schema (a bad frame gets its
// schema finding, not a cascade; the set may still track what it needs).
type Stream interface {
	// Request sees a request; what it returns is handed back with the
	// response (nil if the set needs nothing).
	Request(f Frame, valid bool) any
	// Response sees the response to a request Request saw; isError is
	// true for an error response.
	Response(f Frame, token any, isError bool)
	// Notification sees a notification.
	Notification(f Frame, valid bool)
}

// Checker is a rule set compiled for one schema.
type Checker interface {
	// NewStream starts the state of one stream.
	NewStream() Stream
}

// Reader is an optional interface of a Checker: the parts of a method's
// params its streams read, as JSON pointers into params ("/event/seq";
// "*" stands for every element of an array, "" for all of params). Frame
// Params then shows those members, whole, and the objects and arrays on
// the way to them, nothing else (a non-object on the way reads as Null);
// nil means the streams read no params of that method (Params is Absent).
// A Checker without Reads sees every method's whole params. Reads keeps a
// set honest about what it depends on (the validator's tests check that
// the findings are the same with all params shown).
type Reader interface {
	Reads(method string) []string
}

// Set is a named rule set.
type Set interface {
	// Name is what a schema's x-dshgen-rules names it by.
	Name() string
	// Rules lists its rules, in check order.
	Rules() []Rule
	// Compile prepares the set for a schema; rules whose subject the
	// schema does not define (an event type, a method) may simply not run.
	Compile(m *ir.Model, cfg Config) (Checker, error)
}

var (
	mu  sync.Mutex
	reg = map[string]Set{}
)

// Register adds a set; a second set of the same name panics (at init).
func Register(s Set) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := reg[s.Name()]; dup {
		panic(fmt.Sprintf("ruleset: %q registered twice", s.Name()))
	}
	reg[s.Name()] = s
}

// Lookup returns the set registered under name.
func Lookup(name string) (Set, bool) {
	mu.Lock()
	defer mu.Unlock()
	s, ok := reg[name]
	return s, ok
}

// All returns the registered sets, sorted by name.
func All() []Set {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Set, 0, len(reg))
	for _, s := range reg {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

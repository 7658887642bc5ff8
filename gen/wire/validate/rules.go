package validate

import (
	"github.com/dshgen/dshgen/gen/wire/validate/rulesets/harness"
	"github.com/dshgen/dshgen/gen/wire/validate/rulesets/lifecycle"
)

// Severity is how bad a finding is. Only errors make `dshgen validate` exit 1.
type Severity string

// Severities. Off is only an option value (a rule switched off).
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
	Off     Severity = "off"
)

// ParseSeverity parses "error", "warning", "info" or "off".
func ParseSeverity(s string) (Severity, bool) {
	switch Severity(s) {
	case Error, Warning, Info, Off:
		return Severity(s), true
	}
	return "", false
}

// Rule is one check of the validator. Rule ids are stable: CI jobs filter
// on them and RULES.md lists them.
type Rule struct {
	ID string
	// Severity is the default severity; some findings of a rule use another
	// one (the rule's Doc says when).
	Severity Severity
	// Stage is the check stage, in the order the checks run.
	Stage string
	// Doc says what the rule checks.
	Doc string
	// Example is one message the rule produces (for RULES.md).
	Example string
}

// Rule ids.
const (
	RuleInput             = "input.read"
	RuleInternal          = "internal.error"
	RuleCaptureFormat     = "capture.format"
	RuleFrameTooLarge     = "frame.too-large"
	RuleFrameBOM          = "frame.bom"
	RuleFrameCRLF         = "frame.crlf"
	RuleFrameBlank        = "frame.blank"
	RuleFrameNoNewline    = "frame.no-final-newline"
	RuleFrameUTF8         = "frame.utf8"
	RuleFrameJSON         = "frame.json"
	RuleFrameNotObject    = "frame.not-object"
	RuleEnvJSONRPC        = "envelope.jsonrpc"
	RuleEnvID             = "envelope.id"
	RuleEnvKind           = "envelope.kind"
	RuleEnvResponse       = "envelope.response"
	RuleMethodUnknown     = "method.unknown"
	RuleMethodKind        = "method.kind"
	RuleMethodDirection   = "method.direction"
	RuleParams            = "params.schema"
	RuleResult            = "result.schema"
	RuleError             = "error.schema"
	RuleValue             = "value.schema"
	RuleUnionMissingTag   = "union.missing-tag"
	RuleUnionUnknownTag   = "union.unknown-tag"
	RuleRequestDuplicate  = "request.duplicate-id"
	RuleResponseUnknownID = "response.unknown-id"
	RuleResponseDuplicate = "response.duplicate"
	RuleRequestUnanswered = "request.unanswered"
	RulePairingLimit      = "pairing.limit"
	RuleBaselineStale     = "baseline.stale"
)

// Rule ids of the built-in rule sets: initialize-first
// (gen/wire/validate/rulesets/lifecycle) and deepseek-harness
// (gen/wire/validate/rulesets/harness).
const (
	RuleInitializeFirst = lifecycle.RuleInitializeFirst
	RuleSeq             = harness.RuleSeq
	RuleTurn            = harness.RuleTurn
	RuleStep            = harness.RuleStep
	RuleToolResult      = harness.RuleToolResult
	RuleSurfaceOp       = harness.RuleSurfaceOp
	RuleSubagent        = harness.RuleSubagent
	RulePromptOverlap   = harness.RulePromptOverlap
)

// Rules lists every rule in check order (findings on one line are sorted
// in this order): the generic rules, then every registered rule set's (by
// set name) before value.schema.
var Rules = withSetRules(coreRules)

func withSetRules(core []Rule) []Rule {
	last := len(core) - 1 // value.schema
	out := append(append([]Rule(nil), core[:last]...), setRules()...)
	return append(out, core[last])
}

var coreRules = []Rule{
	{RuleInput, Error, "input", "the input could not be read (I/O error); reported for the stream, reading stops", `read error: input/output error`},
	{RuleInternal, Error, "input", "the validator itself failed on this frame (a bug in dshgen or the validation library: please report it with the frame); the frame's other checks may be missing, the rest of the stream is checked", `the validator failed on this frame: runtime error: invalid memory address or nil pointer dereference`},
	{RuleCaptureFormat, Error, "framing", "a line of an interleaved capture is not DIR<TAB>MS<TAB>frame (DIR C->S or S->C, optionally (EOF) or (no-newline)); the line is skipped", `unknown direction tag "X->Y" (want C->S or S->C, optionally with (EOF) or (no-newline)); line skipped`},
	{RuleFrameTooLarge, Error, "framing", "a line is longer than --max-frame-bytes (default 64 MiB); it is skipped without being buffered and reading goes on", `frame of 1126399 bytes exceeds the limit of 1048576 bytes (--max-frame-bytes); frame skipped`},
	{RuleFrameBOM, Warning, "framing", "a UTF-8 byte order mark before a frame; upstream's TS reader trims it, Python's json.loads rejects it; the frame is validated without it", `byte order mark (EF BB BF) before the frame: the TS runtime ignores it, Python's json.loads rejects it`},
	{RuleFrameCRLF, Warning, "framing", "a CRLF line end (the writers use LF); the CR is not part of the frame; reported once per stream and direction", `CRLF line end (writers end frames with LF only; the CR is ignored); further CRLF lines in this stream are not reported`},
	{RuleFrameBlank, Warning, "framing", "an empty or whitespace-only line; upstream receivers skip it, no writer emits one", `blank line (receivers skip it; no writer emits one)`},
	{RuleFrameNoNewline, Warning, "framing", "the last line has no terminating LF; it is validated like any other", `last line not terminated by LF (validated anyway)`},
	{RuleFrameUTF8, Error, "framing", "the line is not valid UTF-8; the rest of the checks run on the frame with invalid bytes replaced by U+FFFD", `frame is not valid UTF-8 (first bad byte at column 12); checked with U+FFFD in its place`},
	{RuleFrameJSON, Error, "framing", "the line is not one JSON value; upstream receivers silently drop such lines, the validator reports them", `not JSON: invalid character 'h' in literal true (expecting 'r') at column 2 (receivers drop the line)`},
	{RuleFrameNotObject, Error, "framing", "the line is JSON but not an object (receivers drop it)", `frame is a JSON integer, not an object (receivers drop it)`},
	{RuleEnvJSONRPC, Error, "envelope", `the "jsonrpc" member is missing or not "2.0" (missing is tolerated with --snapshot)`, `"jsonrpc" member missing (every writer sends "jsonrpc":"2.0")`},
	{RuleEnvID, Error, "envelope", "the id is not a JsonRpcId (string or integer), or a notification carries an id member", `id 1.5 is not a valid JsonRpcId (a string or an integer)`},
	{RuleEnvKind, Error, "envelope", "the frame is neither a request (id and method), a response (id, no method) nor a notification (method, no id); receivers drop it", `frame is neither a request (id and method), a response (id) nor a notification (method); receivers drop it`},
	{RuleEnvResponse, Error, "envelope", "a response has both or neither of result and error", `response has neither "result" nor "error"`},
	{RuleMethodUnknown, Warning, "method", "the method is not in the schema's x-methods: a warning, as an unknown tag of an open union (JSON-RPC 2.0 peers answer an unknown method with an error, the runtime with -32603), the same whatever the peer answered (its answer is added to the message)", `unknown method "no/such/method" (known: initialize, session.event, session.status, session/prompt, shutdown, subagent.finished, subagent.started)`},
	{RuleMethodKind, Error, "method", "a notification method sent as a request (with id) or a request method sent as a notification (without id)", `"session.event" is a notification but was sent as a request (with an id)`},
	{RuleMethodDirection, Error, "method", "the method was sent by the wrong side (x-methods direction)", `"initialize" is sent client-to-server but this frame went server-to-client`},
	{RuleParams, Error, "params", "params do not match the method's params type; the same error whatever the peer answered (an error response is added to the message as context)", `/params/event/seq: must be >= 0 but found -1`},
	{RuleUnionMissingTag, Error, "params", "a tagged union value has no tag member (or a non-string one)", `/params/event: discriminator "type" missing (SessionEvent: one of "agent/inbox/spliced", "assistant/chunk", …)`},
	{RuleUnionUnknownTag, Warning, "params", "a tagged union value has a tag no branch declares: a warning in an open union (one with a fallback branch), an error in a closed one", `/params/event/type: unknown SessionEvent type "bogus/event" (not one of its 48 known tags; accepted by the open union's fallback branch)`},
	{RuleRequestDuplicate, Error, "pairing", "a request reuses the id of a request from the same side that is still waiting for its response (both directions visible only)", `id "req_1" is already in flight (request at line 3)`},
	{RuleResponseUnknownID, Error, "pairing", "a response whose id matches no request from the other side (both directions visible only)", `response to id "req_x": no request with this id was sent`},
	{RuleResponseDuplicate, Error, "pairing", "a second response to an already answered request", `second response to id "req_1" (answered at line 5)`},
	{RuleResult, Error, "pairing", "a success response's result does not match the result type of the request's method", `/result/serverInfo: missing properties: 'version'`},
	{RuleError, Error, "pairing", "an error response's error does not match JsonRpcError", `/error/code: expected integer, but got string`},
	{RuleRequestUnanswered, Info, "pairing", "a request got no response before the end of the stream (both directions visible only)", `no response to "session/prompt" (id "req_2") before the end of the stream`},
	{RulePairingLimit, Warning, "pairing", "more than MaxPending (65 536) requests wait for their response at once: requests from that side are no longer paired from here on (memory stays bounded); reported once", `more than 65536 requests wait for their response; from here on requests from this side are not paired (their findings are reported at once, and responses that may answer them are not reported as response.unknown-id)`},
	{RuleBaselineStale, Error, "baseline", "an entry of the --baseline file matched no finding of the run: the problem it accepted is gone (or the entry is mistyped); remove it, or rewrite the file with --write-baseline", `entry {"rule":"params.schema","method":"session/prompt","pointer":"/params/x"} matched no finding (stale: remove it or rewrite the baseline with --write-baseline)`},
	{RuleValue, Error, "params", "--type mode: the value does not match the named type", `/shapes/0/side: expected number, but got string`},
}

var ruleIndex = func() map[string]int {
	m := map[string]int{}
	for i, r := range Rules {
		m[r.ID] = i
	}
	return m
}()

// RuleByID returns the rule with id (ok false when none).
func RuleByID(id string) (Rule, bool) {
	i, ok := ruleIndex[id]
	if !ok {
		return Rule{}, false
	}
	return Rules[i], true
}

func defaultSeverity(id string) Severity {
	if r, ok := RuleByID(id); ok {
		return r.Severity
	}
	return Error
}

package validate

import (
	"bytes"
	"strings"
	"testing"
)

// TestBaselineMatching: entries match by rule, method, union tag and
// pointer ("*" any one segment), never by line or message; an entry that
// matched nothing is stale; written baselines generalize array indexes and
// read back to the same matches.
func TestBaselineMatching(t *testing.T) {
	b, err := parseBaseline("b.jsonl", strings.NewReader(`# comment

{"rule":"params.schema","method":"session.event","type":"assistant/message","pointer":"/params/event/data/content/*/text"}
{"rule":"method.unknown","method":"x/y","pointer":"/method"}
`))
	if err != nil {
		t.Fatal(err)
	}
	hit := Finding{Rule: RuleParams, Method: "session.event", Branch: "type=assistant/message, type=text", Pointer: "/params/event/data/content/3/text", Line: 99}
	for _, f := range []Finding{
		hit,
		{Rule: RuleParams, Method: "session.event", Branch: "type=assistant/message", Pointer: "/params/event/data/content/0/text", Line: 1, Message: "other"},
	} {
		if !b.match(&f) {
			t.Errorf("no match: %+v", f)
		}
	}
	for _, f := range []Finding{
		{Rule: RuleParams, Method: "session.event", Branch: "type=user/message", Pointer: hit.Pointer},
		{Rule: RuleResult, Method: "session.event", Branch: hit.Branch, Pointer: hit.Pointer},
		{Rule: RuleParams, Method: "session.event", Branch: hit.Branch, Pointer: "/params/event/data/content/3/text/x"},
	} {
		if b.match(&f) {
			t.Errorf("matched: %+v", f)
		}
	}
	stale := b.Stale()
	if len(stale) != 1 || stale[0].Line != 4 || stale[0].Rule != RuleBaselineStale || stale[0].Severity != Error {
		t.Errorf("stale: %+v", stale)
	}
	var w BaselineWriter
	w.Add(hit)
	w.Add(Finding{Rule: RuleRequestUnanswered, Severity: Info})
	hit.Severity = Error
	w.Add(hit)
	var out bytes.Buffer
	w.WriteTo(&out)
	if !strings.Contains(out.String(), `{"rule":"params.schema","method":"session.event","type":"assistant/message","pointer":"/params/event/data/content/*/text","note":"1 finding when written"}`) ||
		strings.Contains(out.String(), "request.unanswered") {
		t.Errorf("written:\n%s", out.String())
	}
	for _, bad := range []string{`{"rule":"params.schema","pointer":"x"}`, `{"rule":"params.schema","pointer":"/x","extra":1}`, `not json`} {
		if _, err := parseBaseline("b.jsonl", strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "b.jsonl:1:") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

package harness_test

import (
	"fmt"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
	"github.com/dshgen/dshgen/gen/wire/validate"
	"github.com/dshgen/dshgen/gen/wire/validate/rulesets/harness"
	"github.com/dshgen/dshgen/schema"
)

func ev(sid string, seq int, typ, data string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":%q,"event":{"type":%q,"seq":%d,"time":1,"data":%s}}}`, sid, typ, seq, data)
}

// TestForgetSessions: past MaxSessions the least recently seen session is
// forgotten, and that only loses checks: its next event is checked like a
// resumed session's (no finding), while a recent session is still checked.
func TestForgetSessions(t *testing.T) {
	m, err := ir.LoadBytes(schema.FileName, schema.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(m, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := v.NewStream(validate.StreamConfig{Name: "t", Direction: ir.ServerToClient})
	n := 0
	feed := func(line string) []validate.Finding {
		n++
		l := frame.Line{Num: n, Bytes: []byte(line), Size: int64(len(line)), LF: true}
		return s.Feed(ir.ServerToClient, &l)
	}
	for i := 0; i < harness.MaxSessions+10; i++ {
		if fs := feed(ev(fmt.Sprintf("s%d", i), 0, "turn/start", `{"turn":1}`)); len(fs) > 0 {
			t.Fatalf("session %d: %v", i, fs)
		}
	}
	// s0 was forgotten: seq 5 is a resumed session's first, not a gap.
	if fs := feed(ev("s0", 5, "turn/end", `{"turn":1,"reason":{"kind":"completed"}}`)); len(fs) > 0 {
		t.Errorf("forgotten session: %v", fs)
	}
	// The latest session is remembered: a gap is found.
	last := fmt.Sprintf("s%d", harness.MaxSessions+9)
	if fs := feed(ev(last, 3, "turn/end", `{"turn":1,"reason":{"kind":"completed"}}`)); len(fs) != 1 || fs[0].Rule != harness.RuleSeq {
		t.Errorf("recent session: %v", fs)
	}
}

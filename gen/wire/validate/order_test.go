package validate

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/gen/wire/frame"
)

// TestStreamOrder: ValidateStream writes the findings of a capture in the
// order SortFindings gives them (a request's findings wait for its
// response, and everything after it waits with them), and when a request
// waits behind more than maxHeldFindings findings, it stops holding them:
// they are written at once, its own come when known.
func TestStreamOrder(t *testing.T) {
	v := shipped(t, Options{})
	var b bytes.Buffer
	add := func(dir, frame string) { b.WriteString(dir + "\t0\t" + frame + "\n") }
	add("C->S", strings.Replace(initReq(`"r1"`), `"model":"m"`, `"model":"m","maxTokens":0`, 1)) // params.schema, held
	for i := 0; i < 50; i++ {
		add("C->S", `{}`) // two findings each
	}
	add("S->C", errRes(`"r1"`)) // the held finding gets the answer as context
	var got []Finding
	res, err := v.ValidateStream(bytes.NewReader(b.Bytes()), Input{Name: "c"}, func(f Finding) { got = append(got, f) })
	if err != nil || res.Frames != 52 {
		t.Fatal(err, res.Frames)
	}
	sorted := append([]Finding(nil), got...)
	SortFindings(sorted)
	if !reflect.DeepEqual(got, sorted) || got[0].Rule != RuleParams || got[0].Severity != Error || !strings.Contains(got[0].Message, "(the peer answered with error -32603 at line 52)") {
		t.Errorf("not in order:\n%s", dumpFindings(got[:3]))
	}

	// Past the bound: 2 × 6000 findings behind a request that is answered
	// at the end.
	b.Reset()
	add("C->S", strings.Replace(initReq(`"r1"`), `"model":"m"`, `"model":"m","maxTokens":0`, 1))
	for i := 0; i < 6000; i++ {
		add("C->S", `{}`)
	}
	add("S->C", errRes(`"r1"`))
	got = nil
	peak := 0
	o := &orderer{emit: func(f Finding) { got = append(got, f) }}
	s := v.NewStream(StreamConfig{Name: "c", Both: true})
	o.s = s
	for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		dir := c2s
		if parts[0] == "S->C" {
			dir = s2c
		}
		o.add(i+1, feedOne(s, dir, i+1, parts[2]))
		peak = max(peak, len(o.held))
	}
	o.close(s.Close())
	if peak > maxHeldFindings+2 {
		t.Errorf("held %d findings", peak)
	}
	last := got[len(got)-1]
	if len(got) != 12001 || last.Line != 1 || last.Rule != RuleParams || last.Severity != Error {
		t.Errorf("%d findings, last %s", len(got), TextLine(&last))
	}
}

// TestReportWriterFormats: the streaming writers give well-formed
// documents with several inputs, one of them without findings.
func TestReportWriterFormats(t *testing.T) {
	rep := &Report{}
	rep.Add("a.jsonl", Result{Frames: 2, Findings: []Finding{
		{Stream: "a.jsonl", Line: 1, Rule: RuleFrameBOM, Severity: Warning, Message: "m1"},
		{Stream: "a.jsonl", Line: 2, Rule: RuleParams, Severity: Error, Message: "m2 <&>"},
		{Stream: "a.jsonl", Line: 2, Rule: RuleSeq, Severity: Error, Message: "m3"},
	}})
	rep.Add("b & c.log", Result{Frames: 5, Capture: true})
	var out bytes.Buffer
	if err := WriteReport(&out, "json", rep); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("json round trip:\n%s", out.String())
	}
	out.Reset()
	if err := WriteReport(&out, "junit", rep); err != nil {
		t.Fatal(err)
	}
	var ju struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &ju); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if ju.Tests != 3 || ju.Failures != 1 || len(ju.Suites) != 2 || ju.Suites[0].Tests != 2 || ju.Suites[1].Name != "b & c.log" || ju.Suites[1].Cases[0].Name != "5 frames" {
		t.Errorf("junit %+v\n%s", ju, out.String())
	}
	out.Reset()
	if err := WriteReport(&out, "text", rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "dshgen validate: 2 streams, 7 frames: 2 errors, 1 warning, 0 info\n") {
		t.Errorf("text:\n%s", out.String())
	}
}

// feedOne feeds one line of dir's stream as line num.
func feedOne(s *Stream, dir ir.Direction, num int, line string) []Finding {
	l := frame.Line{Num: num, Bytes: []byte(line), Size: int64(len(line)), LF: true}
	return s.Feed(dir, &l)
}

// TestWaitingBounded: behind a request that is never answered, the
// answered ones are not kept (the ordering's queue stays within twice the
// pending requests).
func TestWaitingBounded(t *testing.T) {
	v := shipped(t, Options{})
	s := v.NewStream(StreamConfig{Name: "w", Both: true})
	feedOne(s, c2s, 1, initReq(`"never"`))
	for i := 0; i < 20000; i++ {
		id := fmt.Sprintf(`"r%d"`, i)
		feedOne(s, c2s, 2+2*i, `{"jsonrpc":"2.0","id":`+id+`,"method":"shutdown"}`)
		feedOne(s, s2c, 3+2*i, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}
	if n := len(s.waiting); n > 2*s.npending+1024 {
		t.Errorf("%d requests kept for %d pending", n, s.npending)
	}
}

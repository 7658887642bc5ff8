package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// planCorpus is the corpus of TestFastAgreesWithLibrary: every real frame,
// every mutation of the mutation suite, the snapshot frames.
func planCorpus(t testing.TB) [][]byte {
	var corpus [][]byte
	for _, sc := range []string{"text-turn", "bash-tool", "subagent", "parallel-sessions", "stdin-eof-idle", "unknown-method", "invalid-max-tokens", "malformed-lines"} {
		recs := loadCapture(t, sc)
		for _, r := range recs {
			corpus = append(corpus, r.payload)
		}
		for _, mu := range mutations {
			for i := range recs {
				if m, line := mu.apply(recs, i); line > 0 && line <= len(m) {
					corpus = append(corpus, m[line-1].payload)
				}
			}
		}
	}
	snaps, _ := filepath.Glob(filepath.Join(sharedDir(t), "fixtures", "upstream-snapshots", "*", "notifications.expected.jsonl"))
	for _, p := range snaps {
		data, _ := os.ReadFile(p)
		corpus = append(corpus, bytes.Split(data, []byte("\n"))...)
	}
	return corpus
}

// planAgrees compares the byte plan on raw with the fast check on its
// decoded value (the fast check agrees with the library:
// TestFastAgreesWithLibrary): the plan must never accept what the fast
// check does not, nor count fallbacks differently when both accept.
// It returns whether the plan accepted.
func planAgrees(t testing.TB, n *fnode, what string, raw []byte) bool {
	fbPlan, fbFast := 0, 0
	pv := n.scanValue(raw, &fbPlan)
	val, ok := fastDecode(raw)
	if !ok {
		if pv == accept {
			t.Errorf("%s: the plan accepts bytes that are not JSON: %q", what, raw)
		}
		return false
	}
	fv := n.check(val, 0, &fbFast)
	if pv == accept && fv != accept {
		t.Errorf("%s: the plan accepts, the fast check says %v: %s", what, fv, raw)
	}
	if pv == accept && fv == accept && fbPlan != fbFast {
		t.Errorf("%s: fallbacks: plan %d, fast check %d: %s", what, fbPlan, fbFast, raw)
	}
	return pv == accept
}

// TestPlanAgrees is the differential test of the byte plan over the real
// and mutated frames: params against their method's params type, results
// against every method's result type, errors and ids. Every value the
// fast check accepts must be accepted by the plan too (or validation is
// slow for it), except where the plan says Unknown by design.
func TestPlanAgrees(t *testing.T) {
	v := shipped(t, Options{})
	var checked, fastOnly int
	compare := func(ptr string, raw []byte) {
		n := v.fast[ptr]
		if n == nil {
			t.Fatalf("no fast check for %s", ptr)
		}
		checked++
		pa := planAgrees(t, n, ptr, raw)
		if val, ok := fastDecode(raw); ok && !pa && n.check(val, 0, nil) == accept {
			fastOnly++
			if fastOnly <= 5 {
				t.Logf("%s: accepted by the fast check only: %.300s", ptr, raw)
			}
		}
	}
	for _, line := range planCorpus(t) {
		if !json.Valid(line) {
			continue
		}
		obj, ok := decodeEnvelope(line, v.intern)
		if !ok {
			continue
		}
		if name, ok := obj["method"].(string); ok {
			if me := v.model.Method(name); me != nil && me.Params != nil {
				if p, ok := obj["params"].(rawJSON); ok {
					compare(me.Params.Pointer, p)
				}
			}
		}
		if res, ok := obj["result"].(rawJSON); ok {
			for _, me := range v.model.Methods {
				if me.Result != nil {
					compare(me.Result.Pointer, res)
				}
			}
		}
		for k, tp := range map[string]string{"error": "JsonRpcError", "id": "JsonRpcId"} {
			if x, ok := obj[k]; ok {
				if ty := v.model.TypeByName(tp); ty != nil {
					b, _ := json.Marshal(x)
					compare(ty.Pointer, b)
				}
			}
		}
	}
	if fastOnly > 0 {
		t.Errorf("%d of %d values accepted by the fast check but not by the plan", fastOnly, checked)
	}
	t.Logf("%d values: plan and fast check agree", checked)
}

// FuzzPlan: the byte plan against the fast check on any bytes, as the
// params of every method of the shipped schema.
//
//	go test -run XXX -fuzz FuzzPlan -fuzztime 5m ./gen/wire/validate/
func FuzzPlan(f *testing.F) {
	v := shipped(f, Options{})
	for i, line := range planCorpus(f) {
		if i%7 != 0 { // a sample of the corpus as seeds
			continue
		}
		if obj, ok := decodeEnvelope(line, v.intern); ok {
			if p, ok := obj["params"].(rawJSON); ok {
				f.Add([]byte(p))
			}
		}
	}
	f.Add([]byte(`{"sessionId":"a","event":{"type":"turn/start","seq":0,"time":1,"data":{"turn":1},"type":"x"}}`))
	f.Add([]byte(`{"sessionId":"a\u0041","event":{"type":"assistant\/chunk","seq":1e0,"time":1.0,"data":{}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !utfValid(raw) {
			return // prep checks the frame's UTF-8 first
		}
		for _, m := range v.model.Methods {
			if m.Params != nil {
				planAgrees(t, v.fast[m.Params.Pointer], m.Name, raw)
			}
		}
	})
}

func utfValid(b []byte) bool { return utf8.Valid(b) }

// TestReadsCoverWhatIsRead: the rule sets' Reads (ruleset.Reader) name
// everything their streams read: the real and mutated frames give the same
// findings with params decoded as far as the sets read them and decoded
// in full, and with the byte plan off.
func TestReadsCoverWhatIsRead(t *testing.T) {
	t.Setenv("DSHGEN_BENCH_MB", "1")
	bench, _ := benchCorpus(t)
	corpus := planCorpus(t)
	if testing.Short() {
		corpus = corpus[:len(corpus)/4]
	}
	streams := map[string][]byte{"bench": bench, "corpus": bytes.Join(corpus, []byte("\n"))}
	for _, sc := range []string{"text-turn", "bash-tool", "subagent", "parallel-sessions"} {
		var b bytes.Buffer
		for _, r := range loadCapture(t, sc) {
			b.Write(r.payload)
			b.WriteByte('\n')
		}
		streams[sc] = b.Bytes()
	}
	v := shipped(t, Options{})
	full := shipped(t, Options{})
	full.reads, full.readAll = nil, true
	noPlan := shipped(t, Options{})
	noPlan.noPlan = true
	for name, data := range streams {
		want := run(t, full, name, data, Input{})
		if name == "bench" && len(want.Findings) != 0 {
			t.Fatalf("%s: %d findings", name, len(want.Findings))
		}
		for what, x := range map[string]*Validator{"projected": v, "no plan": noPlan} {
			got := run(t, x, name, data, Input{})
			if !reflect.DeepEqual(got.Findings, want.Findings) {
				t.Errorf("%s, %s: %d findings, with whole params %d:\n%s\nwant:\n%s", name, what, len(got.Findings), len(want.Findings),
					dumpFindings(got.Findings[:min(20, len(got.Findings))]), dumpFindings(want.Findings[:min(20, len(want.Findings))]))
			}
		}
	}
}

package validate

import (
	"regexp"
	"testing"
)

// respelled matches the integers the state rules read (seq, turn, step,
// the elements of sourceEventSeqs), for TestRespelledNumbers.
var respelled = regexp.MustCompile(`"(seq|turn|step)":(\d+)|("sourceEventSeqs":\[)(\d+)`)

// TestRespelledNumbers: the clean real captures with three in four seq,
// turn, step and first sourceEventSeqs entries written as floats (`3.0`,
// as Python's json.dumps writes a float; `3E0`, `30e-1`) are still clean, the
// three ways (threeWays): JSON Schema's integer is the value, so the schema
// accepts them, and the state rules must read them as the same integers
// (they read only plain literals before: a respelled seq was skipped, and
// the next plain one reported as a gap).
func TestRespelledNumbers(t *testing.T) {
	vs := threeWays(t)
	for _, sc := range cleanScenarios {
		recs := loadCapture(t, sc)
		n := 0
		for i := range recs {
			recs[i].payload = respelled.ReplaceAllFunc(recs[i].payload, func(m []byte) []byte {
				n++
				sub := respelled.FindSubmatch(m)
				name, num := sub[1], sub[2]
				if name == nil {
					name, num = sub[3], sub[4]
				} else {
					name = []byte(`"` + string(name) + `":`)
				}
				spell := [][]byte{nil, []byte(".0"), []byte("E0"), []byte("0e-1")}[n%4]
				if string(num) == "0" && spell != nil {
					spell = []byte(".0") // 00e-1 is not JSON
				}
				return append(append(append([]byte(nil), name...), num...), spell...)
			})
		}
		if n == 0 {
			t.Fatalf("%s: nothing respelled", sc)
		}
		res := sameThreeWays(t, vs, buildCapture(recs), Input{})
		if len(res.Findings) != 0 {
			t.Errorf("%s, %d numbers respelled: %d findings:\n%s", sc, n, len(res.Findings), dumpFindings(res.Findings))
		}
	}
}

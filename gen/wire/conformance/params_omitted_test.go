package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// TestVectorsParamsOmitted: the vectors of a schema whose method defs
// declare no params member (testdata/cases/params-omitted) are built
// without a params schema: {} for an open def, no params member for a
// closed one; no invalid vector is built on the closed def.
func TestVectorsParamsOmitted(t *testing.T) {
	m, err := ir.Load(filepath.Join("..", "..", "..", "testdata", "cases", "params-omitted", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	var ping, stop, ready int
	for _, f := range set.Valid {
		switch {
		case strings.Contains(f.Line, `"method":"stop"`):
			stop++
			if strings.Contains(f.Line, `"params"`) {
				t.Errorf("stop (closed, no params member) sent with params: %s", f.Line)
			}
		case strings.Contains(f.Line, `"method":"ping"`):
			ping++
		case strings.Contains(f.Line, `"method":"ready","params":{}`):
			ready++
		}
	}
	if ping == 0 || stop == 0 || ready == 0 {
		t.Errorf("valid vectors: ping %d, stop %d, ready with {} %d; want each", ping, stop, ready)
	}
	for _, iv := range set.Invalid {
		for _, f := range iv.Frames {
			if strings.Contains(f.Line, `"method":"stop"`) {
				t.Errorf("invalid vector %s (%s) uses stop: %s", iv.Rule, iv.About, f.Line)
			}
		}
	}
}

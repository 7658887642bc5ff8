package validate

import (
	"testing"
)

// TestFastAgreesWithLibrary is the differential test of the fast check:
// over every real frame, every snapshot frame and every mutation of the
// mutation suite, no value is accepted by one and rejected by the other.
// Params are checked against their method's params type, results against
// every method's result type, errors against JsonRpcError.
func TestFastAgreesWithLibrary(t *testing.T) {
	v := shipped(t, Options{})
	corpus := planCorpus(t)
	var checked, unknowns, rejects int
	compare := func(ptr string, val any) {
		n := v.fast[ptr]
		sch, err := v.schemaAt(ptr)
		if err != nil || n == nil {
			t.Fatalf("%s: %v (fast %v)", ptr, err, n != nil)
		}
		fv := n.check(val, 0, nil)
		lib := sch.Validate(val) == nil
		checked++
		switch {
		case fv == unknown:
			unknowns++
		case (fv == accept) != lib:
			t.Errorf("%s: fast %v, library valid %v, value %s", ptr, fv == accept, lib, jsonText(val))
		case fv == reject:
			rejects++
		}
	}
	for _, line := range corpus {
		m := decodeObj(line)
		if m == nil {
			continue
		}
		if name, ok := m["method"].(string); ok {
			if me := v.model.Method(name); me != nil && me.Params != nil {
				if p, ok := m["params"]; ok {
					compare(me.Params.Pointer, p)
				}
			}
		}
		if res, ok := m["result"]; ok {
			for _, me := range v.model.Methods {
				if me.Result != nil {
					compare(me.Result.Pointer, res)
				}
			}
		}
		if e, ok := m["error"]; ok && v.errType != nil {
			compare(v.errType.Pointer, e)
		}
		if id, ok := m["id"]; ok && v.idType != nil {
			compare(v.idType.Pointer, id)
		}
	}
	if !v.openDispatched {
		t.Error("an open union of the shipped schema is not dispatched by tag: every frame is walked for unknown tags (correct, but slow)")
	}
	if unknowns > 0 {
		t.Errorf("%d of %d values needed the library (a keyword the fast check lacks)", unknowns, checked)
	}
	t.Logf("%d values from %d frames: fast and library agree (%d rejected)", checked, len(corpus), rejects)
}

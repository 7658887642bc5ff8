package validate

import (
	"fmt"
	"testing"

	"github.com/dshgen/dshgen/gen"
)

func TestProbe(t *testing.T) {
	for _, p := range []string{"../../schema/dsh-sdk-protocol.schema.json", "../../../shared/cases/18-oneof-error-noise/schema.json", "../../../shared/cases/02-object-oneof-not-flattened/schema.json"} {
		m, err := gen.Load(p)
		if err != nil {
			t.Log(err)
			continue
		}
		fmt.Println("==", p, m.ID, m.File, len(m.Types), len(m.Methods))
		for _, me := range m.Methods {
			fmt.Printf("M %s %s %s params=%v opt=%v result=%v\n", me.Name, me.Kind, me.Direction, ptr(me.Params), me.ParamsOptional, ptr(me.Result))
		}
		for _, ty := range m.Types {
			if ty.Kind == gen.KindUnion {
				u := ty.Union
				fmt.Printf("U %s %s tag=%q by=%d open=%v fb=%s/%d kw=%s n=%d\n", ty.Name, ty.Pointer, u.Tag, u.By, u.Open, u.FallbackPointer, u.FallbackIndex, u.Keyword, len(u.Variants))
				for _, v := range u.Variants {
					fmt.Printf("   %d %q %s %s json=%s req=%v\n", v.Index, v.TagValue, ptr(v.Type), v.Pointer, v.JSONType, v.Required)
				}
			}
		}
	}
}

func ptr(t *gen.Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.Pointer
}

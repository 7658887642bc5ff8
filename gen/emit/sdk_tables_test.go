package emit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgen/dshgen/gen/ir"
)

// TestGoSDKTables: the names the IR claims for the Go SDK (ir.SDKTypes,
// Side.Members) are what the generated sdk.go declares, both ways: every
// generated sdk.go declares exactly the SDK's package-level names, and the
// shipped protocol's Client, ClientHandlers, Server and ServerConn carry
// exactly the method identifiers plus the members the IR lists.
func TestGoSDKTables(t *testing.T) {
	n := 0
	for name, src := range generatedFiles(t) {
		if !strings.HasSuffix(name, "/sdk.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		var top []string
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					top = append(top, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						top = append(top, ts.Name.Name)
					}
				}
			}
		}
		sameSet(t, name+": ir.SDKTypes(Go)", ir.SDKTypes(ir.LangGo), top)
	}
	if n < 3 {
		t.Fatalf("%d generated sdk.go files", n)
	}
	m, err := ir.Load(filepath.Join(root, "schema", "dsh-sdk-protocol.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "out", "go", "dshproto", "sdk.go"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "sdk.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	members := map[string][]string{} // type → methods and fields
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && d.Name.IsExported() {
				recv := d.Recv.List[0].Type
				if st, ok := recv.(*ast.StarExpr); ok {
					recv = st.X
				}
				members[recv.(*ast.Ident).Name] = append(members[recv.(*ast.Ident).Name], d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				var list *ast.FieldList
				switch x := ts.Type.(type) {
				case *ast.StructType:
					list = x.Fields
				case *ast.InterfaceType:
					list = x.Methods
				}
				for _, fl := range list.List {
					for _, id := range fl.Names {
						if id.IsExported() {
							members[ts.Name.Name] = append(members[ts.Name.Name], id.Name)
						}
					}
				}
			}
		}
	}
	own := func(side *ir.Side, types ...string) []string {
		methods := map[string]bool{}
		for _, ms := range [][]*ir.SDKMethod{side.Calls, side.Notifies} {
			for _, sm := range ms {
				methods[sm.Call[ir.LangGo]] = true
			}
		}
		for _, ms := range [][]*ir.SDKMethod{side.Serves, side.Handles} {
			for _, sm := range ms {
				if side.Role == "client" {
					methods[sm.Handler[ir.LangGo]] = true
				} else {
					methods[sm.Call[ir.LangGo]] = true
				}
			}
		}
		var out []string
		for _, typ := range types {
			for _, name := range members[typ] {
				if !methods[name] {
					out = append(out, name)
				}
			}
		}
		return out
	}
	sameSet(t, "client members (ir sdkMembers)", m.SDK.Client.Members[ir.LangGo], own(m.SDK.Client, "Client", "ClientHandlers"))
	sameSet(t, "server members (ir sdkMembers)", m.SDK.Server.Members[ir.LangGo], own(m.SDK.Server, "Server", "ServerConn"))
}

package golang_test

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/dshgen/dshgen/out/go/dshproto"
)

// echoServer answers initialize with a fixed result (the rest of the
// Server interface is not called by the benchmark).
type echoServer struct{ dshproto.Server }

func (echoServer) Initialize(ctx context.Context, p *dshproto.InitializeParams) (*dshproto.InitializeResult, error) {
	return &dshproto.InitializeResult{ServerInfo: dshproto.ServerInfo{Name: "bench", Version: p.Model}}, nil
}

// BenchmarkSDKRoundTrip: one typed Initialize call of the generated Client
// answered by the generated ServerConn over an in-memory pipe (encode,
// write, read, classify, decode typed params, serve, and back).
func BenchmarkSDKRoundTrip(b *testing.B) {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	sc := dshproto.NewServerConn(c2sR, s2cW, nil)
	go sc.Serve(echoServer{})
	c := dshproto.NewClient(s2cR, c2sW, nil, nil)
	defer c.Close()
	ctx := context.Background()
	p := &dshproto.InitializeParams{Cwd: "/work", Provider: "deepseek-official", Model: "deepseek-v4-flash"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Initialize(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// BenchmarkBareRoundTrip: the same two lines written and read back over
// the same pipes with nothing but bufio (the floor the SDK adds to).
func BenchmarkBareRoundTrip(b *testing.B) {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	req := []byte(`{"jsonrpc":"2.0","id":"req_0123456789abcdef0123456789abcdef","method":"initialize","params":{"cwd":"/work","provider":"deepseek-official","model":"deepseek-v4-flash"}}` + "\n")
	res := []byte(`{"jsonrpc":"2.0","id":"req_0123456789abcdef0123456789abcdef","result":{"serverInfo":{"name":"bench","version":"deepseek-v4-flash"}}}` + "\n")
	go func() {
		r := bufio.NewReader(c2sR)
		for {
			if _, err := r.ReadSlice('\n'); err != nil {
				return
			}
			if _, err := s2cW.Write(res); err != nil {
				return
			}
		}
	}()
	r := bufio.NewReader(s2cR)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c2sW.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	c2sW.Close()
}

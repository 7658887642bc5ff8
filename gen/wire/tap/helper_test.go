package tap

import (
	"os"
	"testing"

	"github.com/dshgen/dshgen/gen/wire/tap/taptest"
)

// The test binary doubles as the server the tap starts (see taptest).
func TestMain(m *testing.M) {
	if mode := os.Getenv(taptest.HelperEnv); mode != "" {
		os.Exit(taptest.HelperMain(mode))
	}
	os.Exit(m.Run())
}

var (
	helperCmd    = taptest.HelperCmd
	randomStream = taptest.RandomStream
	sha          = taptest.SHA256
)

func parseCapture(t testing.TB, capture []byte) ([2][]byte, []string) {
	t.Helper()
	streams, tags, err := taptest.ParseCapture(capture)
	if err != nil {
		t.Fatal(err)
	}
	return streams, tags
}

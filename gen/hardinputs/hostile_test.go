package hardinputs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// expectation is a hostile case's expect.json (testdata/hostile/README.md).
type expectation struct {
	// Outcome is "generates" (exit 0, and the output of every language
	// compiles) or "refused" (exit 2, every pointer named, no file written).
	Outcome string `json:"outcome"`
	About   string `json:"about"`
	// Pointers must each appear in the error output (refused).
	Pointers []string `json:"pointers"`
	// Messages must each appear in the error output (refused).
	Messages []string `json:"messages"`
	// Forbid: no line of a language's output may match the regexp.
	Forbid []struct {
		Lang   string `json:"lang"`
		Regexp string `json:"regexp"`
	} `json:"forbid"`
	// GoExported: every type and field of the Go types.go is exported.
	GoExported bool `json:"go_exported"`
	// Network: the case names the guard's address; nothing may connect.
	Network bool `json:"network"`
	// TimeoutSeconds bounds the generate run (default 120).
	TimeoutSeconds int `json:"timeout_seconds"`
}

// TestHostileSchemas runs `dshgen generate` on every schema of
// testdata/hostile (copied into a temporary directory, the remote URLs
// pointed at the case's own loopback listener) and checks the outcome its
// expect.json states. Every dshgen run has HTTP(S)_PROXY set to the
// listener too, so any fetch attempt is seen. The cases run in parallel
// (each in its own directories, with its own listener).
func TestHostileSchemas(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join(root, "testdata", "hostile", "*", "expect.json"))
	if err != nil || len(dirs) < 20 {
		t.Fatalf("want at least 20 hostile cases, found %d (%v)", len(dirs), err)
	}
	t.Logf("checking the generated output in: %s", strings.Join(checkedLangs(), ", "))
	// The Go, Python and TypeScript of every generating case are checked
	// by one run of each checker after the cases (batch_test.go): one tsc
	// program over all packages costs a few seconds, one tsc per case
	// about 2.5 s of CPU each; mypy's start about 0.7 s per run.
	batch := newBatches(t)
	t.Run("cases", func(t *testing.T) {
		for _, ef := range dirs {
			hostileCase(t, ef, batch)
		}
	})
	batch.check(t)
}

// hostileCase runs the case whose expect.json is ef as a parallel subtest.
func hostileCase(t *testing.T, ef string, batch *batches) {
	dir := filepath.Dir(ef)
	t.Run(filepath.Base(dir), func(t *testing.T) {
		t.Parallel()
		var exp expectation
		raw, err := os.ReadFile(ef)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &exp); err != nil {
			t.Fatalf("%s: %v", ef, err)
		}
		g, err := newListenGuard("127.0.0.1:0")
		if err != nil {
			t.Fatalf("the no-fetch guard cannot listen on loopback: %v", err)
		}
		defer g.Close()
		work := filepath.Join(t.TempDir(), filepath.Base(dir))
		if err := copyCase(dir, work, g.Addr()); err != nil {
			t.Fatal(err)
		}
		runHostile(t, g, filepath.Join(work, "schema.json"), exp, batch)
	})
}

func runHostile(t *testing.T, guard *listenGuard, schema string, exp expectation, batch *batches) {
	out := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(out, "KEEP")
	if err := os.WriteFile(marker, []byte("written before generate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout := 120 * time.Second
	if exp.TimeoutSeconds > 0 {
		timeout = time.Duration(exp.TimeoutSeconds) * time.Second
	}
	before := guard.Count()
	r, pyErr := generate(t, guard, schema, out, timeout)
	if exp.Network || guard.Count() != before {
		if n := guard.Count() - before; n != 0 {
			t.Errorf("dshgen connected to the network: %d connection(s) to %s: %s", n, guard.Addr(), guard.Seen())
		}
	}
	if r.timedOut {
		t.Fatalf("dshgen generate did not finish in %v (want: %s)\nstderr: %s", timeout, exp.Outcome, clip(r.stderr))
	}
	switch exp.Outcome {
	case "refused":
		if r.code != 2 {
			t.Errorf("exit %d, want 2 (refused: %s)\nstderr: %s", r.code, exp.About, clip(r.stderr))
		}
		var missing []string
		for _, p := range exp.Pointers {
			if !strings.Contains(r.stderr, p+":") && !strings.Contains(r.stderr, p+" ") {
				missing = append(missing, p)
			}
		}
		for _, m := range exp.Messages {
			if !strings.Contains(r.stderr, m) {
				missing = append(missing, fmt.Sprintf("the words %q", m))
			}
		}
		if len(missing) > 0 {
			t.Errorf("the error output does not name %s\nstderr: %s", strings.Join(missing, ", "), clip(r.stderr))
		}
		if files := listFiles(out); len(files) != 1 || files[0] != "KEEP" {
			t.Errorf("a refused schema wrote files: %v", files)
		}
	case "generates":
		if r.code != 0 {
			t.Fatalf("exit %d, want 0 (%s)\nstderr: %s", r.code, exp.About, clip(r.stderr))
		}
		if pyErr != nil {
			t.Errorf("python (in-process, --lang python not registered): %v", pyErr)
		}
		for _, l := range checkedLangs() {
			compile(t, l, out, batch)
		}
		for _, f := range exp.Forbid {
			forbidLines(t, out, f.Lang, f.Regexp)
		}
		if exp.GoExported {
			if bad := goUnexported(t, out); len(bad) > 0 {
				t.Errorf("go: unexported schema-derived identifiers (not usable outside the package, and encoding/json ignores unexported fields): %s", strings.Join(bad, ", "))
			}
		}
	default:
		t.Fatalf("expect.json outcome %q: want generates or refused", exp.Outcome)
	}
}

// TestGuardSeesFetches is the control for the no-fetch checks: a direct
// fetch of a URL naming the listener, and a fetch of any https URL through
// the proxy the dshgen runs are given, both reach the listener.
func TestGuardSeesFetches(t *testing.T) {
	before := guard.Count()
	c := &http.Client{Timeout: 2 * time.Second}
	if resp, err := c.Get("http://" + guard.Addr() + "/remote.schema.json"); err == nil {
		resp.Body.Close()
	}
	proxy, _ := url.Parse("http://" + guard.Addr())
	pc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	if resp, err := pc.Get("https://schemas.example.invalid/b.json"); err == nil {
		resp.Body.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for guard.Count()-before < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := guard.Count() - before; n != 2 {
		t.Fatalf("the listener saw %d connections, want 2 (direct and proxied): %s", n, guard.Seen())
	}
}

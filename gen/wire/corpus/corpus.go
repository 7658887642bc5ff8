// Package corpus reads the shared fixture corpus — the upstream snapshot
// fixtures and the byte-exact captures of the real runtime — as JSON-RPC
// frames, pairing each response with the method of its request, so every
// language's tests walk the same frames.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/modfile"
)

// Frame is one line of a fixture file that parsed as a JSON object.
type Frame struct {
	File      string          // path of the fixture file
	Line      int             // 1-based line number
	Direction string          // "client-to-server" or "server-to-client"
	Snapshot  bool            // from the normalized upstream snapshots
	Raw       []byte          // the line without its terminator
	Kind      string          // "request", "response", "notification" or "" (neither)
	Method    string          // the method, or for a response its request's method ("" when unpaired)
	ID        json.RawMessage // the id member, if any
	Params    json.RawMessage // members as found (nil when absent)
	Result    json.RawMessage
	Error     json.RawMessage
}

// modulePath is the module whose root RepoRoot looks for.
const modulePath = "github.com/dshgen/dshgen"

// RepoRoot returns the root of the dshgen module: the nearest directory at
// or above the working directory whose go.mod declares modulePath (go test
// runs a package's tests in its source directory). It does not use the
// source file's recorded path, which -trimpath (set by .ci/run so that
// clones at any path share the build cache) reduces to the import path.
// It panics when the working directory is outside the module: the tests
// and benchmarks that call it cannot run there.
func RepoRoot() string {
	root, err := findRepoRoot()
	if err != nil {
		panic("corpus.RepoRoot: " + err.Error())
	}
	return root
}

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modfile.ModulePath(b) == modulePath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of module %s at or above %s", modulePath, dir)
		}
	}
}

// SharedDir returns $DSHGEN_SHARED, else ../shared beside the repository
// root (RepoRoot), else ../shared from the working directory. It never panics:
// the CLI uses it for its default conformance inputs.
func SharedDir() string {
	if d := os.Getenv("DSHGEN_SHARED"); d != "" {
		return d
	}
	root, err := findRepoRoot()
	if err != nil {
		root = "." // outside a checkout: ../shared from the working directory, usually absent
	}
	return filepath.Join(root, "..", "shared")
}

// Files lists the fixture files: every real-captures/*/{client-to-server,
// server-to-client}.jsonl and every upstream-snapshots/*/notifications.expected.jsonl.
func Files() ([]string, error) {
	fx := filepath.Join(SharedDir(), "fixtures")
	var out []string
	for _, pat := range []string{"real-captures/*/client-to-server.jsonl", "real-captures/*/server-to-client.jsonl", "upstream-snapshots/*/notifications.expected.jsonl"} {
		m, err := filepath.Glob(filepath.Join(fx, pat))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("no fixture files under %s", fx)
	}
	return out, nil
}

// Load reads every fixture file's frames. Lines that are not JSON objects
// (the malformed-lines scenario injects some on purpose) are returned in
// skipped with their place. Responses get the method of the request with the
// same id from the client-to-server file of the same scenario.
func Load() (frames []Frame, skipped []string, err error) {
	files, err := Files()
	if err != nil {
		return nil, nil, err
	}
	methodsByScenario := map[string]map[string]string{}
	for _, f := range files {
		if filepath.Base(f) != "client-to-server.jsonl" {
			continue
		}
		fr, _, err := ReadFile(f, "client-to-server", false)
		if err != nil {
			return nil, nil, err
		}
		ids := map[string]string{}
		for _, x := range fr {
			if x.Kind == "request" {
				ids[string(x.ID)] = x.Method
			}
		}
		methodsByScenario[filepath.Dir(f)] = ids
	}
	for _, f := range files {
		dir := "server-to-client"
		if filepath.Base(f) == "client-to-server.jsonl" {
			dir = "client-to-server"
		}
		snapshot := filepath.Base(f) == "notifications.expected.jsonl"
		fr, sk, err := ReadFile(f, dir, snapshot)
		if err != nil {
			return nil, nil, err
		}
		for i := range fr {
			if fr[i].Kind == "response" {
				fr[i].Method = methodsByScenario[filepath.Dir(f)][string(fr[i].ID)]
			}
		}
		frames = append(frames, fr...)
		skipped = append(skipped, sk...)
	}
	return frames, skipped, nil
}

// ReadFile reads one NDJSON file as frames (see Load).
func ReadFile(path, direction string, snapshot bool) ([]Frame, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var frames []Frame
	var skipped []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		var members map[string]json.RawMessage
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &members) != nil {
			skipped = append(skipped, fmt.Sprintf("%s:%d", path, n))
			continue
		}
		f := Frame{File: path, Line: n, Direction: direction, Snapshot: snapshot, Raw: append([]byte(nil), line...),
			ID: members["id"], Params: members["params"], Result: members["result"], Error: members["error"]}
		var method string
		hasMethod := json.Unmarshal(members["method"], &method) == nil && members["method"] != nil
		hasID := isID(members["id"])
		switch {
		case hasID && hasMethod:
			f.Kind, f.Method = "request", method
		case hasID:
			f.Kind = "response"
		case hasMethod:
			f.Kind, f.Method = "notification", method
		}
		frames = append(frames, f)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("%s", path), err)
	}
	return frames, skipped, nil
}

// isID reports whether raw is a string or a number (the receivers' rule).
func isID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	return raw[0] == '"' || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')
}

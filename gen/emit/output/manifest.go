package output

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// manifestHead is the first line of every manifest.
const manifestHead = "# dshgen manifest v1: the files dshgen generated under this directory (sha256, two spaces, path)."

// manifestNote is the manifest's second line, for a reader who finds it.
const manifestNote = "# dshgen removes a file listed here, once it is no longer generated, only if its sha256 still matches. DO NOT EDIT."

// formatManifest renders entries (relative path -> sha256), sorted by path,
// in the format of sha256sum(1): "HEX  PATH" lines, so `sha256sum -c`
// checks a tree against it.
func formatManifest(entries map[string]string) []byte {
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	b.WriteString(manifestHead + "\n" + manifestNote + "\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "%s  %s\n", entries[p], p)
	}
	return b.Bytes()
}

// parseManifest reads formatManifest's output; lines starting with # are
// comments.
func parseManifest(b []byte) (map[string]string, error) {
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		h, p, ok := strings.Cut(line, "  ")
		if !ok || len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" || checkRel(p) != nil {
			return nil, fmt.Errorf("line %d: want \"SHA256  PATH\" with a relative path, got %q", n, line)
		}
		m[p] = h
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

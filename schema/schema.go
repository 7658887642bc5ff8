// Package schema embeds the shipped revisions of the DeepSeek Harness SDK
// runtime protocol (JSON Schema draft 2020-12 with an x-methods table) and
// names them: a Revision is one schema document, what it describes, which
// runtime speaks it and where the repository keeps its bindings and
// conformance vectors (see README.md).
//
// The documents are embedded as bytes only; nothing is parsed until a
// caller loads one, so a command that uses one revision never pays for the
// other.
package schema

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"
)

// FileName is the file name every revision's schema document has.
const FileName = "dsh-sdk-protocol.schema.json"

// Default is the revision validate, tap and conformance use when neither
// --revision nor --schema is given (README.md, "Defaults").
const Default = "0.0.1"

// Path is where the default revision lives relative to the repository
// root.
const Path = "schema/" + Default + "/" + FileName

//go:embed 0.0.1/dsh-sdk-protocol.schema.json
var raw001 []byte

//go:embed 0.2.1/dsh-sdk-protocol.schema.json
var raw021 []byte

// Revision is one shipped revision of the protocol.
type Revision struct {
	// Name is the revision's name on the command line (--revision NAME):
	// the version of @deepseek-ai/dsh-sdk-protocol it follows.
	Name string
	// Description is one line on what the revision covers.
	Description string
	// Runtime names the published runtime that speaks it.
	Runtime string
	// OutDir is where the repository keeps its generated bindings
	// ({go,python,ts} below it), relative to the repository root.
	OutDir string
	// VectorsDir is where the repository keeps its conformance vectors.
	VectorsDir string
	raw        []byte
}

// Path is the revision's schema document relative to the repository root.
func (r Revision) Path() string { return "schema/" + r.Name + "/" + FileName }

// Bytes returns the embedded schema document.
func (r Revision) Bytes() []byte { return r.raw }

// SHA256 returns the lowercase hex sha256 of the embedded document.
func (r Revision) SHA256() string {
	s := sha256.Sum256(r.raw)
	return hex.EncodeToString(s[:])
}

// revisions are the shipped revisions, oldest first.
var revisions = []Revision{
	{
		Name:        "0.0.1",
		Description: "initialize, session/prompt, shutdown; session.event, session.status, subagent.started, subagent.finished",
		Runtime:     "npm @deepseek-ai/dsh-sdk-protocol 0.0.1-rc.1 (the npm runtime 0.0.1-rc.5 speaks it)",
		OutDir:      "out",
		VectorsDir:  "testdata/conformance",
		raw:         raw001,
	},
	{
		Name:        "0.2.1",
		Description: "0.0.1 plus session/resume, session/wait, session/working-directory/{get,set}, reasoningEffort, tool-result messages, image prompts, streamed assistant messages and 62 event types; prompts on a busy session are queued",
		Runtime:     "PyPI deepseek-harness-runtime-bin 0.2.1rc2 (embeds dsh-sdk-protocol 0.2.1-rc.2), driven by deepseek-harness-sdk 0.2.1rc2",
		OutDir:      "out/0.2.1",
		VectorsDir:  "testdata/conformance-0.2.1",
		raw:         raw021,
	},
}

// Revisions returns the shipped revisions, oldest first.
func Revisions() []Revision { return append([]Revision(nil), revisions...) }

// Names returns the revision names, oldest first.
func Names() []string {
	out := make([]string, len(revisions))
	for i, r := range revisions {
		out[i] = r.Name
	}
	return out
}

// Lookup returns the revision named name; the error lists the known ones.
func Lookup(name string) (Revision, error) {
	for _, r := range revisions {
		if r.Name == name {
			return r, nil
		}
	}
	return Revision{}, fmt.Errorf("unknown revision %q (known: %s)", name, strings.Join(Names(), ", "))
}

// BySHA256 returns the shipped revision whose document has this sha256
// (ok false for any other schema).
func BySHA256(sum string) (Revision, bool) {
	for _, r := range revisions {
		if r.SHA256() == sum {
			return r, true
		}
	}
	return Revision{}, false
}

// Bytes returns the default revision's schema document.
func Bytes() []byte { return raw001 }

// SHA256 returns the lowercase hex sha256 of the default revision.
func SHA256() string {
	s := sha256.Sum256(raw001)
	return hex.EncodeToString(s[:])
}

// verified.txt lists every schema file shipped in this directory tree (sha256
// and path); TestVerifiedList proves each one passes meta-validation and
// that the list is exactly the files present.
//
//go:embed verified.txt
var verifiedList string

// Verified returns the sha256 (lowercase hex) of every shipped schema file,
// every revision: documents known to pass meta-validation, which a load may
// skip (gen/schemadoc Source.Verified). It is keyed by content, so a copy of
// a shipped file anywhere is recognised and an edited one is not.
func Verified() map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(verifiedList, "\n") {
		if sum, _, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			out[sum] = true
		}
	}
	return out
}

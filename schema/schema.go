// Package schema embeds the shipped protocol schema, the DeepSeek Harness
// SDK runtime protocol (JSON Schema draft 2020-12 with an x-methods table).
package schema

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"strings"
)

// FileName is the shipped schema's file name; Path is where it lives
// relative to the repository root.
const (
	FileName = "dsh-sdk-protocol.schema.json"
	Path     = "schema/" + FileName
)

//go:embed dsh-sdk-protocol.schema.json
var raw []byte

// Bytes returns the shipped schema document.
func Bytes() []byte { return raw }

// SHA256 returns the lowercase hex sha256 of the shipped schema.
func SHA256() string {
	s := sha256.Sum256(raw)
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

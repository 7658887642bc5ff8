// Package schema embeds the shipped protocol schema, the DeepSeek Harness
// SDK runtime protocol (JSON Schema draft 2020-12 with an x-methods table).
package schema

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
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

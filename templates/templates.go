// Package templates embeds the files the emitters print with: the Go
// runtime (go/runtime.go.tmpl, copied into every generated Go package) and
// the text/template files of the Python and TypeScript packages. The
// templates only print: every decision (names, optionality, unions) is
// already made in the IR (gen/ir), which also reads these files for the
// names they declare, so a schema type never takes one of them.
package templates

import "embed"

// FS holds go/*.tmpl, python/*.tmpl and ts/*.tmpl.
//
//go:embed go python ts
var FS embed.FS

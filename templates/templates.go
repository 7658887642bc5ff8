// Package templates embeds the text/template files the Python and
// TypeScript emitters print with. The templates only print: every decision
// (names, optionality, unions) is already made in the IR (package gen).
package templates

import "embed"

// FS holds python/*.tmpl and ts/*.tmpl.
//
//go:embed python ts
var FS embed.FS

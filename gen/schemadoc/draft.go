package schemadoc

import "strings"

// Draft is a JSON Schema dialect dshgen reads.
type Draft int

// The dialects, oldest first. The zero value is no dialect.
const (
	Draft4 Draft = iota + 1
	Draft6
	Draft7
	Draft2019
	Draft2020
)

func (d Draft) String() string {
	switch d {
	case Draft4:
		return "draft-04"
	case Draft6:
		return "draft-06"
	case Draft7:
		return "draft-07"
	case Draft2019:
		return "draft 2019-09"
	case Draft2020:
		return "draft 2020-12"
	}
	return "no draft"
}

// DefsKeyword returns where the draft keeps reusable definitions: "$defs"
// (2019-09 and later) or "definitions" (draft-07 and earlier). Both are
// read in every draft (many published schemas mix them); this is the one
// new schemas of the draft use.
func (d Draft) DefsKeyword() string {
	if d >= Draft2019 {
		return "$defs"
	}
	return "definitions"
}

// RefIgnoresSiblings reports whether the draft ignores every keyword beside
// a "$ref" (draft-07 and earlier: "All other properties in a "$ref" object
// MUST be ignored").
func (d Draft) RefIgnoresSiblings() bool { return d < Draft2019 }

// dialects maps each $schema URI dshgen knows to its draft. The URIs are
// identifiers, not addresses: nothing is fetched (the validation library
// ships these meta-schemas). http and https, with or without an empty
// fragment, are the same dialect, as the validation library takes them.
var dialects = map[string]Draft{
	"json-schema.org/draft/2020-12/schema": Draft2020,
	"json-schema.org/draft/2019-09/schema": Draft2019,
	"json-schema.org/draft-07/schema":      Draft7,
	"json-schema.org/draft-06/schema":      Draft6,
	"json-schema.org/draft-04/schema":      Draft4,
}

// DraftOf returns the draft a $schema value names (0 when dshgen does not
// know it).
func DraftOf(uri string) Draft {
	u, ok := strings.CutPrefix(uri, "https://")
	if !ok {
		if u, ok = strings.CutPrefix(uri, "http://"); !ok {
			return 0
		}
	}
	u = strings.TrimSuffix(strings.TrimSuffix(u, "#/"), "#")
	return dialects[u]
}

// KnownDialects lists the $schema URIs dshgen accepts, for messages.
const KnownDialects = "https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema#, http://json-schema.org/draft-06/schema#, http://json-schema.org/draft-04/schema#"

// standardVocabularies are the $vocabulary URIs of the 2019-09 and 2020-12
// meta-schemas (identifiers the validation library knows; nothing is
// fetched).
func standardVocabulary(uri string) bool {
	for _, p := range []string{"https://json-schema.org/draft/2020-12/vocab/", "https://json-schema.org/draft/2019-09/vocab/"} {
		if rest, ok := strings.CutPrefix(uri, p); ok {
			switch rest {
			case "core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "format-assertion", "content", "format":
				return true
			}
		}
	}
	return false
}

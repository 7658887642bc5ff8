package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dshgen/dshgen/gen/ir"
	"github.com/dshgen/dshgen/schema"
)

// schemaFlags are the schema-source flags every command that reads a
// schema shares (generate, validate, tap, conformance; diff has one set per
// side): --schema FILE, --overlay FILE (repeatable, applied in order) and
// --allow-ref-dir DIR (repeatable). The files are read by gen/schemadoc:
// regular files under its size cap, $refs confined to the schema's
// directory tree and the --allow-ref-dir directories, nothing fetched.
type schemaFlags struct {
	schema       string
	overlays     []string
	allowRefDirs []string
	set          *pflag.FlagSet
}

// addSchemaFlags registers --schema, --overlay and --allow-ref-dir on fs.
func addSchemaFlags(fs *pflag.FlagSet, sf *schemaFlags) {
	sf.set = fs
	fs.StringVar(&sf.schema, "schema", schema.Path, "protocol schema `FILE` (JSON Schema draft 2020-12, 2019-09 or draft-07; default: the shipped schema)")
	fs.StringArrayVar(&sf.overlays, "overlay", nil, "overlay `FILE` adding dshgen's x- keywords (x-methods, x-name, ...) to the schema by JSON pointer; repeatable, applied in order (see gen/schemadoc/README.md)")
	addAllowRefDir(fs, &sf.allowRefDirs)
}

// addAllowRefDir registers --allow-ref-dir (shared with diff).
func addAllowRefDir(fs *pflag.FlagSet, dirs *[]string) {
	fs.StringArrayVar(dirs, "allow-ref-dir", nil, "let relative $refs read schema files under `DIR` too (by default only the schema's own directory tree); repeatable")
}

// changed reports whether any schema-source flag was given.
func (sf *schemaFlags) changed() bool {
	return sf.set.Changed("schema") || sf.set.Changed("overlay") || sf.set.Changed("allow-ref-dir")
}

// load loads the model the flags name: the schema file, or the shipped
// schema embedded in the binary when --schema is the default and the file
// is not there (dshgen run outside the repository); both go through the
// same reader and guards.
func (sf *schemaFlags) load() (*ir.Model, error) {
	src := ir.Source{Path: sf.schema, Overlays: sf.overlays, AllowRefDirs: sf.allowRefDirs, Verified: schema.Verified()}
	if sf.schema == schema.Path {
		if _, err := os.Stat(sf.schema); errors.Is(err, os.ErrNotExist) {
			src.Path, src.Bytes = schema.FileName, schema.Bytes()
		}
	}
	return ir.LoadSource(src)
}

// args renders the non-default schema-source flags for a command line a
// message suggests (" --schema FILE --overlay O ...", or "").
func (sf *schemaFlags) args() string {
	var b strings.Builder
	if sf.schema != schema.Path {
		b.WriteString(" --schema " + sf.schema)
	}
	for _, o := range sf.overlays {
		b.WriteString(" --overlay " + o)
	}
	for _, d := range sf.allowRefDirs {
		b.WriteString(" --allow-ref-dir " + d)
	}
	return b.String()
}

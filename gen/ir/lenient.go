package ir

// LoadForValidation loads a schema for the validator alone (dshgen
// validate, tap): the schema and overlay files, the method table and every
// problem with them fail the load as in LoadSource, but a problem that
// only keeps the bindings from typing part of the schema (a union whose
// branches the IR cannot tell apart, an unnamed branch, a type list, a
// name collision) does not: it is returned in binding, and the type it
// concerns is validated by the JSON Schema library alone (a union the IR
// refused is a JSON value to the IR, so its findings are the library's,
// without branch selection). dshgen generate still refuses such a schema.
func LoadForValidation(src Source) (m *Model, binding []Problem, err error) {
	set, err := openSet(src)
	if err != nil {
		return nil, nil, err
	}
	return build(set, src.Path, true)
}

// degradeRefused turns every union the IR refused (no variant could be
// told apart) into a JSON value alias, so that nothing downstream picks a
// branch by a rule that does not hold.
func (l *loader) degradeRefused() {
	for _, t := range l.types {
		if t.Kind == KindUnion && t.Union != nil && len(t.Union.Variants) == 0 {
			t.Kind, t.Union, t.Alias = KindAlias, nil, &TypeRef{Kind: RefJSON}
		}
	}
}

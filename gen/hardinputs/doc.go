// Package hardinputs holds dshgen's end-to-end tests over hard inputs
// (issue 9): the hostile-schema corpus in testdata/hostile and the second
// protocol in testdata/second-protocol. Each test builds the dshgen binary,
// runs it as a user would, and compiles what it generates with each
// language's own tools (go vet, python3 -W error import and mypy --strict,
// tsc --strict). The package has no code of its own.
package hardinputs

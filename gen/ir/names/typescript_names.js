// Prints the TypeScript keywords (reserved words, strict-mode reserved
// words, contextual keywords and the predefined type names), one per line,
// sorted, as the TypeScript compiler in testdata/ts/node_modules lists them:
//
//     node gen/ir/names/typescript_names.js testdata/ts/node_modules/typescript
//
// gives gen/ir/names/typescript.txt (after its comment lines); names_test.go
// checks the file against that compiler.
const ts = require(require("path").resolve(process.argv[2] || "typescript"));
const out = new Set();
for (let k = ts.SyntaxKind.FirstKeyword; k <= ts.SyntaxKind.LastKeyword; k++) {
  out.add(ts.tokenToString(k));
}
console.log([...out].sort().join("\n"));

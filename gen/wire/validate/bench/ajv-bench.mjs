// ajv beside dshgen validate: the same schema, the same per-method routing
// (params of every request and notification against its method's params
// type, error objects against JsonRpcError), over the same corpus.
//
//   node ajv-bench.mjs SCHEMA CORPUS [RUNS] [lines]
//
// Prints one JSON line per measurement: {"what", "mbps", "framesps", "ms"};
// with "lines", instead the line numbers (1-based) of the frames the
// if/then style rejects: {"invalidLines": [...]}.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.cwd(), "package.json"));
const Ajv2020 = require("ajv/dist/2020").default;

const [schemaPath, corpusPath, runsArg, linesArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const id = schema.$id || "urn:dshgen:bench";
function resolve(node) {
  while (node && node.$ref && node.$ref.startsWith("#/$defs/")) node = schema.$defs[node.$ref.slice(8)];
  return node;
}

// The tag of a tagged oneOf: a required member that is a string const in
// every branch but at most one fallback branch (tag: {not: {enum}}).
function taggedUnion(node) {
  if (!Array.isArray(node.oneOf) || node.oneOf.length < 2) return null;
  const branches = node.oneOf.map(resolve);
  if (!branches.every((b) => b && b.properties && Array.isArray(b.required))) return null;
  for (const tag of Object.keys(branches[0].properties)) {
    const consts = [];
    let fallback = -1;
    const ok = branches.every((b, i) => {
      const t = resolve(b.properties[tag]);
      if (!t || !b.required.includes(tag)) return false;
      if (typeof t.const === "string") { consts.push([t.const, i]); return true; }
      if (Array.isArray(t.enum) && t.enum.length === 1) { consts.push([t.enum[0], i]); return true; }
      if (t.not && Array.isArray(t.not.enum) && fallback < 0) { fallback = i; return true; }
      return false;
    });
    if (ok && consts.length >= 1) return { tag, consts, fallback };
  }
  return null;
}

// ajv's best style for tagged unions (DESIGN.md): one if/then per tag value
// instead of a oneOf that tries every branch. Same accepted set: the
// branches of a tagged union exclude each other by their tag.
function rewrite(node) {
  if (!node || typeof node !== "object") return 0;
  let n = 0;
  for (const v of Object.values(node)) n += rewrite(v);
  const u = taggedUnion(node);
  if (!u) return n;
  const { tag, consts, fallback } = u;
  const known = consts.map(([c]) => c);
  const branches = node.oneOf;
  const allOf = consts.map(([c, i]) => ({ if: { properties: { [tag]: { const: c } } }, then: branches[i] }));
  if (fallback >= 0) allOf.push({ if: { properties: { [tag]: { not: { enum: known } } } }, then: branches[fallback] });
  else allOf.push({ properties: { [tag]: { enum: known } } });
  delete node.oneOf;
  delete node.discriminator;
  node.type = "object";
  node.required = [tag];
  node.properties = { [tag]: { type: "string" } };
  node.allOf = (node.allOf || []).concat(allOf);
  return n + 1;
}

function build(s) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ ...s, $id: id });
  const byMethod = new Map();
  for (const [name, m] of Object.entries(s["x-methods"] || {})) {
    if (m.params && m.params.$ref) byMethod.set(name, ajv.getSchema(id + m.params.$ref));
  }
  const errorCheck = s.$defs.JsonRpcError ? ajv.getSchema(id + "#/$defs/JsonRpcError") : null;
  return { byMethod, errorCheck };
}

const modes = [["ajv, schema as is (oneOf)", build(structuredClone(schema))]];
const rewritten = structuredClone(schema);
const saved = schema.$defs;
schema.$defs = rewritten.$defs; // resolve() follows the copy being rewritten
const count = rewrite(rewritten.$defs);
schema.$defs = saved;
modes.push([`ajv, ${count} tagged unions as if/then`, build(rewritten)]);

const data = fs.readFileSync(corpusPath);
const mb = data.length / 1e6;

function run(checks, bad) {
  const t0 = process.hrtime.bigint();
  const text = data.toString("utf8");
  let frames = 0, invalid = 0, start = 0, line = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const frame = nl < 0 ? text.slice(start) : text.slice(start, nl);
    start = nl + 1;
    line++;
    if (frame.trim() !== "") {
      frames++;
      const f = JSON.parse(frame);
      if (checks) {
        let ok = true;
        if (typeof f.method === "string") {
          const v = checks.byMethod.get(f.method);
          if (v && f.params !== undefined && !v(f.params)) ok = false;
        } else if (f.error !== undefined && checks.errorCheck && !checks.errorCheck(f.error)) ok = false;
        if (!ok) {
          invalid++;
          if (bad) bad.push(line);
        }
      }
    }
    if (nl < 0) break;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, frames, invalid };
}

if (linesArg === "lines") {
  const bad = [];
  run(modes[1][1], bad);
  console.log(JSON.stringify({ invalidLines: bad }));
  process.exit(0);
}

for (const [what, checks] of [...modes, ["JSON.parse only", null]]) {
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) { last = run(checks); times.push(last.ms); }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  console.log(JSON.stringify({ what, ms, mbps: mb / (ms / 1000), framesps: last.frames / (ms / 1000), frames: last.frames, invalid: last.invalid }));
}

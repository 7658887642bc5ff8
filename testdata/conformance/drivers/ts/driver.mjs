// The TypeScript round-trip driver of `dshgen conformance --lang ts`.
//
//   DSHGEN_TS_OUT=<abs path of an out/ts directory> node testdata/conformance/drivers/ts/driver.mjs
//
// Reads JSON-RPC frames (NDJSON) on stdin and writes one line per input line
// on stdout, in order: the frame decoded through the TypeScript bindings in
// $DSHGEN_TS_OUT/src and encoded back with JSON.stringify, or "!error
// <message>" for a frame that does not decode (also written on stderr as
// "line N: <message>"). A response gets the method of the request with its
// id seen earlier on stdin. Exit status: 0 every line decoded, 1 some did
// not, 2 setup error (no TypeScript, bindings that do not compile with the
// driver; no line is written then, the reason is the first stderr line).
// Same protocol as the Go driver (../go/main.go).
//
// Node 20 runs no TypeScript, so this file compiles the bindings and the
// typed half of the driver (driver.ts, which says what decoding means) with
// the pinned TypeScript of testdata/ts (its compiler API, in process): strict,
// exactOptionalPropertyTypes, noUncheckedIndexedAccess, ES2022 modules. Any
// compile error fails the run. From the same program it extracts, with the
// type checker, a table of the TypeScript types of every method's params and
// result and of the error object, which driver.ts follows member by member.
// Output and table are cached under $DSHGEN_TS_CACHE (default
// <os.tmpdir()>/dshgen-ts-driver-<uid>, private to the user), keyed by the
// sha256 of the bindings' sources, both driver files and the TypeScript
// version, so the one compile (about 2 s) is shared by the runs dshgen
// conformance makes (one per input file; about 0.2 s each after it). Entries
// unused for a day are removed.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../../..");
const tsPackage = path.join(repo, "testdata", "ts", "node_modules", "typescript");
const driverTs = path.join(here, "driver.ts");
const CACHE_FORMAT = "1";

function fatal(msg) {
  process.stderr.write(`ts driver: ${msg}\n`);
  process.exit(2);
}

/** The installed TypeScript's version (the compiler itself is loaded only to build). */
function typeScriptVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(tsPackage, "package.json"), "utf8")).version;
  } catch {
    fatal(`TypeScript is not installed in testdata/ts/node_modules: run \`npm ci --prefix testdata/ts\` in ${repo}`);
  }
}

function loadTypeScript() {
  return createRequire(import.meta.url)(tsPackage);
}

function bindingSources(outDir) {
  const src = path.join(outDir, "src");
  let names;
  try {
    names = fs.readdirSync(src).filter((n) => n.endsWith(".ts") && !n.endsWith(".d.ts")).sort();
  } catch (e) {
    fatal(`no TypeScript bindings under ${src}: ${e.message}`);
  }
  if (!names.includes("index.ts")) {
    fatal(`no TypeScript bindings under ${src} (no index.ts)`);
  }
  return names.map((n) => ({ name: n, text: fs.readFileSync(path.join(src, n), "utf8") }));
}

function compilerOptions(ts, rootDir, outDir) {
  return {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitReturns: true,
    noImplicitOverride: true,
    noFallthroughCasesInSwitch: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: [],
    rootDir,
    outDir,
    newLine: ts.NewLineKind.LineFeed,
  };
}

// --- type table -------------------------------------------------------------

/** Extracts the type table (see TypeTable in driver.ts) from the program. */
function extractTable(ts, program, driverFile) {
  const checker = program.getTypeChecker();
  const F = ts.TypeFlags;
  const sf = program.getSourceFile(driverFile);
  const mod = sf && checker.getSymbolAtLocation(sf);
  const rootsSym = mod && checker.getExportsOfModule(mod).find((s) => s.name === "DecodeRoots");
  if (!rootsSym) {
    throw new Error("driver.ts exports no DecodeRoots");
  }
  const roots = checker.getDeclaredTypeOfSymbol(rootsSym);
  const member = (t, name) => {
    const s = checker.getPropertyOfType(t, name);
    if (!s) throw new Error(`${checker.typeToString(t)} has no member ${name}`);
    return checker.getTypeOfSymbol(s);
  };
  const objectNames = new Map();
  for (const s of checker.getPropertiesOfType(member(roots, "objects"))) {
    objectNames.set(checker.getTypeOfSymbol(s), s.name);
  }
  const tagged = new Map(); // known type -> { union, tag, unknown }
  const unknownOf = new Map(); // unknown-tag variant type -> union
  for (const s of checker.getPropertiesOfType(member(roots, "unions"))) {
    const entry = checker.getTypeOfSymbol(s);
    const tag = member(entry, "tag");
    if (!(tag.flags & F.StringLiteral)) throw new Error(`TaggedUnions["${s.name}"].tag is not a string literal`);
    const unknown = member(entry, "unknown");
    tagged.set(member(entry, "known"), { union: s.name, tag: tag.value, unknown });
    unknownOf.set(unknown, s.name);
  }

  const nodes = [];
  const memo = new Map();
  const memoPlain = new Map();
  const display = (t) => checker.typeToString(t, undefined, ts.TypeFormatFlags.NoTruncation);
  const conv = (t) => {
    const tg = tagged.get(t);
    if (tg === undefined) return convPlain(t);
    if (memo.has(t)) return memo.get(t);
    const i = nodes.push(null) - 1;
    memo.set(t, i);
    nodes[i] = { k: "tagged", union: tg.union, tag: tg.tag, known: convPlain(t), unknown: conv(tg.unknown), display: display(t) };
    return i;
  };
  const convPlain = (t) => {
    if (memoPlain.has(t)) return memoPlain.get(t);
    const i = nodes.push(null) - 1;
    memoPlain.set(t, i);
    nodes[i] = build(t);
    return i;
  };
  const build = (t) => {
    const f = t.flags;
    if (f & (F.Any | F.Unknown)) return { k: "any" };
    if (f & F.Never) return { k: "never", why: "never" };
    if (f & (F.Undefined | F.Void)) return { k: "never", why: "undefined" };
    if (f & F.Null) return { k: "null" };
    if (f & F.StringLiteral) return { k: "lit", v: t.value };
    if (f & F.NumberLiteral) return { k: "lit", v: t.value };
    if (f & F.BooleanLiteral) return { k: "lit", v: display(t) === "true" };
    if (f & F.String) return { k: "string" };
    if (f & F.Number) return { k: "number" };
    if (f & F.Boolean) return { k: "boolean" };
    if (f & F.Union) {
      // JSON has no undefined: an optional member is absent instead.
      const of = t.types.filter((m) => !(m.flags & (F.Undefined | F.Void))).map(conv);
      return { k: "union", of, display: display(t) };
    }
    if (f & (F.Object | F.Intersection)) {
      if (checker.isArrayType(t)) {
        return { k: "array", of: conv(checker.getTypeArguments(t)[0]), display: display(t) };
      }
      if (checker.isTupleType(t)) {
        throw new Error(`unsupported type (tuple): ${display(t)}`);
      }
      const props = checker.getPropertiesOfType(t).map((s) => ({
        name: s.name,
        type: conv(checker.getTypeOfSymbol(s)),
        optional: (s.flags & ts.SymbolFlags.Optional) !== 0,
      }));
      const node = { k: "object", props, display: display(t) };
      const name = objectNames.get(t);
      if (name !== undefined) node.name = name;
      const uo = unknownOf.get(t);
      if (uo !== undefined) node.unknownOf = uo;
      const idx = checker.getIndexInfosOfType(t).find((info) => info.keyType.flags & F.String);
      if (idx) node.index = conv(idx.type);
      return node;
    }
    throw new Error(`unsupported type: ${display(t)}`);
  };

  const byName = (t) => {
    const out = {};
    for (const s of checker.getPropertiesOfType(t)) out[s.name] = conv(checker.getTypeOfSymbol(s));
    return out;
  };
  const params = byName(member(roots, "params"));
  const results = byName(member(roots, "results"));
  const error = conv(member(roots, "error"));
  return { nodes, params, results, error };
}

// --- build and cache ----------------------------------------------------------

function build(ts, outTs, sources, dir) {
  const srcDir = path.join(dir, "src");
  const outDir = path.join(dir, "out");
  fs.mkdirSync(path.join(srcDir, "bindings"), { recursive: true });
  fs.mkdirSync(outDir, { recursive: true });
  const pkg = JSON.stringify({ type: "module", private: true }) + "\n";
  fs.writeFileSync(path.join(srcDir, "package.json"), pkg);
  fs.writeFileSync(path.join(outDir, "package.json"), pkg);
  const roots = [];
  for (const s of sources) {
    const p = path.join(srcDir, "bindings", s.name);
    fs.writeFileSync(p, s.text);
    roots.push(p);
  }
  const drv = path.join(srcDir, "driver.ts");
  fs.copyFileSync(driverTs, drv);
  roots.push(drv);

  const program = ts.createProgram({ rootNames: roots, options: compilerOptions(ts, srcDir, outDir) });
  const diags = ts.getPreEmitDiagnostics(program);
  if (diags.length > 0) {
    // Name the files the user has, not the staged copies.
    const bindings = path.join(srcDir, "bindings") + path.sep;
    const real = (t) => t.split(bindings).join(path.join(outTs, "src") + path.sep).split(drv).join(driverTs);
    const lines = diags.map((d) => {
      let where = "";
      if (d.file) {
        const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
        where = `${d.file.fileName}(${line + 1},${character + 1}): `;
      }
      return real(`${where}error TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
    });
    const n = diags.length === 1 ? "1 error" : `${diags.length} errors`;
    return { error: `the bindings in ${outTs} do not compile with the driver (${n}; first: ${lines[0]})\n${lines.join("\n")}` };
  }
  const emitted = program.emit();
  if (emitted.emitSkipped) {
    return { error: "TypeScript emitted nothing" };
  }
  const table = extractTable(ts, program, drv);
  fs.writeFileSync(path.join(dir, "types.json"), JSON.stringify(table));
  return {};
}

function prune(cacheRoot) {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  let entries = [];
  try {
    entries = fs.readdirSync(cacheRoot);
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(cacheRoot, e);
    try {
      if (fs.statSync(p).mtimeMs < dayAgo) fs.rmSync(p, { recursive: true, force: true });
    } catch {
      // another run may be pruning or using it
    }
  }
}

/** Returns the cache entry (a directory with out/driver.js and types.json) for these sources. */
function compiled(tsVersion, outTs, sources) {
  const h = createHash("sha256");
  h.update(`dshgen-ts-driver ${CACHE_FORMAT}\0typescript ${tsVersion}\0`);
  for (const f of [fileURLToPath(import.meta.url), driverTs]) {
    h.update(fs.readFileSync(f));
    h.update("\0");
  }
  for (const s of sources) {
    h.update(`${s.name}\0${s.text}\0`);
  }
  const key = h.digest("hex").slice(0, 32);
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const cacheRoot = process.env.DSHGEN_TS_CACHE || path.join(os.tmpdir(), `dshgen-ts-driver${uid === undefined ? "" : "-" + uid}`);
  fs.mkdirSync(cacheRoot, { recursive: true, mode: 0o700 });
  // Compiled code is imported from here: refuse a directory someone else
  // owns or may write to.
  const st = fs.statSync(cacheRoot);
  if (uid !== undefined && (st.uid !== uid || (st.mode & 0o022) !== 0)) {
    fatal(`cache directory ${cacheRoot} is not owned by this user or is writable by others (set DSHGEN_TS_CACHE to a private directory)`);
  }
  const entry = path.join(cacheRoot, key);
  // A failure's message names the directory: cached per directory.
  const failed = path.join(cacheRoot, `${key}-${createHash("sha256").update(outTs).digest("hex").slice(0, 8)}.failed`);
  const check = () => {
    if (fs.existsSync(path.join(entry, "ok"))) {
      const now = new Date();
      try {
        fs.utimesSync(entry, now, now);
      } catch {
        // best effort: keeps a used entry from being pruned
      }
      return entry;
    }
    if (fs.existsSync(failed)) fatal(fs.readFileSync(failed, "utf8"));
    return undefined;
  };
  const hit = check();
  if (hit) return hit;
  prune(cacheRoot);
  const tmp = path.join(cacheRoot, `${key}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  let res;
  try {
    const ts = loadTypeScript();
    if (ts.version !== tsVersion) throw new Error(`loaded TypeScript ${ts.version}, expected ${tsVersion}`);
    res = build(ts, outTs, sources, tmp);
    if (res.error !== undefined) {
      fs.writeFileSync(`${tmp}.failed`, res.error);
      fs.renameSync(`${tmp}.failed`, failed);
    } else {
      fs.writeFileSync(path.join(tmp, "ok"), "");
      try {
        fs.renameSync(tmp, entry);
      } catch (e) {
        // Another run finished the same entry first: use it.
        if (!fs.existsSync(path.join(entry, "ok"))) throw e;
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (res.error !== undefined) fatal(res.error);
  return entry;
}

// --- main -----------------------------------------------------------------------

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

async function main() {
  const out = process.env.DSHGEN_TS_OUT;
  if (!out) fatal("DSHGEN_TS_OUT is not set (the absolute path of the out/ts directory to test)");
  const tsVersion = typeScriptVersion();
  const outTs = path.resolve(out);
  const sources = bindingSources(outTs);
  let entry;
  try {
    entry = compiled(tsVersion, outTs, sources);
  } catch (e) {
    fatal(`preparing the bindings in ${out}: ${e.stack ?? e}`);
  }
  const driver = await import(pathToFileURL(path.join(entry, "out", "driver.js")).href);
  const table = JSON.parse(fs.readFileSync(path.join(entry, "types.json"), "utf8"));

  const input = await readStdin();
  const lines = input.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const res = driver.run(
    lines.map((l) => l.replace(/\r+$/, "")),
    table,
  );
  if (res.failures.length > 0) process.stderr.write(res.failures.join("\n") + "\n");
  const text = res.lines.length > 0 ? res.lines.join("\n") + "\n" : "";
  process.exitCode = res.failures.length > 0 ? 1 : 0;
  process.stdout.write(text);
}

await main();

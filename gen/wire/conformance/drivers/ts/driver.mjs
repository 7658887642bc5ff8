// The TypeScript round-trip driver of `dshgen conformance --lang ts` (driver
// protocol 1, see ../../README.md).
//
//   DSHGEN_TS_OUT=<out/ts directory> [DSHGEN_TYPESCRIPT=<typescript package directory>] node driver.mjs
//
// Writes "dshgen-conformance-driver 1", then reads lines "HEADER<TAB>FRAME"
// on stdin (HEADER: {"seq":N}, plus "method" for a response: the method of
// the request it answers, or "type" for a line that is one value of the
// exported type of that TypeScript name instead of a frame) and writes one line per input line on stdout, in
// order and at once: "N<TAB>" and the frame decoded through the TypeScript
// bindings in $DSHGEN_TS_OUT/src and encoded back with JSON.stringify, or
// "N<TAB>!error <message>" for a frame that does not decode or whose
// decoding throws anything else (the error's name given then). Exit status:
// 0 at end of input; 2 setup error (no TypeScript, bindings that do not
// compile with the driver; the handshake line is not written then, the
// reason is on stderr).
//
// Node 20 runs no TypeScript, so this file compiles the bindings and the
// typed half of the driver (driver.ts, which says what decoding means) with
// TypeScript's compiler API, in process: strict, exactOptionalPropertyTypes,
// noUncheckedIndexedAccess, ES2022 modules. Any compile error fails the run.
// TypeScript is the package in $DSHGEN_TYPESCRIPT, else the one node
// resolves from the working directory (`npm install typescript` there),
// else the generated package's own (`npm install` in out/ts).
// From the same program it extracts, with the type checker, a table of the
// TypeScript types of every method's params and result and of the error
// object, which driver.ts follows member by member. Output and table are
// cached under $DSHGEN_TS_CACHE (default <os.tmpdir()>/dshgen-ts-driver-<uid>,
// private to the user), keyed by the sha256 of the bindings' sources, both
// driver files and the TypeScript version, so the one compile (about 2 s) is
// shared by later runs. Entries unused for a day are removed.
//
// Frames nest up to 10000 levels. JSON.parse reads any depth, but
// JSON.stringify and the driver's walk recurse, and the main thread's stack
// (about 1 MB) ends near 5000 levels; so frames are decoded in a worker
// thread with a STACK_MB stack.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, isMainThread, workerData } from "node:worker_threads";

const here = path.dirname(fileURLToPath(import.meta.url));
const driverTs = path.join(here, "driver.ts");
const CACHE_FORMAT = "3";
const PROTOCOL = "dshgen-conformance-driver 1";
/**
 * Stack of the decoding thread: a 10000-level frame needs between 8 and 16 MB
 * (measured); the rest is headroom (address space, touched only as deep as a
 * frame goes).
 */
const STACK_MB = 256;

function fatal(msg) {
  process.stderr.write(`ts driver: ${msg}\n`);
  process.exit(2);
}

/**
 * The directory of the TypeScript package to compile with: $DSHGEN_TYPESCRIPT,
 * else the one node resolves from the working directory, else the one the
 * generated package under test has (npm install in out/ts puts its
 * devDependency typescript into out/ts/node_modules; resolved from out/ts
 * upward).
 */
function typeScriptDir(outTs) {
  const env = process.env.DSHGEN_TYPESCRIPT;
  if (env) return path.resolve(env);
  const from = [process.cwd(), outTs];
  for (const dir of from) {
    try {
      return path.dirname(createRequire(path.join(dir, "noop.js")).resolve("typescript/package.json"));
    } catch {
      // not there: the next place
    }
  }
  // Where it looked goes first: the driver's error line is clipped to 300 bytes.
  fatal(`TypeScript not found (searched from ${from.join(" and from ")}): npm install typescript there, or set DSHGEN_TYPESCRIPT to the typescript package's directory`);
}

/** The installed TypeScript's version (the compiler itself is loaded only to build). */
function typeScriptVersion(tsPackage) {
  try {
    return JSON.parse(fs.readFileSync(path.join(tsPackage, "package.json"), "utf8")).version;
  } catch (e) {
    fatal(`no TypeScript package in ${tsPackage}: ${e.message}`);
  }
}

function loadTypeScript(tsPackage) {
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
  // The SDK modules (line transport, client, server) are not needed to
  // round-trip values and need @types/node: left out, with their re-exports.
  const sdk = new Set(["client.ts", "server.ts", "transport.ts"]);
  const dropSdk = (text) => text.replace(/^export \* from "\.\/(client|server|transport)\.js";\n/gm, "");
  return names
    .filter((n) => !sdk.has(n))
    .map((n) => {
      const text = fs.readFileSync(path.join(src, n), "utf8");
      return { name: n, text: n === "index.ts" ? dropSdk(text) : text };
    });
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
  // Every type the bindings' index.ts exports by name (a header's "type"
  // decodes a line as one of them); generic helpers are left out.
  const types = {};
  const index = program.getSourceFiles().find((f) => f.fileName.endsWith("/bindings/index.ts"));
  const indexMod = index && checker.getSymbolAtLocation(index);
  if (indexMod) {
    for (let s of checker.getExportsOfModule(indexMod)) {
      if (s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
      if (!(s.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) continue;
      const decl = s.declarations?.[0];
      if (decl && decl.typeParameters && decl.typeParameters.length > 0) continue;
      try {
        types[s.name] = conv(checker.getDeclaredTypeOfSymbol(s));
      } catch {
        // a type the walk cannot follow (none in generated bindings)
      }
    }
  }
  return { nodes, params, results, error, types };
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
function compiled(tsPackage, tsVersion, outTs, sources) {
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
    const ts = loadTypeScript(tsPackage);
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

/** Writes all of s to fd, waiting out a non-blocking descriptor. */
function writeAll(fd, s) {
  const b = Buffer.from(s, "utf8");
  for (let off = 0; off < b.length; ) {
    try {
      off += fs.writeSync(fd, b, off, b.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}

/** Yields the lines of fd 0 (without "\n"), read synchronously. */
function* stdinLines() {
  const buf = Buffer.alloc(1 << 20);
  let parts = [];
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        continue;
      }
      if (e.code === "EOF") break;
      throw e;
    }
    if (n === 0) break;
    let start = 0;
    for (let i = buf.indexOf(10, 0); i >= 0 && i < n; i = buf.indexOf(10, start)) {
      parts.push(Buffer.from(buf.subarray(start, i)));
      yield Buffer.concat(parts).toString("utf8");
      parts = [];
      start = i + 1;
    }
    if (start < n) parts.push(Buffer.from(buf.subarray(start, n)));
  }
  if (parts.length > 0) yield Buffer.concat(parts).toString("utf8");
}

/** The decoding thread: the protocol loop over the compiled driver. */
async function serve({ entry }) {
  const driver = await import(pathToFileURL(path.join(entry, "out", "driver.js")).href);
  const table = JSON.parse(fs.readFileSync(path.join(entry, "types.json"), "utf8"));
  const roundTrip = driver.roundTripper(table);
  writeAll(1, PROTOCOL + "\n");
  for (const line of stdinLines()) {
    const tab = line.indexOf("\t");
    let h;
    try {
      h = tab < 0 ? undefined : JSON.parse(line.slice(0, tab));
    } catch {
      h = undefined;
    }
    if (h === undefined || !Number.isSafeInteger(h.seq)) {
      process.stderr.write(`ts driver: not a driver protocol line: ${JSON.stringify(line.slice(0, 80))}\n`);
      process.exit(1);
    }
    let out;
    try {
      const text = line.slice(tab + 1).replace(/\r+$/, "");
      out = typeof h.type === "string" ? driver.typeRoundTrip(table, text, h.type) : roundTrip(text, typeof h.method === "string" ? h.method : undefined);
    } catch (e) {
      let msg;
      if (e instanceof driver.DecodeError) msg = e.message;
      else if (e instanceof Error) msg = `${e.name}: ${e.message}`;
      else msg = `thrown: ${String(e)}`;
      out = "!error " + msg.replace(/[\r\n]+/g, " ");
    }
    writeAll(1, `${h.seq}\t${out}\n`);
  }
}

async function main() {
  const out = process.env.DSHGEN_TS_OUT;
  if (!out) fatal("DSHGEN_TS_OUT is not set (the path of the out/ts directory to test)");
  const outTs = path.resolve(out);
  const tsPackage = typeScriptDir(outTs);
  const tsVersion = typeScriptVersion(tsPackage);
  const sources = bindingSources(outTs);
  let entry;
  try {
    entry = compiled(tsPackage, tsVersion, outTs, sources);
  } catch (e) {
    fatal(`preparing the bindings in ${out}: ${e.stack ?? e}`);
  }
  const w = new Worker(fileURLToPath(import.meta.url), { workerData: { entry }, resourceLimits: { stackSizeMb: STACK_MB } });
  w.on("error", (e) => {
    process.stderr.write(`ts driver: ${e.stack ?? e}\n`);
    process.exitCode = 1;
  });
  w.on("exit", (code) => {
    if (code !== 0 && !process.exitCode) process.exitCode = code;
  });
}

if (isMainThread) {
  await main();
} else {
  await serve(workerData);
}

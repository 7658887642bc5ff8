// The typed half of the TypeScript round-trip driver of `dshgen conformance`
// (driver.mjs compiles it at run time, together with a copy of the bindings
// under test in ./bindings/, with strict, exactOptionalPropertyTypes and
// noUncheckedIndexedAccess; a binding whose types or runtime helpers do not
// fit this code fails to compile, and the driver then never starts).
//
// Decoding a frame means what it means to a TypeScript consumer of the
// bindings: parseFrame and the frame guards (isRequest, isNotification,
// isResultFor, isErrorResponse) classify it and narrow it by method to
// RequestFrame<M> / NotificationFrame<M> / ResultFrame<M> / ErrorFrame; then
// its params, result or error is read as ParamsOf<M>, ResultOf<M> or
// RpcError, member by member, following the TypeScript types themselves
// (a table driver.mjs extracts from the bindings with the type checker):
// primitives and literal types are checked, a tagged union goes to its
// branch by tag with isKnown (an unknown tag to the union's unknown-tag
// variant), other unions to the first branch that fits. The value written
// back (JSON.stringify) is rebuilt from what the bindings expose: the members
// the TypeScript type declares, plus extraMembers(type, value) for the
// unknown ones. So a frame a guard rejects, a member whose value does not
// have its declared type, or a missing required member fails the line ("!error
// <pointer>: <message>"); a member the schema declares (declaredMembers) but
// the interface lost is dropped and the round trip reports where.
import {
  extraMembers,
  frameKind,
  isErrorResponse,
  isKnown,
  isKnownMethod,
  isNotification,
  isRequest,
  isResultFor,
  knownTags,
  declaredMembers,
  methodTable,
  parseFrame,
  type ErrorFrame,
  type KnownMethod,
  type MethodInfo,
  type NotificationMethod,
  type ObjectTypes,
  type ParamsOf,
  type RequestMethod,
  type ResultOf,
  type RpcError,
  type TaggedUnions,
  type WithUnknown,
} from "./bindings/index.js";

/**
 * The types the type table is extracted from (driver.mjs reads this
 * interface with the type checker): params by method, result by request
 * method, the error object, and the bindings' object and union registries.
 */
export interface DecodeRoots {
  params: { [M in KnownMethod]-?: ParamsOf<M> };
  results: { [M in RequestMethod]-?: ResultOf<M> };
  error: ErrorFrame["error"];
  objects: ObjectTypes;
  unions: TaggedUnions;
}

// Compile-time checks of the runtime registries against the types.
// Every known branch of a tagged union and its unknown-tag variant carry the
// tag member as a string (a union listed here lost it).
type BadTag = {
  [U in keyof TaggedUnions]: TaggedUnions[U]["known"] extends { [K in TaggedUnions[U]["tag"]]: string }
    ? TaggedUnions[U]["unknown"] extends { [K in TaggedUnions[U]["tag"]]: string }
      ? never
      : U
    : U;
}[keyof TaggedUnions];
const tagsCarried: [BadTag] extends [never] ? true : { unionWithoutItsTag: BadTag } = true;
// The method table covers exactly the methods of the maps.
const tableCovers: { readonly [M in KnownMethod]: MethodInfo } = methodTable;
void tagsCarried;
void tableCovers;

/** One node of the type table (indices point into TypeTable.nodes). */
export type TypeNode =
  | { k: "any" }
  | { k: "never"; why: string }
  | { k: "string" }
  | { k: "number" }
  | { k: "boolean" }
  | { k: "null" }
  | { k: "lit"; v: string | number | boolean }
  | { k: "array"; of: number; display: string }
  | { k: "union"; of: number[]; display: string }
  | { k: "tagged"; union: string; tag: string; known: number; unknown: number; display: string }
  | { k: "object"; name?: string; unknownOf?: string; props: Prop[]; index?: number; display: string };

export interface Prop {
  name: string;
  type: number;
  optional: boolean;
}

/** What driver.mjs extracts from the bindings. */
export interface TypeTable {
  nodes: TypeNode[];
  params: { [method: string]: number };
  results: { [method: string]: number };
  error: number;
  /** Every type the bindings export by name (for a header's "type"). */
  types: { [name: string]: number };
}

/** A line that does not decode; pointer is into the frame. */
export class DecodeError extends Error {
  constructor(
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(pointer === "" ? reason : `${pointer}: ${reason}`);
  }
}

type Obj = { readonly [key: string]: unknown };

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isUnionName(s: string): s is keyof TaggedUnions & string {
  return hasOwn(knownTags, s);
}

function isObjectName(s: string): s is keyof ObjectTypes & string {
  return hasOwn(declaredMembers, s);
}

/** Sets a member as an own data property (a "__proto__" key stays a member). */
function put(o: { [key: string]: unknown }, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function esc(k: string): string {
  return "/" + k.replace(/~/g, "~0").replace(/\//g, "~1");
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

class Decoder {
  constructor(private readonly table: TypeTable) {}

  node(i: number): TypeNode {
    const n = this.table.nodes[i];
    if (n === undefined) {
      throw new Error(`type table: no node ${i}`);
    }
    return n;
  }

  /** Checks v against node i and returns the value as the bindings expose it. */
  walk(v: unknown, i: number, ptr: string): unknown {
    const n = this.node(i);
    switch (n.k) {
      case "any":
        return v;
      case "never":
        throw new DecodeError(ptr, `no value is allowed here (${n.why}), got ${kindOf(v)}`);
      case "string":
      case "number":
      case "boolean":
        if (typeof v !== n.k) {
          throw new DecodeError(ptr, `expected ${n.k}, got ${kindOf(v)}`);
        }
        return v;
      case "null":
        if (v !== null) {
          throw new DecodeError(ptr, `expected null, got ${kindOf(v)}`);
        }
        return v;
      case "lit":
        if (v !== n.v) {
          throw new DecodeError(ptr, `expected ${JSON.stringify(n.v)}, got ${show(v)}`);
        }
        return v;
      case "array":
        if (!Array.isArray(v)) {
          throw new DecodeError(ptr, `expected ${n.display}, got ${kindOf(v)}`);
        }
        return v.map((x: unknown, j) => this.walk(x, n.of, `${ptr}/${j}`));
      case "union":
        return this.union(v, n, ptr);
      case "tagged":
        return this.tagged(v, n, ptr);
      case "object":
        return this.object(v, n, ptr);
    }
  }

  private tagged(v: unknown, n: Extract<TypeNode, { k: "tagged" }>, ptr: string): unknown {
    if (!isObject(v)) {
      throw new DecodeError(ptr, `expected ${n.display} (an object), got ${kindOf(v)}`);
    }
    const union = n.union;
    if (!isUnionName(union)) {
      throw new Error(`type table: ${union} is not a tagged union of the bindings`);
    }
    const tag = v[n.tag];
    if (typeof tag !== "string") {
      throw new DecodeError(ptr + esc(n.tag), `expected the ${union} tag (a string), got ${kindOf(tag)}`);
    }
    const value = v as unknown as WithUnknown<typeof union>;
    const branch = this.branchFor(n.known, n.tag, tag);
    if (isKnown(union, value)) {
      if (branch === undefined) {
        throw new DecodeError(ptr + esc(n.tag), `isKnown("${union}") accepts ${show(tag)} but no branch of ${n.display} has that tag`);
      }
      return this.walk(v, branch, ptr);
    }
    if (branch !== undefined) {
      throw new DecodeError(ptr + esc(n.tag), `${n.display} has a branch for ${show(tag)} but isKnown("${union}") says the tag is unknown`);
    }
    return this.walk(v, n.unknown, ptr);
  }

  /** The branch of a known union (or the one object) whose tag member is pinned to tag. */
  private branchFor(known: number, tagName: string, tag: string): number | undefined {
    const k = this.node(known);
    const candidates = k.k === "union" ? k.of : [known];
    for (const b of candidates) {
      const bn = this.node(b);
      if (bn.k !== "object") continue;
      const p = bn.props.find((x) => x.name === tagName);
      if (p === undefined) continue;
      const pt = this.node(p.type);
      if (pt.k === "lit" && pt.v === tag) return b;
    }
    return undefined;
  }

  /**
   * Whether v has the JSON kind node i takes (its top level only): branches
   * of a union that cannot fit are not walked, so a value nested deep in a
   * recursive union (JsonValue) costs one walk per level, not one failed
   * walk per other branch.
   */
  private fits(i: number, v: unknown): boolean {
    const n = this.node(i);
    switch (n.k) {
      case "any":
        return true;
      case "never":
        return false;
      case "string":
      case "number":
      case "boolean":
        return typeof v === n.k;
      case "null":
        return v === null;
      case "lit":
        return v === n.v;
      case "array":
        return Array.isArray(v);
      case "union":
        return n.of.some((b) => this.fits(b, v));
      case "tagged":
      case "object":
        return isObject(v);
    }
  }

  private union(v: unknown, n: Extract<TypeNode, { k: "union" }>, ptr: string): unknown {
    const [only, ...rest] = n.of;
    if (only !== undefined && rest.length === 0) {
      return this.walk(v, only, ptr);
    }
    // Branches of another JSON kind and branches whose literal members do
    // not match are out; the rest are tried most specific (most matching
    // literal members) first.
    const tries: { b: number; score: number }[] = [];
    let firstMiss: DecodeError | undefined;
    for (const b of n.of) {
      if (!this.fits(b, v)) continue;
      const bn = this.node(b);
      let score = 0;
      let miss: DecodeError | undefined;
      if (bn.k === "object" && isObject(v)) {
        for (const p of bn.props) {
          const pt = this.node(p.type);
          if (pt.k !== "lit") continue;
          if (hasOwn(v, p.name) && v[p.name] === pt.v) {
            score++;
          } else if (hasOwn(v, p.name) || !p.optional) {
            miss = new DecodeError(ptr + esc(p.name), `expected ${JSON.stringify(pt.v)}, got ${show(v[p.name])}`);
            break;
          }
        }
        if (miss === undefined && bn.unknownOf !== undefined && isUnionName(bn.unknownOf) && isKnown(bn.unknownOf, v as unknown as WithUnknown<typeof bn.unknownOf>)) {
          miss = new DecodeError(ptr, `the tag is a known ${bn.unknownOf} tag, not for ${bn.display}`);
        }
      }
      if (miss !== undefined) {
        firstMiss ??= miss;
        continue;
      }
      tries.push({ b, score });
    }
    tries.sort((x, y) => y.score - x.score);
    let best: DecodeError | undefined;
    for (const t of tries) {
      try {
        return this.walk(v, t.b, ptr);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        if (best === undefined || e.pointer.length > best.pointer.length) best = e;
      }
    }
    if (tries.length === 1 && best !== undefined) throw best;
    const closest = best ?? firstMiss;
    const why = closest !== undefined && closest.pointer !== ptr ? ` (closest: ${closest.message})` : "";
    throw new DecodeError(ptr, `${show(v)} is none of ${n.display}${why}`);
  }

  private object(v: unknown, n: Extract<TypeNode, { k: "object" }>, ptr: string): unknown {
    if (!isObject(v)) {
      throw new DecodeError(ptr, `expected ${n.display} (an object), got ${kindOf(v)}`);
    }
    const out: { [key: string]: unknown } = {};
    const typed = new Set<string>();
    for (const p of n.props) {
      typed.add(p.name);
      if (hasOwn(v, p.name)) {
        put(out, p.name, this.walk(v[p.name], p.type, ptr + esc(p.name)));
      } else if (!p.optional) {
        throw new DecodeError(ptr + esc(p.name), `missing required member of ${n.display}`);
      }
    }
    // Unknown members: what extraMembers returns for a named object type;
    // for an anonymous one every member its type does not declare.
    const name = n.name;
    let extras: [string, unknown][];
    if (name !== undefined && isObjectName(name)) {
      extras = Object.entries(extraMembers(name, v as unknown as ObjectTypes[typeof name]));
    } else {
      extras = Object.entries(v).filter(([k]) => !typed.has(k));
    }
    for (const [k, x] of extras) {
      if (typed.has(k)) continue;
      put(out, k, n.index === undefined ? x : this.walk(x, n.index, ptr + esc(k)));
    }
    return out;
  }

  params<M extends KnownMethod>(method: M, raw: unknown): ParamsOf<M> {
    const i = this.table.params[method];
    if (i === undefined) {
      throw new DecodeError("/params", `the type table has no params type for ${method}`);
    }
    return this.walk(raw, i, "/params") as ParamsOf<M>;
  }

  result<M extends RequestMethod>(method: M, raw: unknown): ResultOf<M> {
    const i = this.table.results[method];
    if (i === undefined) {
      throw new DecodeError("/result", `the type table has no result type for ${method}`);
    }
    return this.walk(raw, i, "/result") as ResultOf<M>;
  }

  /** Decodes a value as the exported type called name. */
  named(name: string, raw: unknown): unknown {
    const i = this.table.types[name];
    if (i === undefined) {
      throw new DecodeError("", `the bindings export no type ${name}`);
    }
    return this.walk(raw, i, "");
  }

  error(raw: unknown): RpcError {
    return this.walk(raw, this.table.error, "/error") as RpcError;
  }
}

function copyFrame(frame: Obj): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(frame)) {
    put(out, k, v);
  }
  return out;
}

/**
 * Decodes one line through the bindings and returns it encoded again
 * (JSON.stringify), or throws DecodeError. A response's result is decoded as
 * the result of responseMethod (the method of the request it answers).
 */
function roundTrip(d: Decoder, line: string, responseMethod: string | undefined): string {
  const frame = parseFrame(line);
  if (frame === undefined) {
    try {
      JSON.parse(line);
    } catch (e) {
      throw new DecodeError("", `not a JSON object: ${e instanceof Error ? e.message : String(e)}`);
    }
    throw new DecodeError("", "parseFrame: neither request, response nor notification");
  }
  const raw: Obj = frame;
  const out = copyFrame(raw);
  const kind = frameKind(frame);
  if (kind === "request" || kind === "notification") {
    const method = frame["method"];
    if (!isKnownMethod(method)) {
      throw new DecodeError("/method", `unknown method ${show(method)}`);
    }
    // The method's kind from the table, the frame's from frameKind; then the
    // guard of that kind must accept the frame. (The narrowed frames are not
    // dereferenced: for a protocol without requests or without notifications
    // one of them is never.)
    if (kind === "request" && isRequestMethod(method)) {
      // Both forms of the guard: any request method, and this one.
      if (!isRequest(raw) || !isRequest(raw, method)) {
        throw new DecodeError("", `isRequest rejects this ${method} request`);
      }
      decodeParams(d, method, raw, out);
    } else if (kind === "notification" && isNotificationMethod(method)) {
      // Both forms of the guard: any notification method, and this one.
      if (!isNotification(raw) || !isNotification(raw, method)) {
        throw new DecodeError("", `isNotification rejects this ${method} notification`);
      }
      decodeParams(d, method, raw, out);
    } else {
      const info: MethodInfo = methodTable[method];
      throw new DecodeError("/method", `${method} is a ${info.kind} method, sent as a ${kind}`);
    }
    return JSON.stringify(out);
  }
  // A response.
  if (hasOwn(frame, "error")) {
    if (!isErrorResponse(frame)) {
      throw new DecodeError("/error", `expected an error object, got ${kindOf(frame["error"])}`);
    }
    const e: RpcError = d.error(frame.error);
    put(out, "error", e);
    return JSON.stringify(out);
  }
  if (hasOwn(frame, "result")) {
    const method = responseMethod;
    if (method === undefined) {
      throw new DecodeError("/id", `a result without the method of its request`);
    }
    if (!isRequestMethod(method)) {
      throw new DecodeError("/result", `result of ${method}: unknown request method`);
    }
    const m: RequestMethod = method;
    if (!isResultFor(raw, m)) {
      throw new DecodeError("", `isResultFor(${m}) rejects the response`);
    }
    const r: ResultOf<typeof m> = d.result(m, raw["result"]);
    put(out, "result", r);
    return JSON.stringify(out);
  }
  return JSON.stringify(out);
}

function isRequestMethod(m: string): m is RequestMethod {
  if (!isKnownMethod(m)) return false;
  const info: MethodInfo = methodTable[m];
  return info.kind === "request";
}

function isNotificationMethod(m: string): m is NotificationMethod {
  if (!isKnownMethod(m)) return false;
  const info: MethodInfo = methodTable[m];
  return info.kind === "notification";
}

function decodeParams<M extends KnownMethod>(d: Decoder, method: M, frame: Obj, out: { [key: string]: unknown }): void {
  if (!hasOwn(frame, "params")) {
    const info: MethodInfo = methodTable[method];
    if (!info.paramsOptional) {
      throw new DecodeError("/params", `missing: params of ${method} are required`);
    }
    return;
  }
  const p: ParamsOf<M> = d.params(method, frame["params"]);
  put(out, "params", p);
}

/**
 * Returns the round trip of one frame through the bindings, following the
 * type table: the frame encoded again, or a DecodeError thrown.
 */
export function roundTripper(table: TypeTable): (frame: string, responseMethod: string | undefined) => string {
  const d = new Decoder(table);
  return (frame, responseMethod) => roundTrip(d, frame, responseMethod);
}

/**
 * Decodes one JSON value (not a frame) as the exported type called name and
 * returns it encoded again (a header's "type"), or throws DecodeError.
 */
export function typeRoundTrip(table: TypeTable, line: string, name: string): string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new DecodeError("", `not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  return JSON.stringify(new Decoder(table).named(name, v));
}

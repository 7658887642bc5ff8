// Node test (node --test, after tsc): every frame of the shared fixture
// corpus parses with the generated package (out/ts), narrows by method and by
// event type to a typed branch whose members are read with their declared
// types, and serializes back to the same JSON value (and, as every writer in
// the corpus writes compact JSON.stringify output, to the same bytes).
//
// Corpus: ../shared/fixtures/real-captures/*/{client-to-server,server-to-client}.jsonl
// and ../shared/fixtures/upstream-snapshots/*/notifications.expected.jsonl.
// - real-captures/malformed-lines injects ten lines that are no frame on
//   purpose; parseFrame drops exactly those (as the transports do) and the
//   test asserts that it drops those ten and nothing else.
// - Frames that are not valid by the schema are listed in NOT_VALID with the
//   reason, and the test asserts that they, and only they, fail the typed
//   checks: requests of methods the protocol does not have (unknown-method)
//   and an initialize whose maxTokens is a string (invalid-max-tokens).
//   (maxTokens 0, -1 and 1.5 are numbers: the TypeScript type is right,
//   their bounds are the validator's business.)
// - The upstream snapshots are normalized (WIRE-FACTS §9.2): no `jsonrpc`
//   member, and the string "{{tools}}" where request/header declares an array
//   of ToolSchema. The test accepts exactly these two artifacts in snapshot
//   files (counted and printed), as the validator's --snapshot mode does;
//   every other member is checked as in the real captures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  extraMembers,
  frameKind,
  isErrorResponse,
  isKnown,
  isKnownMethod,
  isNotification,
  isRequest,
  isResultFor,
  methodTable,
  parseFrame,
  type ContentBlock,
  type FinishReason,
  type JsonValue,
  type MessageSource,
  type RequestMethod,
  type SessionEvent,
  type StreamChunk,
  type TokenUsage,
  type TurnEndReason,
  type WithUnknown,
} from "../../../out/ts/src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
// Compiled to testdata/ts/dist/testdata/ts/test/: the repository is six levels up.
const repo = process.env["DSHGEN_REPO"] ?? resolve(here, "../../../../../..");
const shared = process.env["DSHGEN_SHARED"] ?? resolve(repo, "../shared");
const fixtures = join(shared, "fixtures");

/** Frames that are not valid by the schema: file (relative to fixtures) and 1-based line → reason. */
const NOT_VALID: { [file: string]: { [line: number]: string } } = {
  "real-captures/unknown-method/client-to-server.jsonl": {
    2: "method session/cancel is not in the protocol",
    3: "method no/such/method is not in the protocol",
  },
  "real-captures/invalid-max-tokens/client-to-server.jsonl": {
    4: 'initialize maxTokens is the string "10"',
  },
};

// --- typed checks: each reads members through the generated types ----------

class Ctx {
  snapshot = false;
  placeholders = 0; // "{{tools}}" accepted in snapshots
  noJsonrpc = 0; // frames without jsonrpc accepted in snapshots
  branches = new Map<string, number>();
  hit(name: string): void {
    this.branches.set(name, (this.branches.get(name) ?? 0) + 1);
  }
}

function str(v: unknown, what: string): asserts v is string {
  assert.equal(typeof v, "string", `${what} is not a string`);
}
function num(v: unknown, what: string): asserts v is number {
  assert.equal(typeof v, "number", `${what} is not a number`);
}
function int(v: unknown, what: string): asserts v is number {
  assert.ok(Number.isSafeInteger(v), `${what} is not an integer`);
}
function optional<T>(v: T | undefined, check: (x: T) => void): void {
  if (v !== undefined) {
    check(v);
  }
}
function arr<T>(v: T[], what: string, each: (x: T) => void): void {
  assert.ok(Array.isArray(v), `${what} is not an array`);
  v.forEach(each);
}

function usage(u: TokenUsage): void {
  num(u.inputTokens, "usage.inputTokens");
  num(u.outputTokens, "usage.outputTokens");
  optional(u.cacheReadTokens, (x) => num(x, "usage.cacheReadTokens"));
}

function block(c: Ctx, b: ContentBlock): void {
  c.hit(`ContentBlock ${b.type}`);
  switch (b.type) {
    case "text":
    case "reasoning":
      str(b.text, "block.text");
      return;
    case "image":
      str(b.attachment.attachmentId, "image.attachment.attachmentId");
      return;
    case "tool-call":
      str(b.id, "tool-call.id");
      str(b.name, "tool-call.name");
      str(b.arguments, "tool-call.arguments");
      return;
    case "tool-result":
      str(b.toolCallId, "tool-result.toolCallId");
      arr(b.content, "tool-result.content", (x) => block(c, x));
      optional(b.isError, (x) => assert.equal(typeof x, "boolean"));
      return;
    default: {
      const never: never = b;
      assert.fail(`unknown content block ${JSON.stringify(never)}`);
    }
  }
}

function source(c: Ctx, s: MessageSource): void {
  c.hit(`MessageSource ${s.kind}`);
  switch (s.kind) {
    case "user":
      optional(s.rpcId, (x) => str(x, "source.rpcId"));
      return;
    case "model":
      str(s.provider, "source.provider");
      str(s.model, "source.model");
      return;
    case "tool":
      str(s.callId, "source.callId");
      return;
    case "plugin":
      str(s.plugin, "source.plugin");
      optional(s.form, (x) => str(x, "source.form"));
      optional(s.sections, (xs) => arr(xs, "source.sections", (x) => { str(x.name, "section.name"); str(x.text, "section.text"); }));
      return;
    default:
      // The other known kinds come from plugins the captures did not mount.
      str(s.kind, "source.kind");
  }
}

function finishReason(c: Ctx, r: FinishReason): void {
  c.hit(`FinishReason ${r.kind}`);
  if (r.kind === "error" || r.kind === "aborted") {
    str(r.failure.message, "failure.message");
  }
}

function chunk(c: Ctx, ch: StreamChunk): void {
  c.hit(`StreamChunk ${ch.type}`);
  switch (ch.type) {
    case "block-start":
      int(ch.index, "chunk.index");
      str(ch.blockType, "chunk.blockType");
      return;
    case "text-delta":
    case "reasoning-delta":
      int(ch.index, "chunk.index");
      str(ch.text, "chunk.text");
      return;
    case "tool-call-delta":
      int(ch.index, "chunk.index");
      str(ch.argumentsDelta, "chunk.argumentsDelta");
      optional(ch.name, (x) => str(x, "chunk.name"));
      return;
    case "block-end":
      int(ch.index, "chunk.index");
      block(c, ch.block);
      return;
    case "usage":
      usage(ch.usage);
      return;
    case "finish":
      finishReason(c, ch.reason);
      return;
    default: {
      const never: never = ch;
      assert.fail(`unknown chunk ${JSON.stringify(never)}`);
    }
  }
}

function turnEnd(c: Ctx, r: TurnEndReason): void {
  c.hit(`TurnEndReason ${r.kind}`);
  if (r.kind === "error") {
    str(r.error.code, "reason.error.code");
  }
}

function event(c: Ctx, anyEvent: WithUnknown<"SessionEvent">): void {
  assert.ok(isKnown("SessionEvent", anyEvent), `unknown event type ${anyEvent.type}`);
  const e: SessionEvent = anyEvent;
  int(e.seq, "event.seq");
  int(e.time, "event.time");
  c.hit(`SessionEvent ${e.type}`);
  switch (e.type) {
    case "turn/start":
      int(e.data.turn, "turn");
      return;
    case "turn/end":
      int(e.data.turn, "turn");
      turnEnd(c, e.data.reason);
      return;
    case "step/start":
    case "step/end":
      int(e.data.turn, "turn");
      int(e.data.step, "step");
      return;
    case "user/message":
      assert.equal(e.data.role, "user");
      str(e.data.id, "message.id");
      arr(e.data.content, "content", (b) => block(c, b));
      source(c, e.data.source);
      assert.ok(e.surfaceOp === "append" || typeof e.surfaceOp === "object");
      return;
    case "assistant/chunk":
      chunk(c, e.data.chunk);
      return;
    case "assistant/message":
      assert.equal(e.data.message.role, "assistant");
      arr(e.data.message.content, "content", (b) => block(c, b));
      source(c, e.data.message.source);
      optional(e.data.usage, usage);
      optional(e.sourceEventSeqs, (xs) => arr(xs, "sourceEventSeqs", (x) => int(x, "seq")));
      return;
    case "tool/call":
      str(e.data.callId, "callId");
      str(e.data.name, "name");
      str(e.data.arguments, "arguments");
      return;
    case "tool/result":
      arr(e.data.message.content, "content", (b) => block(c, b));
      source(c, e.data.message.source);
      optional(e.data.meta, (m: JsonValue) => assert.notEqual(m, undefined));
      return;
    case "agent/inbox/spliced":
      assert.ok(e.data.target === "next-turn" || e.data.target === "next-step");
      int(e.data.start, "start");
      arr(e.data.inserted, "inserted", (m) => { str(m.id, "inserted.id"); arr(m.content, "content", (b) => block(c, b)); source(c, m.source); });
      return;
    case "session/title":
      str(e.data.title, "title");
      c.hit(`SessionTitleSource ${e.data.source.kind}`);
      return;
    case "request/header": {
      const h = e.data.header;
      str(h.config.provider, "config.provider");
      str(h.config.model, "config.model");
      optional(h.system, (x) => str(x, "system"));
      const tools: unknown = h.tools;
      if (c.snapshot && tools === "{{tools}}") {
        c.placeholders++; // normalization artifact (WIRE-FACTS §9.2)
      } else {
        optional(h.tools, (xs) => arr(xs, "tools", (t) => { str(t.name, "tool.name"); str(t.description, "tool.description"); }));
      }
      assert.ok(["initial", "resume", "change"].includes(e.data.reason));
      return;
    }
    case "request/context":
      str(e.data.provider, "provider");
      str(e.data.model, "model");
      optional(e.data.contextWindow, (x) => num(x, "contextWindow"));
      return;
    case "subagent/descriptor":
      num(e.data.version, "version");
      str(e.data.provider, "provider");
      c.hit(`SubagentDescriptor ${e.data.mode}`);
      return;
    default:
      // Known types the corpus does not carry: the envelope is checked above.
      return;
  }
}

/** Checks one frame through the typed branch it narrows to. Returns the branch name. */
function frame(c: Ctx, f: { readonly [key: string]: unknown }, pending: Map<string | number, RequestMethod>): string {
  if (f["jsonrpc"] === undefined && c.snapshot) {
    c.noJsonrpc++; // normalization artifact (WIRE-FACTS §9.2)
  } else {
    assert.equal(f["jsonrpc"], "2.0", "jsonrpc is not 2.0");
  }
  if (isRequest(f)) {
    assert.equal(methodTable[f.method].direction, "client-to-server");
    pending.set(f.id, f.method);
    switch (f.method) {
      case "initialize":
        str(f.params.cwd, "cwd");
        str(f.params.provider, "provider");
        str(f.params.model, "model");
        optional(f.params.maxTokens, (x) => num(x, "maxTokens"));
        break;
      case "session/prompt":
        str(f.params.sessionId, "sessionId");
        arr(f.params.contentBlocks, "contentBlocks", (b) => block(c, b));
        break;
      case "shutdown":
        optional(f.params, (p) => assert.equal(typeof p, "object"));
        break;
      default: {
        const never: never = f;
        assert.fail(JSON.stringify(never));
      }
    }
    c.hit(`request ${f.method}`);
    return `request ${f.method}`;
  }
  if (isNotification(f)) {
    assert.equal(methodTable[f.method].direction, "server-to-client");
    switch (f.method) {
      case "session.event":
        str(f.params.sessionId, "sessionId");
        event(c, f.params.event);
        break;
      case "session.status":
        str(f.params.sessionId, "sessionId");
        assert.ok(f.params.status === "idle" || f.params.status === "running");
        c.hit(`status ${f.params.status}`);
        break;
      case "subagent.started":
        str(f.params.parentSessionId, "parentSessionId");
        str(f.params.childSessionId, "childSessionId");
        break;
      case "subagent.finished":
        str(f.params.provider, "provider");
        str(f.params.agentId, "agentId");
        assert.ok(f.params.status === "ok" || f.params.status === "error");
        str(f.params.stopReason, "stopReason");
        optional(f.params.lastAssistantMessage, (xs) => arr(xs, "lastAssistantMessage", (b) => block(c, b)));
        break;
      default: {
        const never: never = f;
        assert.fail(JSON.stringify(never));
      }
    }
    c.hit(`notification ${f.method}`);
    return `notification ${f.method}`;
  }
  if (isErrorResponse(f)) {
    int(f.error.code, "error.code");
    str(f.error.message, "error.message");
    c.hit("error response");
    return "error response";
  }
  const kind = frameKind(f);
  if (kind === "request" || kind === "notification") {
    assert.fail(`${kind} of a method the protocol does not have: ${String(f["method"])}`);
  }
  assert.equal(kind, "response");
  const id = f["id"];
  assert.ok(typeof id === "string" || typeof id === "number");
  const method = pending.get(id);
  assert.ok(method !== undefined, `response to unknown id ${id}`);
  if (method === "initialize" && isResultFor(f, method)) {
    str(f.result.serverInfo.name, "serverInfo.name");
    str(f.result.serverInfo.version, "serverInfo.version");
  } else if (method === "session/prompt" && isResultFor(f, method)) {
    str(f.result.messageId, "messageId");
  } else if (method === "shutdown" && isResultFor(f, method)) {
    assert.equal(typeof f.result, "object");
  } else {
    assert.fail(`no typed branch for a response to ${method}`);
  }
  c.hit(`result ${method}`);
  return `result ${method}`;
}

// --- the corpus ---------------------------------------------------------------

interface Corpus {
  scenario: string;
  files: string[]; // relative to fixtures; client-to-server first so responses pair
  snapshot: boolean;
}

function corpus(): Corpus[] {
  const out: Corpus[] = [];
  const real = join(fixtures, "real-captures");
  for (const s of readdirSync(real, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    const files = ["client-to-server.jsonl", "server-to-client.jsonl"].map((f) => `real-captures/${s}/${f}`).filter((f) => existsSync(join(fixtures, f)));
    out.push({ scenario: `real-captures/${s}`, files, snapshot: false });
  }
  const snaps = join(fixtures, "upstream-snapshots");
  for (const s of readdirSync(snaps, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    out.push({ scenario: `upstream-snapshots/${s}`, files: [`upstream-snapshots/${s}/notifications.expected.jsonl`], snapshot: true });
  }
  return out;
}

const totals = { frames: 0, bytesIdentical: 0, dropped: 0, notValid: 0, placeholders: 0, noJsonrpc: 0 };
const coverage = new Map<string, number>();

test("the fixture corpus is there", () => {
  assert.ok(existsSync(fixtures), `no fixtures at ${fixtures} (set DSHGEN_SHARED)`);
  assert.ok(corpus().length >= 12, "fewer scenarios than expected");
});

for (const sc of corpus()) {
  test(sc.scenario, () => {
    const c = new Ctx();
    c.snapshot = sc.snapshot;
    const pending = new Map<string | number, RequestMethod>();
    let frames = 0;
    let dropped = 0;
    for (const file of sc.files) {
      const text = readFileSync(join(fixtures, file), "utf8");
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") {
        lines.pop();
      }
      const bad = NOT_VALID[file] ?? {};
      lines.forEach((line, i) => {
        const where = `${file}:${i + 1}`;
        const f = parseFrame(line);
        if (f === undefined) {
          dropped++;
          return;
        }
        frames++;
        // Round trip: the parsed frame serializes back to the same value and bytes.
        const again = JSON.stringify(f);
        assert.deepEqual(JSON.parse(again), JSON.parse(line), `${where}: round trip changed the value`);
        if (again === line) {
          totals.bytesIdentical++;
        }
        const reason = bad[i + 1];
        if (reason !== undefined) {
          assert.throws(() => frame(c, f, pending), Error, `${where}: expected to fail the typed checks (${reason})`);
          totals.notValid++;
          if (isKnownMethod(f["method"]) && typeof f["id"] === "string") {
            pending.set(f["id"], f["method"] as RequestMethod);
          }
          return;
        }
        try {
          frame(c, f, pending);
        } catch (err) {
          throw new Error(`${where}: ${(err as Error).message}\n${line.slice(0, 300)}`);
        }
      });
    }
    if (sc.scenario === "real-captures/malformed-lines") {
      assert.equal(dropped, 10, "malformed-lines: parseFrame must drop exactly the ten injected lines");
    } else {
      assert.equal(dropped, 0, `${sc.scenario}: lines that are no frame`);
    }
    assert.ok(frames > 0, `${sc.scenario}: no frames`);
    totals.frames += frames;
    totals.dropped += dropped;
    totals.placeholders += c.placeholders;
    totals.noJsonrpc += c.noJsonrpc;
    for (const [k, n] of c.branches) {
      coverage.set(k, (coverage.get(k) ?? 0) + n);
    }
  });
}

test("unknown event types and unknown members are typed and survive a round trip", () => {
  const line = readFileSync(join(fixtures, "real-captures/text-turn/server-to-client.jsonl"), "utf8").split("\n").find((l) => l.includes('"type":"user/message"'));
  assert.ok(line !== undefined);
  // A newer peer: an event type this build does not know, and a member the user source does not declare.
  const mutated = line.replace('"type":"user/message"', '"type":"plugin/new-thing"');
  const unknownFrame = parseFrame(mutated);
  assert.ok(isNotification(unknownFrame, "session.event"));
  const anyEvent: WithUnknown<"SessionEvent"> = unknownFrame.params.event;
  assert.equal(isKnown("SessionEvent", anyEvent), false);
  if (!isKnown("SessionEvent", anyEvent)) {
    const tag: string = anyEvent.type;
    assert.equal(tag, "plugin/new-thing");
    assert.equal(typeof anyEvent.data, "object");
  }
  assert.equal(JSON.stringify(unknownFrame), mutated);

  const extra = line.replace('"source":{"kind":"user"}', '"source":{"kind":"user","clientTimeZone":"UTC","x-host":{"n":1}}');
  assert.notEqual(extra, line);
  const f = parseFrame(extra);
  assert.ok(isNotification(f, "session.event"));
  const e: WithUnknown<"SessionEvent"> = f.params.event;
  assert.ok(isKnown("SessionEvent", e) && e.type === "user/message" && e.data.source.kind === "user");
  if (e.type === "user/message" && e.data.source.kind === "user") {
    assert.equal(e.data.source.clientTimeZone, "UTC");
    assert.deepEqual(extraMembers("UserMessageSource", e.data.source), { "x-host": { n: 1 } });
  }
  assert.equal(JSON.stringify(f), extra);
});

test("every frame was narrowed and round-tripped", () => {
  assert.equal(totals.bytesIdentical, totals.frames, "some frames did not serialize back to the same bytes");
  for (const want of ["request initialize", "request session/prompt", "request shutdown", "notification session.event", "notification session.status",
    "notification subagent.started", "notification subagent.finished", "result initialize", "result session/prompt", "result shutdown", "error response"]) {
    assert.ok(coverage.has(want), `no frame reached the branch ${want}`);
  }
  const lines = [...coverage.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
  console.log(`frames: ${totals.frames} (byte-identical after a round trip: ${totals.bytesIdentical}); dropped non-frames: ${totals.dropped}; not valid by the schema (asserted to fail): ${totals.notValid}; snapshot artifacts accepted: ${totals.noJsonrpc} without jsonrpc, ${totals.placeholders} "{{tools}}"`);
  console.log(`typed branches reached:\n${lines.join("\n")}`);
});

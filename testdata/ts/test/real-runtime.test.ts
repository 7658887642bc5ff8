// Node test: the generated TypeScript client (out/ts) drives the real
// published runtime (../shared/real-runtime, npm) through the scenarios there
// (text turn, tool, subagent, parallel sessions, unknown method, invalid
// maxTokens) and gets the same results as the published TypeScript client
// @deepseek-ai/dsh-sdk-client (DeepSeekHarness / HarnessClient) run against a
// fresh runtime of its own: the same final text and finish reason of every
// turn, the same error codes and messages.
//
// A turn is assembled as the upstream SDK does: subscribe before the prompt,
// wait for the inbox receipt of the prompt's messageId, collect the session's
// session.event notifications until its session.status idle; the final text
// is the text blocks of the last assistant/message, the finish reason the
// last assistant/chunk finish chunk's reason.kind.
//
// Needs DSH_RT_DIR and DSH_NODE (testdata/ts/check.sh runs
// ../shared/real-runtime/install.sh and sets them).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

import { Client, ResponseError, spawnServer, type SessionEvent } from "../../../out/ts/src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env["DSHGEN_REPO"] ?? resolve(here, "../../../../../..");
const realRuntime = join(process.env["DSHGEN_SHARED"] ?? resolve(repo, "../shared"), "real-runtime");
const rtDir = process.env["DSH_RT_DIR"] ?? "";
const rtNode = process.env["DSH_NODE"] ?? "";
const PROVIDER = "deepseek-official";
const MODEL = "deepseek-v4-flash";

let port = "";
let llm: ChildProcess | undefined;
const workDirs: string[] = [];

before(async () => {
  assert.ok(rtDir !== "" && rtNode !== "", "DSH_RT_DIR and DSH_NODE are not set: run testdata/ts/check.sh (it installs the real runtime)");
  const child = spawn("/bin/bash", [join(realRuntime, "start-fake-llm.sh")], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DSH_NODE: rtNode } });
  llm = child;
  const lines = createInterface({ input: child.stdout! });
  port = await new Promise<string>((ok, fail) => {
    lines.once("line", (l) => ok(l.trim()));
    child.once("exit", (code) => fail(new Error(`fake model exited with ${String(code)}`)));
  });
});

after(() => {
  llm?.kill("SIGTERM");
  for (const d of workDirs) {
    rmSync(d, { recursive: true, force: true });
  }
});

/** A fresh working directory and the way to start a runtime in it. */
function launch(): { work: string; command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const work = mkdtempSync(join(tmpdir(), "dshgen-ts-real-"));
  workDirs.push(work);
  return {
    work,
    command: "/bin/bash",
    args: [join(realRuntime, "start-runtime.sh")],
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", FAKE_LLM_PORT: port, DSH_CWD: work, DSH_NODE: rtNode, DSH_RT_DIR: rtDir },
  };
}

/** A signal aborted after ms, and the function that clears its timer. */
function deadline(ms: number, what: string): { signal: AbortSignal; clear: () => void } {
  const c = new AbortController();
  const t = setTimeout(() => c.abort(new Error(`${what}: no answer within ${ms} ms`)), ms);
  return { signal: c.signal, clear: () => clearTimeout(t) };
}

interface Turn {
  finalResponse: string;
  finishReason: string | undefined;
}

/** The final text and finish reason of a turn's session events. */
function summarize(events: readonly SessionEvent[]): Turn {
  let finalResponse = "";
  let finishReason: string | undefined;
  for (const e of events) {
    if (e.type === "assistant/message") {
      finalResponse = e.data.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    } else if (e.type === "assistant/chunk" && e.data.chunk.type === "finish") {
      finishReason = e.data.chunk.reason.kind;
    }
  }
  return { finalResponse, finishReason };
}

/** Runs one prompt on a session with the generated client and assembles its turn. */
async function runTurn(client: Client, sessionId: string, text: string): Promise<Turn> {
  const log: ({ kind: "event"; event: SessionEvent } | { kind: "idle" })[] = [];
  let messageId: string | undefined;
  let settle: (() => void) | undefined;
  const check = (): void => {
    const start = log.findIndex(
      (x) => x.kind === "event" && x.event.type === "agent/inbox/spliced" && x.event.data.inserted.some((m) => m.id === messageId),
    );
    if (messageId !== undefined && start >= 0 && log.slice(start).some((x) => x.kind === "idle")) {
      settle?.();
    }
  };
  const offs = [
    client.onSessionEvent((p) => {
      if (p.sessionId === sessionId) {
        log.push({ kind: "event", event: p.event });
      }
    }),
    client.onSessionStatus((p) => {
      if (p.sessionId === sessionId && p.status === "idle") {
        log.push({ kind: "idle" });
        check();
      }
    }),
  ];
  const done = new Promise<void>((ok) => (settle = ok));
  const d = deadline(40_000, `turn of ${sessionId}`);
  try {
    messageId = (await client.sessionPrompt({ sessionId, contentBlocks: [{ type: "text", text }] }, { signal: d.signal })).messageId;
    check();
    await Promise.race([done, new Promise((_, fail) => d.signal.addEventListener("abort", () => fail(d.signal.reason)))]);
  } finally {
    d.clear();
    for (const off of offs) {
      off();
    }
  }
  const start = log.findIndex((x) => x.kind === "event" && x.event.type === "agent/inbox/spliced" && x.event.data.inserted.some((m) => m.id === messageId));
  const end = log.findIndex((x, i) => i > start && x.kind === "idle");
  return summarize(log.slice(start, end).flatMap((x) => (x.kind === "event" ? [x.event] : [])));
}

/** Starts a runtime and initializes it with the generated client. */
async function generated(extra: { maxTokens?: number } = {}): Promise<{ client: Client; close: () => Promise<void> }> {
  const l = launch();
  const { client } = spawnServer(l.command, l.args, { cwd: l.work, env: l.env });
  const d = deadline(30_000, "initialize");
  try {
    await client.initialize({ cwd: l.work, provider: PROVIDER, model: MODEL, ...extra }, { signal: d.signal });
  } finally {
    d.clear();
  }
  return {
    client,
    close: async () => {
      const s = deadline(5_000, "shutdown");
      await client.shutdown({}, { signal: s.signal }).finally(s.clear);
      await client.close();
    },
  };
}

interface PublishedHarness {
  run(input: string, options: { sessionId: string }): Promise<{ finalResponse: string; events: SessionEvent[] }>;
  start(): Promise<void>;
  close(): Promise<void>;
  readonly client: { request(method: string, params?: unknown): Promise<unknown> };
}
interface PublishedSdk {
  DeepSeekHarness: new (options: object) => PublishedHarness;
  HarnessClient: new (launch: object) => { start(): void; request(method: string, params?: unknown): Promise<unknown>; close(): Promise<void> };
}

async function published(): Promise<PublishedSdk> {
  return (await import(pathToFileURL(join(rtDir, "node_modules/@deepseek-ai/dsh-sdk-client/lib/index.js")).href)) as PublishedSdk;
}

async function publishedHarness(): Promise<PublishedHarness> {
  const sdk = await published();
  const l = launch();
  return new sdk.DeepSeekHarness({
    launch: { command: l.command, args: l.args, cwd: l.work, env: l.env, requestTimeoutMs: 30_000 },
    cwd: l.work,
    provider: PROVIDER,
    model: MODEL,
  });
}

async function publishedTurn(harness: PublishedHarness, sessionId: string, text: string): Promise<Turn> {
  const r = await harness.run(text, { sessionId });
  const turn = summarize(r.events);
  assert.equal(turn.finalResponse, r.finalResponse, "the published client's own finalResponse");
  return turn;
}

const turns: [scenario: string, sessionId: string, prompt: string][] = [
  ["text-turn", "text-1", "Say hello."],
  ["bash-tool", "bash-1", "Run a command for me. [[BASH]]"],
  ["subagent", "sub-1", "Delegate this to a helper. [[SUBAGENT]]"],
];

for (const [scenario, sessionId, prompt] of turns) {
  test(`real runtime, ${scenario}: the generated client's turn equals the published client's`, async () => {
    const ours = await generated();
    let got: Turn;
    try {
      got = await runTurn(ours.client, sessionId, prompt);
    } finally {
      await ours.close();
    }
    const harness = await publishedHarness();
    let want: Turn;
    try {
      want = await publishedTurn(harness, sessionId, prompt);
    } finally {
      await harness.close();
    }
    assert.notEqual(want.finalResponse, "");
    assert.equal(want.finishReason, "stop");
    assert.deepEqual(got, want);
  });
}

test("real runtime, parallel-sessions: two turns at once on one runtime, as the published client gets them", async () => {
  const ours = await generated();
  let got: Turn[];
  try {
    got = await Promise.all([
      runTurn(ours.client, "par-a", "First session, slow answer. [[SLOW:800]]"),
      runTurn(ours.client, "par-b", "Second session, use a tool. [[BASH]]"),
    ]);
  } finally {
    await ours.close();
  }
  const harness = await publishedHarness();
  let want: Turn[];
  try {
    want = await Promise.all([
      publishedTurn(harness, "par-a", "First session, slow answer. [[SLOW:800]]"),
      publishedTurn(harness, "par-b", "Second session, use a tool. [[BASH]]"),
    ]);
  } finally {
    await harness.close();
  }
  assert.notEqual(want[0]?.finalResponse, want[1]?.finalResponse);
  assert.deepEqual(got, want);
});

/** What a call gave: its result, or its error's code and message. */
async function outcome(p: Promise<unknown>): Promise<{ result: unknown } | { code: unknown; message: string }> {
  try {
    return { result: await p };
  } catch (e) {
    return { code: (e as { code?: unknown }).code, message: (e as Error).message };
  }
}

test("real runtime, unknown-method: the same error responses as the published client gets", async () => {
  const calls: [string, object][] = [
    ["session/cancel", { sessionId: "x" }],
    ["no/such/method", {}],
  ];
  const ours = await generated();
  const got = [];
  try {
    for (const [method, params] of calls) {
      const o = await outcome(ours.client.transport.request(method, params));
      got.push(o);
    }
    await assert.rejects(ours.client.transport.request("no/such/method", {}), ResponseError, "an Error subclass carrying code and message");
  } finally {
    await ours.close();
  }
  const harness = await publishedHarness();
  const want = [];
  try {
    await harness.start();
    for (const [method, params] of calls) {
      want.push(await outcome(harness.client.request(method, params)));
    }
  } finally {
    await harness.close();
  }
  assert.deepEqual(want.map((o) => "code" in o && o.code), [-32603, -32603]);
  assert.deepEqual(got, want);
});

test("real runtime, invalid-max-tokens: the same errors and the same final result as the published client", async () => {
  const values: unknown[] = [0, -1, 1.5, "10"];
  const l = launch();
  const { client } = spawnServer(l.command, l.args, { cwd: l.work, env: l.env });
  const got = [];
  try {
    for (const maxTokens of values) {
      got.push(await outcome(client.initialize({ cwd: l.work, provider: PROVIDER, model: MODEL, maxTokens: maxTokens as number })));
    }
    got.push(await outcome(client.initialize({ cwd: l.work, provider: PROVIDER, model: MODEL, maxTokens: 64 })));
    await client.shutdown({});
  } finally {
    await client.close();
  }
  const sdk = await published();
  const p = launch();
  const theirs = new sdk.HarnessClient({ command: p.command, args: p.args, cwd: p.work, env: p.env, requestTimeoutMs: 30_000 });
  const want = [];
  try {
    theirs.start();
    for (const maxTokens of [...values, 64]) {
      want.push(await outcome(theirs.request("initialize", { cwd: p.work, provider: PROVIDER, model: MODEL, maxTokens })));
    }
  } finally {
    await theirs.close();
  }
  assert.equal(want.filter((o) => "code" in o).length, 4);
  assert.deepEqual(got, want);
});

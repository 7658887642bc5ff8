// Node test of the generated line transport, client and server (out/ts):
// one test per transport rule of the protocol's transport (NDJSON framing,
// frame classification, dropped and reported lines, request ids, -32601 and
// -32603, cancellation, close, the line cap, serialized writes), the bad
// peers (garbage, closing mid-frame, unknown ids, never answering) and the
// typed client and server over an in-memory pipe and over a spawned process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import {
  Client,
  FrameDecoder,
  LineTransport,
  ProtocolError,
  ResponseError,
  ServerConnection,
  TransportClosedError,
  decodeFrame,
  isResultFor,
  requestIds,
  spawnServer,
  type JsonValue,
  type Server,
  type SessionEventNotification,
  type TransportProblem,
} from "../../../out/ts/src/index.js";

const here = dirname(fileURLToPath(import.meta.url));

/** A transport over two in-memory streams: write lines to `peerIn`, read what the transport wrote from `peerOut`. */
function harness(options: ConstructorParameters<typeof LineTransport>[2] = {}) {
  const toTransport = new PassThrough();
  const fromTransport = new PassThrough();
  const problems: TransportProblem[] = [];
  const transport = new LineTransport(toTransport, fromTransport, { onProblem: (p) => problems.push(p), ...options });
  transport.start();
  let buffered = "";
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  fromTransport.setEncoding("utf8");
  fromTransport.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) {
      w();
    }
  });
  return {
    transport,
    problems,
    lines,
    /** Writes raw bytes to the transport's input. */
    send(text: string): void {
      toTransport.write(text);
    },
    end(): void {
      toTransport.end();
    },
    /** Resolves with the transport's nth output line (0-based) as parsed JSON. */
    async frame(n: number): Promise<{ [key: string]: JsonValue }> {
      while (lines.length <= n) {
        await new Promise<void>((r) => waiters.push(r));
      }
      return JSON.parse(lines[n] ?? "") as { [key: string]: JsonValue };
    },
    get partial(): string {
      return buffered;
    },
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test("frames: one compact JSON object per \\n, ids in the protocol's style", async () => {
  const h = harness();
  const pending = h.transport.request("initialize", { cwd: "/w\nx", provider: "p", model: "m" });
  const req = await h.frame(0);
  assert.equal(h.lines[0], JSON.stringify(req), "compact, as JSON.stringify writes it");
  assert.equal(h.partial, "", "the frame ends with its \\n");
  assert.match(String(req["id"]), /^req_[0-9a-f]{32}$/);
  const mint = requestIds();
  assert.match(String(mint()), /^req_[0-9a-f]{32}$/);
  assert.notEqual(mint(), mint());
  assert.deepEqual({ ...req, id: 0 }, { jsonrpc: "2.0", id: 0, method: "initialize", params: { cwd: "/w\nx", provider: "p", model: "m" } });
  h.send(JSON.stringify({ jsonrpc: "2.0", id: req["id"], result: { serverInfo: { name: "n", version: "1" } } }) + "\n");
  assert.deepEqual(await pending, { serverInfo: { name: "n", version: "1" } });
  h.transport.notify("shutdown");
  assert.deepEqual(await h.frame(1), { jsonrpc: "2.0", method: "shutdown" }, "no params member when params is undefined");
});

test("classification: request, response and notification go to their handlers; CRLF and split chunks are fine", async () => {
  const h = harness();
  const seen: string[] = [];
  h.transport.onNotification((method, params) => seen.push(`n ${method} ${JSON.stringify(params)}`));
  h.transport.onRequest((method, params) => {
    seen.push(`r ${method} ${JSON.stringify(params)}`);
    return { ok: true };
  });
  const pending = h.transport.request("x", {});
  const { id } = await h.frame(0);
  const text = [
    JSON.stringify({ jsonrpc: "2.0", method: "note", params: { a: 1 } }),
    JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ask", params: [1] }),
    JSON.stringify({ jsonrpc: "2.0", id, result: "answer" }),
  ].join("\r\n") + "\r\n";
  // Split inside a multi-byte character too.
  const bytes = Buffer.from(text.replace("note", "nöte"), "utf8");
  for (let i = 0; i < bytes.length; i += 5) {
    h.send(bytes.subarray(i, i + 5) as unknown as string);
  }
  assert.equal(await pending, "answer");
  assert.deepEqual(await h.frame(1), { jsonrpc: "2.0", id: 7, result: { ok: true } });
  assert.deepEqual(seen, ['n nöte {"a":1}', "r ask [1]"]);
  assert.deepEqual(h.problems, []);
});

test("malformed lines are dropped and reported; the lines after them are read", async () => {
  const h = harness();
  const notes: string[] = [];
  h.transport.onNotification((method) => notes.push(method));
  const bad = ["this is not json", '{"jsonrpc":"2.0","id":101,"method":"initialize"', "42", '"just a string"', "null", "true", "{}", "[1,2]", '{"id":null}'];
  h.send(["", "   \t  ", ...bad, JSON.stringify({ jsonrpc: "2.0", method: "after" })].join("\n") + "\n");
  await tick();
  assert.deepEqual(notes, ["after"]);
  assert.deepEqual(
    h.problems.map((p) => [p.kind, p.line, p.text]),
    bad.map((text, i) => [i < 2 ? "invalid-json" : "not-a-frame", i + 3, text]),
    "blank lines are skipped without a report",
  );
});

test("a request with no handler is answered with -32601", async () => {
  const h = harness();
  h.send('{"jsonrpc":"2.0","id":"a","method":"no/such/method"}\n');
  assert.deepEqual(await h.frame(0), { jsonrpc: "2.0", id: "a", error: { code: -32601, message: "method not found: no/such/method" } });
});

test("a failing handler is answered with -32603 and its message; a ResponseError with its own code and data", async () => {
  const h = harness();
  h.transport.onRequest(async (method) => {
    if (method === "boom") {
      throw new Error("maxTokens must be a positive integer");
    }
    throw new ResponseError(-32602, "bad params", { field: "cwd" });
  });
  h.send('{"jsonrpc":"2.0","id":1,"method":"boom"}\n{"jsonrpc":"2.0","id":2,"method":"typed"}\n');
  assert.deepEqual(await h.frame(0), { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "maxTokens must be a positive integer" } });
  assert.deepEqual(await h.frame(1), { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "bad params", data: { field: "cwd" } } });
});

test("an error response rejects with a ResponseError carrying code, message and data", async () => {
  const h = harness();
  const pending = h.transport.request("initialize", {});
  const { id } = await h.frame(0);
  h.send(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "Invalid maxTokens", data: [1] } }) + "\n");
  await assert.rejects(pending, (e: unknown) => e instanceof ResponseError && e.code === -32603 && e.message === "Invalid maxTokens" && JSON.stringify(e.data) === "[1]");
});

test("cancelling a pending request removes it; a late answer is reported as an unknown id", async () => {
  const h = harness();
  const abort = new AbortController();
  const pending = h.transport.request("slow", {}, { signal: abort.signal });
  const { id } = await h.frame(0);
  assert.equal(h.transport.pendingCount, 1);
  abort.abort(new Error("gave up"));
  await assert.rejects(pending, /gave up/);
  assert.equal(h.transport.pendingCount, 0);
  h.send(JSON.stringify({ jsonrpc: "2.0", id, result: {} }) + "\n");
  await tick();
  assert.deepEqual(h.problems.map((p) => [p.kind, p.id]), [["unknown-response-id", id]]);
  await assert.rejects(h.transport.request("x", {}, { signal: abort.signal }), /gave up/, "an aborted signal rejects at once");
  assert.equal(h.transport.pendingCount, 0);
});

test("a peer that never answers: the signal's timeout rejects and removes the request", async () => {
  const h = harness();
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error("no answer within 20 ms")), 20);
  await assert.rejects(h.transport.request("x", {}, { signal: timeout.signal }), /no answer within 20 ms/);
  clearTimeout(timer);
  assert.equal(h.transport.pendingCount, 0);
});

test("close rejects every pending request with a transport-closed error, and every later one", async () => {
  const h = harness();
  const a = h.transport.request("a", {});
  const b = h.transport.request("b", {});
  await h.frame(1);
  h.transport.close();
  for (const p of [a, b, h.transport.request("c", {})]) {
    await assert.rejects(p, TransportClosedError);
  }
  assert.throws(() => h.transport.notify("n"), TransportClosedError);
  assert.ok((await h.transport.closed) instanceof TransportClosedError);
});

test("close aborts the signal of an incoming request still being handled; its answer is not written", async () => {
  const h = harness();
  let aborted: unknown;
  h.transport.onRequest((_m, _p, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => {
    aborted = signal.reason;
    resolve("late");
  })));
  h.send('{"jsonrpc":"2.0","id":1,"method":"slow"}\n');
  await tick();
  h.transport.close();
  await tick();
  assert.ok(aborted instanceof TransportClosedError);
  assert.equal(h.lines.length, 0);
});

test("the input ending mid-frame: the partial line is reported, pending requests reject", async () => {
  const h = harness();
  const pending = h.transport.request("initialize", {});
  const { id } = await h.frame(0);
  h.send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"res`);
  h.end();
  await assert.rejects(pending, (e: unknown) => e instanceof TransportClosedError && /input closed/.test(e.message));
  assert.deepEqual(h.problems.map((p) => p.kind), ["truncated-line"]);
});

test("a response with neither result nor error rejects with a ProtocolError", async () => {
  const h = harness();
  const pending = h.transport.request("x", {});
  const { id } = await h.frame(0);
  h.send(JSON.stringify({ jsonrpc: "2.0", id }) + "\n");
  await assert.rejects(pending, ProtocolError);
  assert.deepEqual(h.problems.map((p) => p.kind), ["invalid-response"]);
});

test("the line cap: a longer line is dropped as it streams in and reported; no other limit", async () => {
  const h = harness({ maxLineBytes: 1000 });
  const notes: number[] = [];
  h.transport.onNotification((_m, params) => notes.push(JSON.stringify(params).length));
  const fits = JSON.stringify({ jsonrpc: "2.0", method: "n", params: { s: "x".repeat(1000 - 48) } });
  assert.equal(Buffer.byteLength(fits), 1000);
  const long = JSON.stringify({ jsonrpc: "2.0", method: "n", params: { s: "x".repeat(1000) } });
  h.send(fits + "\n");
  for (let i = 0; i < long.length; i += 100) {
    h.send(long.slice(i, i + 100));
  }
  h.send("\n" + fits + "\n");
  await tick();
  assert.equal(notes.length, 2, "the lines at the cap are read, the one over it is not");
  assert.deepEqual(h.problems.map((p) => [p.kind, p.line]), [["line-too-long", 2]]);
  // The default cap is far above any frame of the protocol: a 5 MB line goes through.
  const big = harness();
  const got: number[] = [];
  big.transport.onNotification((_m, params) => got.push(JSON.stringify(params).length));
  big.send(JSON.stringify({ jsonrpc: "2.0", method: "n", params: { s: "y".repeat(5_000_000) } }) + "\n");
  await tick();
  assert.deepEqual(got, [5_000_008]);
});

test("writes are serialized: concurrent requests and answers each leave as one whole line, in call order", async () => {
  const h = harness();
  h.transport.onRequest(async (_m, params) => {
    await new Promise((r) => setTimeout(r, Math.random() * 5));
    return params;
  });
  const requests = Array.from({ length: 200 }, (_, i) => h.transport.request("echo", { i, pad: "z".repeat(i * 50) }));
  for (let i = 0; i < 200; i++) {
    h.send(JSON.stringify({ jsonrpc: "2.0", id: i, method: "echo", params: { i } }) + "\n");
  }
  const answers = new Set<number>();
  for (let n = 0; n < 400; n++) {
    const f = await h.frame(n);
    if ("method" in f) {
      assert.equal((f["params"] as { i: number }).i, n, "requests leave in call order");
    } else {
      answers.add(f["id"] as number);
    }
  }
  assert.equal(answers.size, 200);
  assert.equal(h.lines.length, 400);
  void requests;
});

test("a notification handler that throws is reported, the read loop goes on", async () => {
  const h = harness();
  const seen: string[] = [];
  h.transport.onNotification((method) => {
    seen.push(method);
    if (method === "bad") {
      throw new Error("handler bug");
    }
  });
  h.send('{"jsonrpc":"2.0","method":"bad"}\n{"jsonrpc":"2.0","method":"good"}\n');
  await tick();
  assert.deepEqual(seen, ["bad", "good"]);
  assert.equal(h.problems[0]?.kind, "handler-failed");
  assert.match(String(h.problems[0]?.error), /handler bug/);
});

test("a server writing garbage: reported, and the client still gets its answer", async () => {
  const h = harness();
  const pending = h.transport.request("x", {});
  const { id } = await h.frame(0);
  h.send(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x0a]) as unknown as string);
  h.send("}}}{{{\n" + JSON.stringify({ jsonrpc: "2.0", id, result: 1 }) + "\n");
  assert.equal(await pending, 1);
  assert.deepEqual(h.problems.map((p) => p.kind), ["invalid-json", "invalid-json"]);
});

test("isResultFor checks the method it is given; decodeFrame and FrameDecoder pair responses with requests", () => {
  const init = { jsonrpc: "2.0", id: "r1", result: { serverInfo: { name: "n", version: "1" } } };
  const prompt = { jsonrpc: "2.0", id: "r2", result: { accepted: true, messageId: "m" } };
  assert.equal(isResultFor(init, "initialize"), true);
  assert.equal(isResultFor(init, "session/prompt"), false, "no messageId");
  assert.equal(isResultFor(prompt, "session/prompt"), true);
  assert.equal(isResultFor(prompt, "initialize"), false, "no serverInfo");
  assert.equal(isResultFor({ jsonrpc: "2.0", id: 1, result: [] }, "shutdown"), false, "an array is no ShutdownResult");
  assert.equal(isResultFor({ jsonrpc: "2.0", id: 1, result: {} }, "shutdown"), true);
  assert.equal(isResultFor({ jsonrpc: "2.0", id: 1, result: {} }, "session.event" as "shutdown"), false, "a notification has no result");
  assert.equal(isResultFor({ jsonrpc: "2.0", id: 1, result: {} }, "toString" as "shutdown"), false);

  const d = new FrameDecoder();
  const req = d.decode({ jsonrpc: "2.0", id: "r1", method: "initialize", params: { cwd: "/", provider: "p", model: "m" } });
  assert.equal(req?.kind === "request" && req.known && req.frame.method, "initialize");
  assert.deepEqual([...d.pending()], [["r1", "initialize"]]);
  const res = d.decode(init);
  assert.ok(res?.kind === "result" && res.method === "initialize");
  if (res?.kind === "result" && res.method === "initialize") {
    assert.equal(res.frame.result.serverInfo.name, "n");
  }
  assert.equal(d.pending().size, 0);
  const other = d.decode({ jsonrpc: "2.0", id: 9, method: "no/such", params: 1 });
  assert.ok(other?.kind === "request" && !other.known);
  const err = d.decode({ jsonrpc: "2.0", id: 9, error: { code: -32601, message: "m" } });
  assert.ok(err?.kind === "error" && err.method === "no/such");
  const note = decodeFrame({ jsonrpc: "2.0", method: "session.status", params: { sessionId: "s", status: "idle" } });
  assert.ok(note?.kind === "notification" && note.known && note.frame.method === "session.status");
  assert.equal(decodeFrame({ jsonrpc: "2.0", id: 1 }), undefined);
  assert.equal(decodeFrame(42), undefined);
  const unpaired = decodeFrame(prompt, new Map([["r2", "initialize"]]));
  assert.ok(unpaired?.kind === "result" && unpaired.method === undefined, "a result that does not fit its method stays raw");
});

/** A scripted server written against the generated Server interface. */
function scriptedServer(connection: ServerConnection): Server {
  return {
    initialize(params) {
      if (params.maxTokens !== undefined && (!Number.isInteger(params.maxTokens) || params.maxTokens < 1)) {
        throw new Error("Invalid maxTokens");
      }
      return { serverInfo: { name: "scripted", version: "0.0.0" } };
    },
    sessionPrompt(params) {
      const sessionId = params.sessionId;
      setImmediate(() => {
        connection.sessionEvent({ sessionId, event: { type: "future/event", seq: 1, time: 0, data: { x: 1 } } as unknown as SessionEventNotification["event"] });
        connection.sessionStatus({ sessionId, status: "idle" });
      });
      return { messageId: "m-1" };
    },
    shutdown() {
      return {};
    },
  };
}

test("client and server over an in-memory pipe: typed calls, typed and catch-all notification handlers, error responses", async () => {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const connection = new ServerConnection(new LineTransport(c2s, s2c));
  const served = connection.serve(scriptedServer(connection), { onNotification: () => {} });
  const client = new Client(new LineTransport(s2c, c2s));
  const events: SessionEventNotification[] = [];
  const all: string[] = [];
  client.onSessionEvent((params) => events.push(params));
  client.onNotification((method) => all.push(method));
  const idle = new Promise<void>((resolve) => {
    const off = client.onSessionStatus((params) => {
      if (params.status === "idle") {
        off();
        resolve();
      }
    });
  });
  const info = await client.initialize({ cwd: "/", provider: "p", model: "m" });
  assert.equal(info.serverInfo.name, "scripted");
  await assert.rejects(client.initialize({ cwd: "/", provider: "p", model: "m", maxTokens: 0 }), (e: unknown) => e instanceof ResponseError && e.code === -32603 && e.message === "Invalid maxTokens");
  await assert.rejects(client.transport.request("no/such/method"), (e: unknown) => e instanceof ResponseError && e.code === -32601);
  const receipt = await client.sessionPrompt({ sessionId: "s", contentBlocks: [{ type: "text", text: "hi" }] });
  assert.equal(receipt.messageId, "m-1");
  await idle;
  assert.equal(events[0]?.event.type as string, "future/event", "an unknown event tag is delivered as it came");
  assert.deepEqual(all, ["session.event", "session.status"]);
  assert.deepEqual(await client.shutdown(), {});
  await client.close();
  c2s.end();
  assert.ok((await served) instanceof TransportClosedError);
});

test("requests the client has no handler of are answered with -32601, else by onRequest", async () => {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const server = new LineTransport(c2s, s2c);
  server.start();
  const client = new Client(new LineTransport(s2c, c2s));
  await assert.rejects(server.request("roots/list", {}), (e: unknown) => e instanceof ResponseError && e.code === -32601 && e.message === "method not found: roots/list");
  client.onRequest((method, params) => ({ method, params }));
  assert.deepEqual(await server.request("roots/list", { a: 1 }), { method: "roots/list", params: { a: 1 } });
  client.onRequest(() => {
    throw new Error("no roots here");
  });
  await assert.rejects(server.request("roots/list"), (e: unknown) => e instanceof ResponseError && e.code === -32603 && e.message === "no roots here");
  await client.close();
  server.close();
});

test("spawnServer: a generated server on a child's stdio; close() ends it", async () => {
  const script = join(here, "..", "usage", "stdio-server.js");
  const { client, exited } = spawnServer(process.execPath, [script]);
  const info = await client.initialize({ cwd: "/", provider: "p", model: "m" });
  assert.equal(info.serverInfo.name, "stdio-server");
  const receipt = await client.sessionPrompt({ sessionId: "s", contentBlocks: [] });
  assert.equal(receipt.messageId, "m-1");
  await client.close();
  assert.deepEqual(await exited, { code: 0, signal: null });
});

test("spawnServer: a command that cannot start, or exits at once, rejects pending requests", async () => {
  const missing = spawnServer(join(here, "no-such-binary"));
  await assert.rejects(missing.client.initialize({ cwd: "/", provider: "p", model: "m" }), TransportClosedError);
  await missing.client.close();
  const quits = spawnServer(process.execPath, ["-e", "process.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":')"]);
  await assert.rejects(quits.client.initialize({ cwd: "/", provider: "p", model: "m" }), TransportClosedError);
  await quits.client.close();
});

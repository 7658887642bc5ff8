// Benchmark (not a test): request/response round trips per second of the
// generated client and server (out/ts) in one process over an in-memory pipe
// (two PassThrough streams), against a bare write/read of the same lines.
//
//   bash testdata/ts/check.sh   # once, compiles this to dist/
//   node testdata/ts/dist/testdata/ts/bench/roundtrip.js [seconds per run, default 0.5] [rounds, default 7]
//
// For one request at a time (latency) and for 64 in flight (throughput) it
// runs bare and generated alternately, rounds times each, and prints the
// best run of each (the least disturbed by other load on the machine):
// round trips/s and the mean time of one batch; the difference of the
// sequential means is the latency the generated client and server add over
// the bare write/read.
import { PassThrough } from "node:stream";

import { Client, LineTransport, ServerConnection, type Server } from "../../../out/ts/src/index.js";

const seconds = Number(process.argv[2] ?? "0.5");
const rounds = Number(process.argv[3] ?? "7");
const params = { cwd: "/work/project", provider: "deepseek-official", model: "deepseek-v4-flash" };
const result = { serverInfo: { name: "bench", version: "0.0.0" } };

/** Bare: write a request line, the peer parses it and writes a response line, the caller parses that. */
function bare(): (inFlight: number) => Promise<void> {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const lines = (stream: PassThrough, onLine: (line: string) => void): void => {
    let buf = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        onLine(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
  };
  lines(c2s, (line) => {
    const req = JSON.parse(line) as { id: number };
    s2c.write(JSON.stringify({ jsonrpc: "2.0", id: req.id, result }) + "\n");
  });
  const waiting = new Map<number, () => void>();
  lines(s2c, (line) => {
    const res = JSON.parse(line) as { id: number };
    waiting.get(res.id)?.();
    waiting.delete(res.id);
  });
  let id = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const n = ++id;
      waiting.set(n, resolve);
      c2s.write(JSON.stringify({ jsonrpc: "2.0", id: n, method: "initialize", params }) + "\n");
    });
  return (inFlight) => Promise.all(Array.from({ length: inFlight }, one)).then(() => {});
}

/** Generated: client.initialize() served by a Server over a ServerConnection. */
function generated(): (inFlight: number) => Promise<void> {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const server: Server = {
    initialize: () => result,
    sessionPrompt: () => ({ messageId: "m" }),
    shutdown: () => ({}),
  };
  void new ServerConnection(new LineTransport(c2s, s2c)).serve(server);
  const client = new Client(new LineTransport(s2c, c2s));
  return (inFlight) => Promise.all(Array.from({ length: inFlight }, () => client.initialize(params))).then(() => {});
}

/** One timed run: round trips per second and microseconds per batch. */
async function run(batch: (inFlight: number) => Promise<void>, inFlight: number): Promise<{ perSecond: number; meanUs: number }> {
  for (let i = 0; i < 200; i++) {
    await batch(inFlight); // warm up
  }
  let trips = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(seconds * 1e9));
  let now = start;
  while (now < end) {
    await batch(inFlight);
    trips += inFlight;
    now = process.hrtime.bigint();
  }
  const ns = Number(now - start);
  return { perSecond: (trips / ns) * 1e9, meanUs: ns / 1000 / (trips / inFlight) };
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const best: { [key: string]: { perSecond: number; meanUs: number } } = {};
const pairs: [string, (inFlight: number) => Promise<void>][] = [
  ["bare", bare()],
  ["generated", generated()],
];
for (let r = 0; r < rounds; r++) {
  for (const inFlight of [1, 64]) {
    for (const [name, batch] of pairs) {
      const got = await run(batch, inFlight);
      const key = `${name} ${inFlight}`;
      if (best[key] === undefined || got.perSecond > (best[key]?.perSecond ?? 0)) {
        best[key] = got;
      }
    }
  }
}
for (const [key, b] of Object.entries(best)) {
  const [name, inFlight] = key.split(" ");
  console.log(`${(name ?? "").padEnd(10)} in flight ${(inFlight ?? "").padStart(2)}: ${fmt(b.perSecond)} round trips/s, ${b.meanUs.toFixed(1)} µs per batch`);
}
const added = (best["generated 1"]?.meanUs ?? 0) - (best["bare 1"]?.meanUs ?? 0);
console.log(`added latency of the generated client+server over bare write/read: ${added.toFixed(1)} µs per round trip`);

// A server ("peer.js server", on stdio) and a client ("peer.js client CMD
// ARGS...", spawning the server command) of the Todo Protocol
// (../todo.schema.json) written against the TypeScript SDK dshgen generates;
// gen/emit TestSDKEdgeCases drives it (see ../README.md).

import { TransportClosedError, serveStdio, spawnServer } from "../src/index.js";
import type * as T from "../src/index.js";

/** Answers todo/add after 200 ms (a response still being made when the input ends) and fails todo/fail. */
function serve(): void {
  serveStdio({
    todoAdd: (p: T.AddParams): Promise<T.AddResult> => new Promise((resolve) => setTimeout(() => resolve({ title: p.title }), 200)),
    todoFail: (): T.AddResult => {
      throw new Error("todo/fail always fails");
    },
  });
}

function step(v: { [key: string]: unknown }): void {
  process.stdout.write(JSON.stringify(v) + "\n");
}

/**
 * todo/add with undefined params (refused before anything is sent), then
 * with params, on a server that reads one line and exits without an answer:
 * the call fails with the closed transport.
 */
async function client(argv: readonly string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === undefined) {
    throw new Error("no server command");
  }
  const { client: c } = spawnServer(command, args);
  try {
    try {
      await c.todoAdd(undefined as unknown as T.AddParams); // what the test is about
      step({ step: "nil-params", refused: false });
    } catch (e) {
      step({ step: "nil-params", refused: e instanceof TypeError });
    }
    try {
      await c.todoAdd({ title: "sent" });
      step({ step: "eof", closed: false });
    } catch (e) {
      process.stderr.write(`ts client: todo/add: ${String(e)}\n`);
      step({ step: "eof", closed: e instanceof TransportClosedError });
    }
  } finally {
    await c.close();
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "server" && rest.length === 0) {
  serve();
} else if (mode === "client") {
  client(rest).catch((e: unknown) => {
    process.stderr.write(`ts peer: ${String(e)}\n`);
    process.exitCode = 1;
  });
} else {
  process.stderr.write("usage: peer.js server | peer.js client CMD [ARG...]\n");
  process.exitCode = 2;
}

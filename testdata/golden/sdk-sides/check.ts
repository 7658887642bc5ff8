// Compile-time checks of the generated SDK sides (copied into ts/src as
// zz-check.ts by TestGoldenTS): each side has the calls it sends and the
// handlers of what it receives, typed by method.
import { PassThrough } from "node:stream";

import { Client, LineTransport, ServerConnection, type Server } from "./index.js";
import type { CallResult, SampleResult } from "./types.js";

const client = new Client(new LineTransport(new PassThrough(), new PassThrough()));
const called: Promise<CallResult> = client.toolsCall({ name: "echo", arguments: {} });
client.notificationsInitialized();
client.onSamplingCreateMessage((params): SampleResult => ({ text: params.prompt }));
const off: () => void = client.onNotificationsProgress((params) => {
  const done: number = params.done;
  void done;
});
// @ts-expect-error the client does not send the server's request
client.samplingCreateMessage({ prompt: "x" });
// @ts-expect-error a handler of a request returns its result type
client.onSamplingCreateMessage(() => ({ txt: "x" }));

const connection = new ServerConnection(new LineTransport(new PassThrough(), new PassThrough()));
const server: Server = {
  toolsCall: (params) => ({ text: params.name }),
  notificationsInitialized: () => {},
};
const sampled: Promise<SampleResult> = connection.samplingCreateMessage({ prompt: "p" });
connection.notificationsProgress({ token: "t", done: 0.5 });
// @ts-expect-error the server does not send the client's request
connection.toolsCall({ name: "x" });
void [called, off, server, sampled];

// An MCP 2025-11-25 server (`node peer.js server`, on stdio) and client
// (`node peer.js client CMD ARGS...`, spawning the server command) written
// against the TypeScript SDK dshgen generates from the published schema. The
// client prints the transcript of what it got as JSON lines (see
// testdata/mcp-sdk/README.md); gen/emit's TestMCPSDKPeers runs every pair.
import { ResponseError, TransportClosedError, serveStdio, spawnServer } from "../src/index.js";
import type * as T from "../src/index.js";
import type { Client, Server, ServerConnection } from "../src/index.js";

// ---- server ----

/**
 * The MCP server: one tool, "summarize", which asks the client's model
 * (sampling/createMessage) and roots (roots/list), pings the client, tries a
 * method the client does not serve, and reports progress between. The
 * requests it does not implement are answered -32601 by the connection.
 */
class PeerServer implements Partial<Server> {
  connection: ServerConnection | undefined;
  #client = "";
  #initialized: () => void = () => {};
  readonly #ready = new Promise<void>((resolve) => (this.#initialized = resolve));

  initialize(params: T.InitializeRequestParams): T.InitializeResult {
    this.#client = params.clientInfo.name;
    return {
      protocolVersion: params.protocolVersion,
      serverInfo: { name: "mcp-peer-server", version: "1.0.0" },
      capabilities: { tools: { listChanged: false } },
    };
  }

  notificationsInitialized(): void {
    this.#initialized();
  }

  ping(): T.EmptyResult {
    return {};
  }

  toolsList(): T.ListToolsResult {
    return {
      tools: [
        {
          name: "summarize",
          description: "Summarizes text with the client's model.",
          inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        },
      ],
    };
  }

  async toolsCall(params: T.CallToolRequestParams): Promise<T.CallToolResult> {
    const conn = this.connection;
    if (conn === undefined) {
      throw new Error("not serving");
    }
    if (params.name !== "summarize") {
      throw new ResponseError(-32602, `unknown tool: ${params.name}`, { tool: params.name });
    }
    await this.#ready;
    const text = params.arguments?.["text"];
    if (typeof text !== "string") {
      throw new ResponseError(-32602, "summarize: text must be a string");
    }
    const token = params._meta?.progressToken;
    const progress = (n: number, message: string): void => {
      if (token !== undefined) {
        conn.notificationsProgress({ progressToken: token, progress: n, total: 3, message });
      }
    };
    progress(1, "sampling");
    const sample = await conn.samplingCreateMessage({
      messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }],
      maxTokens: 64,
      systemPrompt: "Answer in one line.",
    });
    // The request asks for no task, so the answer is the union's CreateMessageResult branch.
    if ("task" in sample) {
      throw new Error("sampling/createMessage answered CreateTaskResult, want CreateMessageResult");
    }
    const content = sample.content;
    if (Array.isArray(content) || content.type !== "text") {
      throw new Error("sampling/createMessage: content is not text");
    }
    progress(2, "roots");
    const roots = await conn.rootsList();
    await conn.ping();
    let unknown: ResponseError;
    try {
      await conn.transport.request("peer/unknown");
      throw new Error("peer/unknown: got a result, want an error response");
    } catch (e) {
      if (!(e instanceof ResponseError)) {
        throw e;
      }
      unknown = e;
    }
    progress(3, "done");
    const structured: { [key: string]: T.JsonValue } = {
      summary: content.text,
      model: sample.model,
      roots: roots.roots.map((r) => r.uri),
      client: this.#client,
      unknownMethod: { code: unknown.code ?? null, message: unknown.message },
    };
    if (sample.stopReason !== undefined) {
      structured["stopReason"] = sample.stopReason;
    }
    return { content: [{ type: "text", text: content.text }], structuredContent: structured, isError: false };
  }
}

function serve(): void {
  const server = new PeerServer();
  // The connection answers -32601 for every method PeerServer leaves out.
  server.connection = serveStdio(server);
}

// ---- client ----

/** Prints one JSON line of the transcript. */
function transcript(line: { [key: string]: unknown }): void {
  process.stdout.write(JSON.stringify(line) + "\n");
}

/** The transcript form of an error response. */
function errorLine(step: string, e: unknown): { [key: string]: unknown } {
  if (!(e instanceof ResponseError)) {
    return { step, notAResponseError: String(e) };
  }
  const error: { [key: string]: unknown } = { code: e.code, message: e.message };
  if (e.data !== undefined) {
    error["data"] = e.data;
  }
  return { step, error };
}

/**
 * The one use of tools/call's result: calls tool with args (progress token "call-1"); the
 * result must be the CallToolResult branch of the result union (the request asks for no task).
 */
async function callTool(client: Client, tool: string, args: { [key: string]: T.JsonValue }): Promise<T.CallToolResult> {
  const res = await client.toolsCall({ name: tool, arguments: args, _meta: { progressToken: "call-1" } });
  if ("task" in res) {
    throw new Error("tools/call answered CreateTaskResult, want CallToolResult");
  }
  return res;
}

async function runClient(argv: readonly string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === undefined) {
    throw new Error("no server command");
  }
  let dropped = 0;
  const { client } = spawnServer(command, args, {
    onStderr: (chunk) => process.stderr.write(chunk),
    transport: { onProblem: () => void dropped++ },
  });
  /** Reports the lines the transport did not deliver, if any. */
  const droppedLine = (): void => {
    if (dropped > 0) {
      transcript({ step: "dropped", lines: dropped });
    }
  };
  const served: { [key: string]: unknown }[] = [];
  const progress: T.ProgressNotificationParams[] = [];
  let progressed: () => void = () => {};
  const allProgress = new Promise<void>((resolve) => (progressed = resolve));
  client.onSamplingCreateMessage((p) => {
    served.push({ step: "served", method: "sampling/createMessage", params: p });
    const first = p.messages[0]?.content;
    const asked = first !== undefined && !Array.isArray(first) && first.type === "text" ? first.text : "";
    return {
      role: "assistant",
      content: { type: "text", text: `${p.maxTokens} tokens at most: ${asked}` },
      model: "peer-model",
      stopReason: "endTurn",
    };
  });
  client.onRootsList(() => {
    served.push({ step: "served", method: "roots/list" });
    return { roots: [{ uri: "file:///tmp/peer-root", name: "peer-root" }] };
  });
  client.onPing(() => {
    served.push({ step: "served", method: "ping" });
    return {};
  });
  client.onNotificationsProgress((p) => {
    progress.push(p);
    if (progress.length === 3) {
      progressed();
    }
  });
  const timeout = { signal: AbortSignal.timeout(30_000) };
  try {
    let init: T.InitializeResult;
    try {
      init = await client.initialize(
        {
          protocolVersion: "2025-11-25",
          clientInfo: { name: "mcp-peer-client", version: "1.0.0" },
          capabilities: { roots: {}, sampling: {} },
        },
        timeout,
      );
    } catch (e) {
      if (!(e instanceof TransportClosedError)) {
        throw e;
      }
      droppedLine();
      transcript({ step: "initialize", error: "transport closed" });
      return;
    }
    transcript({ step: "initialize", result: init });
    client.notificationsInitialized();
    transcript({ step: "ping", result: await client.ping(undefined, timeout) });
    transcript({ step: "tools/list", result: await client.toolsList(undefined, timeout) });
    const res = await callTool(client, "summarize", { text: "the quick brown fox" });
    served.forEach(transcript);
    await Promise.race([allProgress, new Promise((_, reject) => timeout.signal.addEventListener("abort", reject))]);
    for (const p of progress) {
      transcript({ step: "progress", params: p });
    }
    transcript({ step: "tools/call", result: res });
    try {
      await callTool(client, "nope", {});
    } catch (e) {
      transcript(errorLine("tools/call nope", e));
    }
    try {
      await client.transport.request("peer/unknown", undefined, timeout);
    } catch (e) {
      transcript(errorLine("peer/unknown", e));
    }
    droppedLine();
  } finally {
    await client.close();
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "server") {
  serve();
} else if (mode === "client" && rest.length > 0) {
  runClient(rest).catch((e: unknown) => {
    process.stderr.write(`ts client: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
} else {
  process.stderr.write("usage: node peer.js server | node peer.js client CMD [ARG...]\n");
  process.exitCode = 2;
}

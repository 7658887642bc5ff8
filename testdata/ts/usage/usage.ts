// A usage example of the generated package (out/ts): a small client-side
// dispatcher. It is compiled with strict, exactOptionalPropertyTypes and
// noUncheckedIndexedAccess by check.sh; it is also what the README's
// examples are taken from.
import {
  Methods,
  SubagentStopReason,
  extraMembers,
  isErrorResponse,
  isKnown,
  isNotification,
  isRequest,
  isResultFor,
  methodTable,
  parseFrame,
  requestFrame,
  type ContentBlock,
  type HarnessSdkNotificationMap,
  type HarnessSdkRequestMap,
  type RequestMethod,
  type ResultOf,
  type SessionEvent,
  type TurnEndReason,
  type WithUnknown,
} from "../../../out/ts/src/index.js";

// --- building requests: params typed by method, shutdown without params ---

let next = 0;
const nextId = (): string => `req_${(next++).toString(16).padStart(32, "0")}`;

export const init = requestFrame(nextId(), Methods.Initialize, { cwd: "/w", provider: "deepseek-official", model: "deepseek-v4-flash", maxTokens: 1024 });
export const prompt = requestFrame(nextId(), "session/prompt", { sessionId: "session-1", contentBlocks: [{ type: "text", text: "hi" }] });
export const bye = requestFrame(nextId(), "shutdown"); // params may be absent
export const byeTs = requestFrame(nextId(), "shutdown", {}); // as the TS client sends it
// @ts-expect-error -- session/prompt needs params
export const noParams = requestFrame(nextId(), "session/prompt");
// @ts-expect-error -- maxTokens is a number
export const badInit = requestFrame(nextId(), "initialize", { cwd: "/w", provider: "p", model: "m", maxTokens: "10" });

// --- typed maps -----------------------------------------------------------

type PromptResult = HarnessSdkRequestMap["session/prompt"]["result"];
export const messageId = (r: PromptResult): string => r.messageId;
export type StatusParams = HarnessSdkNotificationMap["session.status"];
export const sendsFromServer = Object.entries(methodTable).filter(([, m]) => m.direction === "server-to-client").map(([name]) => name);

// --- exhaustive switches ----------------------------------------------------

export function text(blocks: ContentBlock[]): string {
  return blocks
    .map((b) => {
      switch (b.type) {
        case "text":
        case "reasoning":
          return b.text;
        case "image":
          return `[image ${b.attachment.width}x${b.attachment.height}]`;
        case "tool-call":
          return `[call ${b.name}]`;
        case "tool-result":
          return text(b.content);
        default: {
          const never: never = b;
          return never;
        }
      }
    })
    .join("");
}

export function reason(r: TurnEndReason): string {
  return r.kind === "error" ? `error ${r.error.code}` : r.kind;
}

/** Narrows on event.type: each branch sees its own data type. */
export function describe(event: SessionEvent): string {
  switch (event.type) {
    case "turn/start":
      return `turn ${event.data.turn}`;
    case "turn/end":
      return `turn ${event.data.turn} ended: ${reason(event.data.reason)}`;
    case "user/message":
      return `user: ${text(event.data.content)} (${event.surfaceOp === "append" ? "append" : "replace"})`;
    case "assistant/chunk":
      return event.data.chunk.type;
    case "assistant/message":
      return `assistant: ${text(event.data.message.content)} ${event.data.usage?.outputTokens ?? 0}`;
    case "tool/call":
      return `${event.data.name}(${event.data.arguments})`;
    case "tool/result":
      return text(event.data.message.content);
    case "subagent/descriptor":
      return event.data.mode;
    default:
      return event.type;
  }
}

// --- unknown event types and unknown members --------------------------------

/** An event type this build does not know (a plugin's, a newer peer's) is still typed. */
export function describeAny(event: WithUnknown<"SessionEvent">): string {
  if (isKnown("SessionEvent", event)) {
    return describe(event);
  }
  const data = event.data; // JsonValue
  return `unknown ${event.type} #${event.seq}: ${JSON.stringify(data)}`;
}

/** Members a host added to the user source (rpcId, clientTimeZone are declared; others are extras). */
export function userSourceExtras(event: SessionEvent): { [key: string]: unknown } {
  if (event.type === "user/message" && event.data.source.kind === "user") {
    return extraMembers("UserMessageSource", event.data.source);
  }
  return {};
}

// --- a dispatcher over lines -----------------------------------------------

export interface Handlers {
  event(sessionId: string, event: WithUnknown<"SessionEvent">): void;
  status(sessionId: string, status: "idle" | "running"): void;
  result<M extends RequestMethod>(method: M, result: ResultOf<M>): void;
  error(code: number, message: string): void;
}

export function makeDispatcher(h: Handlers): (line: string) => void {
  const pending = new Map<string | number, RequestMethod>();
  return (line) => {
    const frame = parseFrame(line);
    if (isRequest(frame)) {
      pending.set(frame.id, frame.method); // a frame we sent
      return;
    }
    if (isNotification(frame)) {
      switch (frame.method) {
        case "session.event":
          h.event(frame.params.sessionId, frame.params.event);
          return;
        case "session.status":
          h.status(frame.params.sessionId, frame.params.status);
          return;
        case "subagent.started":
        case "subagent.finished":
          return;
        default: {
          const never: never = frame;
          return never;
        }
      }
    }
    if (isErrorResponse(frame)) {
      h.error(frame.error.code, frame.error.message);
      return;
    }
    if (frame !== undefined && (typeof frame["id"] === "string" || typeof frame["id"] === "number")) {
      const method = pending.get(frame["id"]);
      if (method === Methods.Initialize && isResultFor(frame, method)) {
        h.result(method, frame.result); // InitializeResult
        const name: string = frame.result.serverInfo.name;
        void name;
      }
    }
  };
}

export const maxTokensIsSuccess = (r: SubagentStopReason): boolean => r === SubagentStopReason.Completed || r === SubagentStopReason.MaxTokens;

// Type-level compatibility test between the generated bindings (out/ts) and
// the published upstream types (@deepseek-ai/dsh-sdk-protocol@0.0.1-rc.1 with
// its 0.0.1-rc.1 peers). It has no runtime: it passes when tsc reports 0
// errors. Each assertion is a function whose body is an assignment, so a
// failure names the member that does not fit. See COMPAT.md for what holds in
// which direction and why.
import type * as P from "@deepseek-ai/dsh-sdk-protocol";
import type * as S from "@deepseek-ai/dsh-session";
import type * as L from "@deepseek-ai/dsh-llm";
import type { Branded } from "@deepseek-ai/dsh-brand";
import type * as O from "../../../out/ts/src/index.js";

// ---------------------------------------------------------------------------
// Guards: an upstream type that failed to resolve is `any`, and any is
// assignable both ways, which would make every check below pass vacuously.
type IsAny<T> = 0 extends 1 & T ? true : false;
type Expect<T extends true> = T;
type Not<T extends boolean> = T extends true ? false : true;
export type NotAnyChecks = [
  Expect<Not<IsAny<P.InitializeParams>>>,
  Expect<Not<IsAny<P.InitializeResult>>>,
  Expect<Not<IsAny<P.SessionPromptParams>>>,
  Expect<Not<IsAny<P.SessionPromptParams["contentBlocks"][number]>>>,
  Expect<Not<IsAny<P.SessionPromptResult>>>,
  Expect<Not<IsAny<P.SessionEventNotification>>>,
  Expect<Not<IsAny<P.SessionEventNotification["event"]>>>,
  Expect<Not<IsAny<P.SessionEventNotification["event"]["data"]>>>,
  Expect<Not<IsAny<P.SessionStatusNotification>>>,
  Expect<Not<IsAny<P.SubagentStartedNotification>>>,
  Expect<Not<IsAny<P.SubagentFinishedNotification>>>,
  Expect<Not<IsAny<P.SubagentFinishedNotification["stopReason"]>>>,
  Expect<Not<IsAny<P.SdkRunStatus>>>,
  Expect<Not<IsAny<P.HarnessSdkRequestMap>>>,
  Expect<Not<IsAny<P.HarnessSdkNotificationMap>>>,
  Expect<Not<IsAny<L.ContentBlock>>>,
  Expect<Not<IsAny<L.MessageSource>>>,
  Expect<Not<IsAny<L.StreamChunk>>>,
  Expect<Not<IsAny<Branded<"X">>>>,
  Expect<Not<IsAny<S.SurfaceEvent>>>,
];

// ---------------------------------------------------------------------------
// Helpers.

/** Exactly the same type (not merely mutually assignable through any). */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;

/**
 * What a type says of the JSON on the wire, with three compile-time-only
 * facets of the upstream declarations removed:
 * - a branded id (`string & { [BRAND]: B }`, a `unique symbol` brand that no
 *   other package can produce) is a plain string on the wire;
 * - an `unknown` member carries lossless JSON (their own rule: session data
 *   must pass `isJsonValue`, WIRE-FACTS §8.3), so it is a JsonValue;
 * - a `readonly` array is an array.
 * Optionality and readonly members are kept (homomorphic mapped type).
 */
type Wire<T> = unknown extends T
  ? O.JsonValue
  : T extends Branded<string>
    ? string
    : T extends readonly (infer E)[]
      ? number extends T["length"]
        ? Wire<E>[]
        : { -readonly [K in keyof T]: Wire<T[K]> }
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

/**
 * Their SessionEvent as the runtime sends it: the three surface types
 * (`user/message`, `assistant/message`, `tool/result`) always carry
 * `surfaceOp` (their own `SurfaceEvent`); their type leaves it optional.
 */
type TheirWireEvent = S.SessionEvent<Exclude<S.SessionEventType, S.SurfaceEventType>> | S.SurfaceEvent;

/**
 * Version difference (WIRE-FACTS §10): dsh-llm 0.0.1-rc.1 types
 * `finish.replayState` as opaque `unknown`; the schema follows 0.1.1-rc.2 and
 * the fork, where it is a ReplayEnvelope. Their finish chunk with the later
 * type of replayState.
 */
type LaterReplayState<T> = T extends { type: "finish"; replayState?: unknown }
  ? Omit<T, "replayState"> & { replayState?: O.ReplayEnvelope }
  : T extends readonly unknown[] | ((...a: never[]) => unknown)
    ? T
    : T extends object
      ? { [K in keyof T]: LaterReplayState<T[K]> }
      : T;

/**
 * Our values restricted to the vocabulary their packages know, for ours →
 * theirs. Each restriction is a schema decision, see COMPAT.md:
 * - MessageSource: the schema has the 13 kinds of the fork (plugins merge
 *   them into MessageSourceMap); the rc.1 packages installed here know 6;
 * - the `plugin` MessageSource: the schema flattens the ContextFormed mix-in
 *   into one object with `form` an open string and `sections`/`summary`
 *   optional; theirs is a union per form, so only theirs → ours holds
 *   (checked on its own below) and ours → theirs leaves it out;
 * - StreamChunk block-start `blockType`: the schema types it as any string
 *   (ContentBlock is open, decision 11.3); theirs is `keyof ContentBlockMap`;
 * - ToolResultMessage `content`: theirs is the one-element tuple
 *   `[ToolResultBlock]`; the schema says an array of exactly one item
 *   (minItems/maxItems 1), which the bindings print as `ToolResultBlock[]`
 *   (the IR carries no array length);
 * - SessionEndSeedData: an open object in the schema (decision 11.1);
 *   theirs is `Record<string, never>`.
 */
type TheyKnow<T> = [T] extends [O.MessageSource]
  ? [O.MessageSource] extends [T]
    ? Exclude<Extract<O.MessageSource, { kind: L.MessageSource["kind"] }>, O.PluginMessageSource>
    : TheyKnowEach<T>
  : Same<T, O.SessionEndSeedData> extends true
    ? Record<string, never>
    : TheyKnowEach<T>;
type TheyKnowEach<T> = T extends O.StreamChunkBlockStart
  ? Omit<T, "blockType"> & { blockType: L.ContentBlock["type"] }
  : T extends O.ToolResultMessage
    ? { [K in keyof T]: K extends "content" ? [TheyKnow<O.ToolResultBlock>] : TheyKnow<T[K]> }
    : T extends (infer E)[]
    ? TheyKnow<E>[]
    : T extends object
      ? { [K in keyof T]: TheyKnow<T[K]> }
      : T;

/** Our events of the types their SessionEventMap knows. */
type OurEventsTheyKnow = TheyKnow<Extract<O.SessionEvent, { type: S.SessionEventType }>>;

// ---------------------------------------------------------------------------
// Mutually assignable as they are: ours → theirs and theirs → ours.

export function initializeParamsOursToTheirs(x: O.InitializeParams): P.InitializeParams { return x; }
export function initializeParamsTheirsToOurs(x: P.InitializeParams): O.InitializeParams { return x; }
export function initializeResultOursToTheirs(x: O.InitializeResult): P.InitializeResult { return x; }
export function initializeResultTheirsToOurs(x: P.InitializeResult): O.InitializeResult { return x; }
export function sessionPromptResultOursToTheirs(x: O.SessionPromptResult): P.SessionPromptResult { return x; }
export function sessionPromptResultTheirsToOurs(x: P.SessionPromptResult): O.SessionPromptResult { return x; }
export function sessionStatusOursToTheirs(x: O.SessionStatusNotification): P.SessionStatusNotification { return x; }
export function sessionStatusTheirsToOurs(x: P.SessionStatusNotification): O.SessionStatusNotification { return x; }
export function subagentStartedOursToTheirs(x: O.SubagentStartedNotification): P.SubagentStartedNotification { return x; }
export function subagentStartedTheirsToOurs(x: P.SubagentStartedNotification): O.SubagentStartedNotification { return x; }
export function sdkRunStatusOursToTheirs(x: O.SdkRunStatus): P.SdkRunStatus { return x; }
export function sdkRunStatusTheirsToOurs(x: P.SdkRunStatus): O.SdkRunStatus { return x; }
export function stopReasonOursToTheirs(x: O.SubagentStopReason): P.SubagentFinishedNotification["stopReason"] { return x; }
export function stopReasonTheirsToOurs(x: P.SubagentFinishedNotification["stopReason"]): O.SubagentStopReason { return x; }

// ---------------------------------------------------------------------------
// Theirs → ours as they are; ours → theirs on the wire (brands erased).

export function sessionPromptParamsTheirsToOurs(x: P.SessionPromptParams): O.SessionPromptParams { return x; }
export function sessionPromptParamsOursToTheirsWire(x: O.SessionPromptParams): Wire<P.SessionPromptParams> { return x; }
export function subagentFinishedTheirsToOurs(x: P.SubagentFinishedNotification): O.SubagentFinishedNotification { return x; }
export function subagentFinishedOursToTheirsWire(x: O.SubagentFinishedNotification): Wire<P.SubagentFinishedNotification> { return x; }

// ---------------------------------------------------------------------------
// SessionEventNotification.
// theirs → ours: for the events the runtime sends (surface events carry
// surfaceOp), on the wire, with the later replayState type.
// ours → theirs: for our events of the types and vocabulary they know, on
// the wire.

type TheirSessionEventNotification = { sessionId: string; event: TheirWireEvent };
export function sessionEventTheirsToOurs(x: LaterReplayState<Wire<TheirSessionEventNotification>>): O.SessionEventNotification { return x; }
export function sessionEventOursToTheirsWire(x: { sessionId: string; event: OurEventsTheyKnow }): Wire<P.SessionEventNotification> { return x; }
/** Their envelope is the same as ours apart from the event: the check above is not vacuous. */
export type SessionEventNotificationKeys = Expect<Same<keyof P.SessionEventNotification, keyof O.SessionEventNotification>>;

/** The plugin MessageSource: theirs → ours only (see TheyKnow). */
export function pluginSourceTheirsToOurs(x: Wire<Extract<L.MessageSource, { kind: "plugin" }>>): O.PluginMessageSource { return x; }

// ---------------------------------------------------------------------------
// The maps.

/** Same method names. */
export type SameMethodNames = [
  Expect<Same<keyof O.HarnessSdkRequestMap, keyof P.HarnessSdkRequestMap>>,
  Expect<Same<keyof O.HarnessSdkNotificationMap, keyof P.HarnessSdkNotificationMap>>,
];

// Request map: theirs → ours as it is. Ours → theirs on the wire for every
// method except shutdown, whose params and result are open objects in the
// schema (decisions 11.1, 11.7) where theirs says `undefined` and
// `Record<string, never>`: there ours is wider.
export function requestMapTheirsToOurs(x: P.HarnessSdkRequestMap): O.HarnessSdkRequestMap { return x; }
export function requestMapOursToTheirsWire(x: Omit<O.HarnessSdkRequestMap, "shutdown">): Wire<Omit<P.HarnessSdkRequestMap, "shutdown">> { return x; }
export function shutdownOursNarrowedToTheirs(x: { params: Extract<O.ParamsOf<"shutdown">, undefined>; result: Record<string, never> }): P.HarnessSdkRequestMap["shutdown"] { return x; }

// Notification map: as SessionEventNotification above, all other entries as they are.
type TheirWireNotificationMap = Omit<P.HarnessSdkNotificationMap, "session.event"> & {
  "session.event": LaterReplayState<Wire<TheirSessionEventNotification>>;
};
export function notificationMapTheirsToOurs(x: TheirWireNotificationMap): O.HarnessSdkNotificationMap { return x; }
type OurNotificationMapTheyKnow = Omit<O.HarnessSdkNotificationMap, "session.event"> & {
  "session.event": { sessionId: string; event: OurEventsTheyKnow };
};
export function notificationMapOursToTheirsWire(x: OurNotificationMapTheyKnow): Wire<P.HarnessSdkNotificationMap> { return x; }

// ---------------------------------------------------------------------------
// The directions that do not hold as they are (COMPAT.md says why). Each is
// an expected error, so this file fails when one of them starts to hold and
// COMPAT.md needs updating.

// @ts-expect-error -- branded ids (CallId in ToolCallBlock)
export function sessionPromptParamsOursToTheirs(x: O.SessionPromptParams): P.SessionPromptParams { return x; }
// @ts-expect-error -- branded ids in lastAssistantMessage
export function subagentFinishedOursToTheirs(x: O.SubagentFinishedNotification): P.SubagentFinishedNotification { return x; }
// @ts-expect-error -- 48 event types vs 16, brands, wider vocabulary
export function sessionEventOursToTheirs(x: O.SessionEventNotification): P.SessionEventNotification { return x; }
// @ts-expect-error -- surfaceOp optional in theirs, unknown members, rc.1 replayState
export function sessionEventTheirsToOurs_asIs(x: P.SessionEventNotification): O.SessionEventNotification { return x; }
// @ts-expect-error -- shutdown params/result are open objects in the schema
export function requestMapOursToTheirs(x: O.HarnessSdkRequestMap): P.HarnessSdkRequestMap { return x; }
// @ts-expect-error -- as sessionEventTheirsToOurs_asIs
export function notificationMapTheirsToOurs_asIs(x: P.HarnessSdkNotificationMap): O.HarnessSdkNotificationMap { return x; }
// @ts-expect-error -- as sessionEventOursToTheirs
export function notificationMapOursToTheirs(x: O.HarnessSdkNotificationMap): P.HarnessSdkNotificationMap { return x; }
// @ts-expect-error -- the plugin source's form is an open string in the schema
export function pluginSourceOursToTheirs(x: O.PluginMessageSource): Wire<Extract<L.MessageSource, { kind: "plugin" }>> { return x; }

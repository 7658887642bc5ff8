// Shapes: optional vs nullable, consts, unions, methods.
import {
  isKnown, isNotification, type OpenEnum, isRequest, isResultFor, methodTable, Methods, Level,
  type Change, type GetParams, type Id, type Op, type ShapesNotifications, type ShapesRequests, type WithUnknown,
} from "./index.js";

export const p: GetParams = { id: "a", maybe: null, version: 2 };
// @ts-expect-error -- maybe is required (null is allowed, absent is not)
export const noMaybe: GetParams = { id: "a", version: 2 };
// @ts-expect-error -- perhaps may be absent but is never null
export const nullPerhaps: GetParams = { id: "a", maybe: "x", version: 2, perhaps: null };
// @ts-expect-error -- with exactOptionalPropertyTypes an optional member is not undefined
export const undefPerhaps: GetParams = { id: "a", maybe: "x", version: 2, perhaps: undefined };
// @ts-expect-error -- version is the const 2
export const v3: GetParams = { id: "a", maybe: "x", version: 3 };
export const ids: Id[] = ["x", 1];
export const ops: Op[] = ["append", { op: "replace", at: 1 }];
export const level: Level = Level.VeryHigh;
// The openness rule: a declared member says what the schema lists; OpenEnum is any value a
// peer may send, and a switch over it needs its default branch.
export const received: OpenEnum<Level> = "brand-new";
// @ts-expect-error -- "brand-new" is not one of the values the schema lists
export const declared: Level = "brand-new";
export function levelName(l: OpenEnum<Level>): string {
  switch (l) {
    case Level.VeryHigh: return "very high";
    default: return l;
  }
}

export function describe(c: WithUnknown<"Change">): string {
  if (!isKnown("Change", c)) {
    return "unknown " + c.op;
  }
  switch (c.op) {
    case "created": return c.thing.name;
    case "removed": return c.id;
    default: { const n: never = c; return n; }
  }
}

export function dispatch(frame: unknown): string {
  if (isRequest(frame)) {
    switch (frame.method) {
      case "thing/get": return frame.params.id;
      case "ping": return frame.params === undefined ? "no params" : "params";
      default: { const n: never = frame; return n; }
    }
  }
  if (isNotification(frame, Methods.ThingChanged)) {
    return describe(frame.params);
  }
  if (isResultFor(frame, "thing/get")) {
    return frame.result.name;
  }
  return methodTable["thing.changed"].direction;
}

type Res = ShapesRequests["thing/get"]["result"]["name"];
export const r: Res = "x";
export type N = keyof ShapesNotifications;

// Case 01 (shared/cases/01-discriminated-oneof-const/CASE.md): the exhaustive
// switch compiles with tsc --strict; the unknown-tag variant lives outside Shape.
import { isKnown, type Shape, type Drawing, type WithUnknown } from "./index.js";

export function area(s: Shape): number {
  switch (s.kind) {
    case "circle": return Math.PI * s.radius * s.radius;
    case "square": return s.side * s.side;
    case "line-segment": return 0;
    default: { const never_: never = s; return never_; }
  }
}

// Values of line 1 and line 4 of values.jsonl, typed.
export const line1: Drawing = { shapes: [{ kind: "circle", radius: 1 }, { kind: "square", side: 2 }, { kind: "line-segment", length: 3 }] };
// @ts-expect-error -- a known tag with the wrong body is not a Shape
export const wrongBody: Shape = { kind: "square", radius: 1 };

export function areaOrZero(s: WithUnknown<"Shape">): number {
  if (isKnown("Shape", s)) {
    return area(s);
  }
  const tag: string = s.kind; // "hexagon": kept, typed as the unknown variant
  return tag.length * 0;
}

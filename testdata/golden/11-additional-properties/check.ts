// Case 11 (shared/cases/11-additional-properties/strict.ts), import path adjusted.
import { extraMembers, type Labels, type Point, type Meta } from "./index.js";

const l: Labels = { owner: "ops", priority: 2 };          // OK
const p: Point = { x: 1, y: 2 };                           // OK
const m: Meta = { source: "cli" };                         // OK
// @ts-expect-error  -- 'sorce' is not a member of Meta
const typo: Meta = { sorce: "cli" };
export { l, p, m, typo };

// Typed extras are reachable through the index signature; unknown members
// of open objects through extraMembers.
const labels: Labels = JSON.parse('{"owner":"ops","priority":2,"team":"core"}') as Labels;
export const team: string | number | undefined = labels["team"];
const meta: Meta = JSON.parse('{"source":"cli","x-trace":"abc123"}') as Meta;
export const trace = extraMembers("Meta", meta)["x-trace"];

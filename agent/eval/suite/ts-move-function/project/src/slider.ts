import { clamp, nearlyEqual } from "./math";

export function position(v: number): number {
  const p = clamp(v, 0, 100);
  return nearlyEqual(p, 100) ? 100 : p;
}

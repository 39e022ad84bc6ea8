export const EPSILON = 1e-9;

export function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

export function nearlyEqual(a: number, b: number): boolean {
  return Math.abs(a - b) < EPSILON;
}

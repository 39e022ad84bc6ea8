export function span(low: number, high: number): number {
  return high - low;
}

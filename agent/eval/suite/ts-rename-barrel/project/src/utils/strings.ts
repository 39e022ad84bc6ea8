export function upper(s: string): string {
  return s.toUpperCase();
}

import { formatDate, upper } from "./utils";

export function heading(title: string, d: Date): string {
  return `${upper(title)} (${formatDate(d)})`;
}

import { getItem } from "./items";

// the label, or "" for an unknown id
export function label(id: string): string {
  return getItem(id).label;
}

import { getItem } from "./items";

// the price, or 0 for an unknown id
export function price(id: string): number {
  const item = getItem(id);
  return item.price;
}

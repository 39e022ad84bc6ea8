import { formatPrice } from "./price";

export function line(name: string, amount: number): string {
  return `${name}: ${formatPrice(amount)}`;
}

import * as price from "./price";

export function totalLine(amounts: number[]): string {
  const sum = amounts.reduce((a, b) => a + b, 0);
  return "Total " + price.formatPrice(sum);
}

import { Cart } from "./cart";
import { Invoice } from "./invoice";

export function checkout(cart: Cart): string {
  const invoice = new Invoice(cart.items);
  return `${cart.total()} / ${invoice.total()}`;
}

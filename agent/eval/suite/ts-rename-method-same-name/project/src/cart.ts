export class Cart {
  items: number[] = [];

  total(): number {
    return this.items.reduce((a, b) => a + b, 0);
  }
}

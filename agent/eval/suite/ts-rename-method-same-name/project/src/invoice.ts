export class Invoice {
  constructor(private amounts: number[]) {}

  total(): number {
    return this.amounts.reduce((a, b) => a + b, 0) * 1.2;
  }
}

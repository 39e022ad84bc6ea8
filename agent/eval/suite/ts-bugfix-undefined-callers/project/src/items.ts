export interface Item {
  id: string;
  label: string;
  price: number;
}

const items: Item[] = [{ id: "a", label: "Apple", price: 3 }];

export function getItem(id: string): Item | undefined {
  return items.find((i) => i.id === id);
}

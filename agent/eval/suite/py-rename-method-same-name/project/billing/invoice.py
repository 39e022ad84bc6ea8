class Invoice:
    def __init__(self, lines: list[tuple[str, float]]):
        self.lines = lines

    def total(self) -> float:
        return round(sum(price for _, price in self.lines), 2)

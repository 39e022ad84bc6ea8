class Cart:
    def __init__(self) -> None:
        self.items: list[float] = []

    def total(self) -> float:
        return sum(self.items)

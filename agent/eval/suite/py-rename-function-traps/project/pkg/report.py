class Report:
    def parse_row(self, text: str) -> tuple[str, int]:
        name, count = text.split(":")
        return name, int(count)

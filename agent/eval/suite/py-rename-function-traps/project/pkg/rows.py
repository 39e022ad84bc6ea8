"""Parsing of CSV-like rows."""


def parse_row(text: str) -> list[str]:
    return [cell.strip() for cell in text.split(",")]

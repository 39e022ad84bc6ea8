from pkg.rows import parse_row
from pkg import rows


def load(lines: list[str]) -> list[list[str]]:
    first = [parse_row(line) for line in lines[:1]]
    return first + [rows.parse_row(line) for line in lines[1:]]

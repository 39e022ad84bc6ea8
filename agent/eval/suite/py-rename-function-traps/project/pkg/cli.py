import logging

from pkg.loader import load

log = logging.getLogger(__name__)


def main(lines: list[str]) -> int:
    log.info("parse_row: reading %d lines", len(lines))
    return len(load(lines))

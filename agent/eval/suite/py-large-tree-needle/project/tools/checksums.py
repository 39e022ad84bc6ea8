import zlib


def legacy_checksum(data: bytes) -> int:
    return sum(data) % 65521


def checksum_v2(data: bytes) -> int:
    return zlib.adler32(data)

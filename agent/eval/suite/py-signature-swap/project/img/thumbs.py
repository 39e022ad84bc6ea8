from img.ops import resize


def thumbnail(image: dict) -> dict:
    return resize(image, 160, 90)


def banner(image: dict) -> dict:
    return resize(image, height=200, width=1200)


def square(image: dict, side: int) -> dict:
    return resize(image, side, height=side)

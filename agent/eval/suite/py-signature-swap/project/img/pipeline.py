from img import ops


def portrait(image: dict) -> dict:
    return ops.resize(image, 600, 800)

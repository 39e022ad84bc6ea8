def resize(image: dict, width: int, height: int) -> dict:
    return {**image, "width": width, "height": height}

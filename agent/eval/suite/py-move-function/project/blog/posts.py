from datetime import date

from blog.utils import slugify, year_folder


def post_path(title: str, day: date) -> str:
    return f"{year_folder(day)}/{slugify(title)}.html"

import re
import unicodedata
from datetime import date


def slugify(title: str) -> str:
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def year_folder(day: date) -> str:
    return f"{day.year:04d}"

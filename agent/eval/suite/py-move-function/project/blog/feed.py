from blog import utils


def feed_ids(titles: list[str]) -> list[str]:
    return [utils.slugify(t) for t in titles]

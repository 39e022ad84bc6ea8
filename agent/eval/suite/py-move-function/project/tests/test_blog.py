import unittest
from datetime import date

import blog.utils
from blog.feed import feed_ids
from blog.posts import post_path
from blog.text import slugify


class BlogTest(unittest.TestCase):
    def test_slugify_moved(self):
        self.assertEqual(slugify("Héllo, World!"), "hello-world")
        self.assertFalse(hasattr(blog.utils, "slugify"))

    def test_callers(self):
        self.assertEqual(post_path("A B", date(2024, 1, 2)), "2024/a-b.html")
        self.assertEqual(feed_ids(["X y"]), ["x-y"])

import tempfile
import unittest

from store.cache import cached
from store.files import load_file
from store.stats import busiest, size


class StoreTest(unittest.TestCase):
    def test_all(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
            fh.write("hello")
        self.assertEqual(load_file(fh.name), "hello")
        self.assertEqual(cached(fh.name), "hello")
        self.assertEqual(size(fh.name), 5)
        self.assertEqual(busiest([0.5, 0.9]), 0.9)

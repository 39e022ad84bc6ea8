import inspect
import unittest

from img.ops import resize
from img.pipeline import portrait
from img.thumbs import banner, square, thumbnail


class ImgTest(unittest.TestCase):
    def test_signature(self):
        self.assertEqual(list(inspect.signature(resize).parameters), ["image", "height", "width"])

    def test_callers(self):
        self.assertEqual(thumbnail({}), {"width": 160, "height": 90})
        self.assertEqual(banner({}), {"width": 1200, "height": 200})
        self.assertEqual(square({}, 5), {"width": 5, "height": 5})
        self.assertEqual(portrait({}), {"width": 600, "height": 800})

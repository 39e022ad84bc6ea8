import unittest

from users.mail import address, known
from users.views import display_name, greeting


class UsersTest(unittest.TestCase):
    def test_known(self):
        self.assertEqual(display_name(1), "Ann")
        self.assertEqual(greeting(2), "Hello, Bob!")
        self.assertEqual(address(1), "ann@example.com")

    def test_unknown(self):
        self.assertEqual(display_name(9), "unknown")
        self.assertEqual(greeting(9), "Hello!")
        self.assertIsNone(address(9))
        self.assertFalse(known(9))

import unittest

from accounts.export import as_row
from accounts.models import Account
from accounts.service import is_user, register


class AccountsTest(unittest.TestCase):
    def test_register(self):
        user = register("ann", "a@x")
        self.assertIsInstance(user, Account)
        self.assertTrue(is_user(user))
        self.assertEqual(as_row(user), "ann,a@x")

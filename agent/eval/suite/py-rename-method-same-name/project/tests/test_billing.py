import unittest

from billing.cart import Cart
from billing.checkout import checkout, summary
from billing.invoice import Invoice


class BillingTest(unittest.TestCase):
    def test_grand_total(self):
        self.assertEqual(Invoice([("a", 1.5), ("b", 2.0)]).grand_total(), 3.5)

    def test_checkout(self):
        cart = Cart()
        cart.items = [1.0, 2.0]
        self.assertEqual(checkout(cart), (3.0, 3.0))
        self.assertEqual(summary([Invoice([("a", 1.0)])]), 1.0)

from billing.cart import Cart
from billing.invoice import Invoice


def checkout(cart: Cart) -> tuple[float, float]:
    invoice = Invoice([("item", p) for p in cart.items])
    return cart.total(), invoice.total()


def summary(invoices: list[Invoice]) -> float:
    return sum(inv.total() for inv in invoices)

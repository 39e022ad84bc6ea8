"""Why a rename changes a site: the reasons a plan's sites carry (`lsp`: the language server's own
rename answer for the target; the others complete it)."""

REASONS: dict[str, str] = {
    "lsp": "the language server's rename of the target",
    "stub": "the stub (.pyi) / implementation counterpart, and what is typed through it",
    "hierarchy": "the same method (or attribute) in a base class or an override in a subclass",
    "alias": "an import alias is a local name: its uses in the same file",
    "kwarg": "a keyword argument naming the renamed parameter",
    "__all__": "an entry of the module's __all__ naming the renamed module-level name",
    "__slots__": "a __slots__ / __match_args__ entry of the class that owns the renamed attribute",
    "attr-string": "an attribute name as a string on the owning class (getattr/setattr/hasattr/"
    "delattr, object.__setattr__, __dict__ keys)",
    "embedded-code": "a module-level name used through an import of its module in Python code held in a "
    "string (a script run in a subprocess, code given to exec)",
    "shorthand": "a shorthand property `{ name }`: only the renamed half changes (`{ old: new }`)",
    "receiver-type": "an attribute access whose receiver the server types as the owning class",
    "untyped-receiver": "an attribute access on a receiver the server cannot type, for a member no other "
    "class declares and no built-in type has",
}

Reason = str

"""codeagent: a coding agent whose tools understand code."""

__version__ = "0.1.0"

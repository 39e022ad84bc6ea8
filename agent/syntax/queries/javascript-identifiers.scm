; inherits: ecma-identifiers

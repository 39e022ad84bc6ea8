; inherits: typescript-identifiers

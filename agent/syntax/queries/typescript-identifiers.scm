; inherits: ecma-identifiers
(type_identifier) @identifier

; Identifier tokens in Java code (for `code_occurrences`).
[
  (identifier)
  (type_identifier)
] @identifier

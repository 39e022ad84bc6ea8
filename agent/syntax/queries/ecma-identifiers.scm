; Identifier tokens in code shared by JavaScript, TypeScript and TSX (for `code_occurrences`).
[
  (identifier)
  (property_identifier)
  (private_property_identifier)
  (shorthand_property_identifier)
  (shorthand_property_identifier_pattern)
  (statement_identifier)
] @identifier

; Identifier tokens in Go code (for `code_occurrences`).
[
  (identifier)
  (field_identifier)
  (type_identifier)
  (package_identifier)
] @identifier

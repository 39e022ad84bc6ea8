; Identifier tokens in Rust code (for `code_occurrences`).
[
  (identifier)
  (field_identifier)
  (type_identifier)
  (shorthand_field_identifier)
] @identifier

; Identifier tokens in code (never inside strings or comments), for `code_occurrences`.
(identifier) @identifier

; Outline of a Python file: what `list_symbols` shows and the repo index stores.
; Captures: @definition.<kind> the definition node, @name its name, @range a wider range
; (decorators included), @body where the one-line signature stops.
; Where several patterns capture the same name, the first pattern in this file wins.
;
; Definitions sit only in blocks and compound statements (and in definitions), never inside
; expressions; the index looks for them only there (see querywalk.py). A pattern rooted at a
; node type that cannot be reached through these types must add it here.
; walk: block if_statement elif_clause else_clause for_statement while_statement try_statement
; walk: except_clause finally_clause with_statement match_statement case_clause

(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block) @body) @definition.class) @range

(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body) @definition.function) @range

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

; Module-level names; UPPER_CASE ones are constants.
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))

(module
  (expression_statement
    (assignment left: (pattern_list (identifier) @name)) @definition.variable))

(module
  (type_alias_statement left: (type (identifier) @name)) @definition.type)

; Class attributes (annotated or assigned in the class body).
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.field)))

; Outline of a Python file: what `list_symbols` shows and the repo index stores.
; Captures: @definition.<kind> the definition node, @name its name, @range a wider range
; (decorators included), @body where the one-line signature stops.
; Where several patterns capture the same name, the first pattern in this file wins.

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

; Outline patterns valid in the JavaScript, TypeScript and TSX grammars (inherited by each).
; Captures: @definition.<kind>, @name, @body (where the one-line signature stops).
; The first pattern capturing a name wins, so specific patterns come before general ones.

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(class_declaration
  name: (_) @name
  body: (class_body) @body) @definition.class

(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.method

; const f = () => ..., const f = function () {...}, const C = class {...}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function body: (_) @body)
      (function_expression body: (_) @body)
      (generator_function body: (_) @body)
    ])) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class body: (class_body) @body))) @definition.class

; Module-level constants and variables (exported or not).
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator name: (identifier) @name)) @definition.constant)

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name)) @definition.constant))

(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name)) @definition.variable)

(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator name: (identifier) @name)) @definition.variable))

(program
  (variable_declaration
    (variable_declarator name: (identifier) @name)) @definition.variable)

(program
  (export_statement
    declaration: (variable_declaration
      (variable_declarator name: (identifier) @name)) @definition.variable))

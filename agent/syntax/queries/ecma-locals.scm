; Scopes, definitions and references shared by JavaScript, TypeScript and TSX.
; Capture names as in python-locals.scm, plus:
;   @local.scope             a block scope (let/const/class bind here)
;   @local.definition.var    binds in the nearest function scope (`var`)
;   @local.member.definition a property or method declared here (a member name, not a variable)
; Each identifier takes the role of the first pattern (in file order) that captures it, and a
; file's own patterns come before the ones it inherits.

[
  (function_declaration)
  (generator_function_declaration)
  (function_expression)
  (generator_function)
  (arrow_function)
  (method_definition)
] @local.scope.function

[
  (statement_block)
  (for_statement)
  (for_in_statement)
  (catch_clause)
  (switch_body)
  (class)
] @local.scope

(function_declaration name: (identifier) @local.definition.outer)
(generator_function_declaration name: (identifier) @local.definition.outer)
(function_expression name: (identifier) @local.definition)
(generator_function name: (identifier) @local.definition)
(class name: (_) @local.definition)

(variable_declaration (variable_declarator name: (identifier) @local.definition.var))
(variable_declaration (variable_declarator name: (_ (pattern/identifier) @local.definition.var)))
(for_in_statement kind: "var" left: (identifier) @local.definition.var)
(for_in_statement kind: ["let" "const"] left: (identifier) @local.definition)

(variable_declarator name: (identifier) @local.definition)
(pattern/identifier) @local.definition
(rest_pattern (identifier) @local.definition)
(shorthand_property_identifier_pattern) @local.definition
(catch_clause parameter: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)

; Imports bind the local name; the imported name belongs to the other module.
(import_specifier alias: (identifier) @local.definition)
(import_specifier !alias name: (identifier) @local.definition)
(import_specifier name: (identifier) @local.member)
(import_clause (identifier) @local.definition)
(namespace_import (identifier) @local.definition)
(export_specifier alias: (_) @local.member)

(method_definition name: (_) @local.member.definition)
(pair key: (property_identifier) @local.member.definition)

(property_identifier) @local.member
(private_property_identifier) @local.member

(identifier) @local.reference
(shorthand_property_identifier) @local.reference

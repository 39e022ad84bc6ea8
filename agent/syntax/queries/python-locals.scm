; Scopes, definitions and references of a Python file, for scope-aware occurrences.
;   @local.scope.function  a scope that `var`-like and hoisted names bind in (def, lambda, comprehension)
;   @local.scope.class     a class body: its names are not visible from functions nested in it
;   @local.definition      binds a name in the innermost scope around it
;   @local.definition.outer  binds in the scope around the innermost one (a def's or class's own name)
;   @local.global / @local.nonlocal  the name, in this scope, is the module's / the enclosing function's
;   @local.member          an attribute or keyword name: not a variable
;   @local.reference       any other identifier
; Each identifier takes the role of the first pattern (in file order) that captures it.

[
  (function_definition)
  (lambda)
  (list_comprehension)
  (set_comprehension)
  (dictionary_comprehension)
  (generator_expression)
] @local.scope.function

(class_definition) @local.scope.class

(function_definition name: (identifier) @local.definition.outer)
(class_definition name: (identifier) @local.definition.outer)

(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.nonlocal)

; Parameters (of functions and lambdas).
(parameters (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(default_parameter name: (identifier) @local.definition)
(typed_parameter . (identifier) @local.definition)
(typed_default_parameter name: (identifier) @local.definition)
(list_splat_pattern (identifier) @local.definition)
(dictionary_splat_pattern (identifier) @local.definition)

; Assignment targets, loops, with/except targets, walrus.
(assignment left: (identifier) @local.definition)
(augmented_assignment left: (identifier) @local.definition)
(pattern_list (identifier) @local.definition)
(tuple_pattern (identifier) @local.definition)
(list_pattern (identifier) @local.definition)
(for_statement left: (identifier) @local.definition)
(for_in_clause left: (identifier) @local.definition)
(as_pattern_target (identifier) @local.definition)
(as_pattern_target (tuple (identifier) @local.definition))
(as_pattern_target (list (identifier) @local.definition))
(named_expression name: (identifier) @local.definition)

; match/case capture patterns.
(case_pattern (dotted_name . (identifier) @local.definition .))
(splat_pattern (identifier) @local.definition)
(keyword_pattern . (identifier) @local.member)
(case_pattern (as_pattern (identifier) @local.definition .))

; Imports: `import a.b` binds `a`; `import a.b as c` and `from m import a as c` bind `c`.
(import_statement name: (dotted_name . (identifier) @local.definition))
(aliased_import alias: (identifier) @local.definition)
(import_from_statement name: (dotted_name (identifier) @local.definition))

(aliased_import name: (dotted_name (identifier) @local.member))
(import_statement name: (dotted_name (identifier) @local.member))
(import_from_statement module_name: (dotted_name (identifier) @local.member))
(attribute attribute: (identifier) @local.member)
(keyword_argument name: (identifier) @local.member)

(identifier) @local.reference

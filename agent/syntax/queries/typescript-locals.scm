; inherits: ecma-locals
; TypeScript: type names, type parameters and parameters with modifiers.

; These declarations are scopes of their type parameters; their own name binds outside.
[
  (class_declaration)
  (abstract_class_declaration)
  (interface_declaration)
  (type_alias_declaration)
] @local.scope

(class_declaration name: (type_identifier) @local.definition.outer)
(abstract_class_declaration name: (type_identifier) @local.definition.outer)
(interface_declaration name: (type_identifier) @local.definition.outer)
(type_alias_declaration name: (type_identifier) @local.definition.outer)
(enum_declaration name: (identifier) @local.definition)
(internal_module name: (identifier) @local.definition)
(type_parameter name: (type_identifier) @local.definition)
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)

(public_field_definition name: (_) @local.member.definition)
(property_signature name: (_) @local.member.definition)
(method_signature name: (_) @local.member.definition)
(abstract_method_signature name: (_) @local.member.definition)

(type_identifier) @local.reference

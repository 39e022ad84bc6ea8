; inherits: ecma-outline
; TypeScript outline patterns; the JavaScript ones are inherited (after these).

(interface_declaration
  name: (type_identifier) @name
  body: (interface_body) @body) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(enum_body
  (enum_assignment name: (property_identifier) @name) @definition.enum_member)

(enum_body
  (property_identifier) @name @definition.enum_member)

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(internal_module
  name: (_) @name
  body: (statement_block) @body) @definition.namespace

(module
  name: (_) @name
  body: (statement_block) @body) @definition.namespace

; Overload signatures and ambient declarations.
(function_signature
  name: (identifier) @name) @definition.function

(interface_body
  (method_signature name: (_) @name) @definition.method)

(class_body
  (method_signature name: (_) @name) @definition.method)

(abstract_method_signature
  name: (_) @name) @definition.method

(interface_body
  (property_signature name: (_) @name) @definition.field)

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field

; Outline of a Rust file. An impl block is a container named after its type, so its
; functions get name paths like `Type.method`.

(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name
  body: (_) @body) @definition.struct

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum

(enum_variant
  name: (identifier) @name) @definition.enum_member

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.trait

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
  ]
  body: (declaration_list) @body) @definition.impl

(mod_item
  name: (identifier) @name
  body: (declaration_list) @body) @definition.module

(mod_item
  name: (identifier) @name) @definition.module

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.variable

(type_item
  name: (type_identifier) @name) @definition.type

(macro_definition
  name: (identifier) @name) @definition.macro

(field_declaration
  name: (field_identifier) @name) @definition.field

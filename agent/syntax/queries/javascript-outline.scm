; inherits: ecma-outline
; JavaScript-only outline patterns (class fields); the rest is shared with TypeScript.

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.field

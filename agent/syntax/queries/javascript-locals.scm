; inherits: ecma-locals
; JavaScript: the shared patterns cover it; class declarations bind in the enclosing block.

(class_declaration name: (identifier) @local.definition)
(field_definition property: (_) @local.member.definition)

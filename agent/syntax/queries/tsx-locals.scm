; inherits: typescript-locals
; TSX: as TypeScript; JSX tag names are identifiers and so references.

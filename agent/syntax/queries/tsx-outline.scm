; inherits: typescript-outline
; TSX is TypeScript with JSX: same outline (components are functions or classes).

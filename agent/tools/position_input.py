"""`PositionInput`: the target of every position tool (a 1-based line and column, or a name path).
Its own module so that a tool loaded alone (the CLI's `move`, `signature`, `delete`) does not
import the semantic tools of code.py with it."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, Field, model_validator


class PositionInput(BaseModel):
    file_path: str | None = Field(
        None, description="File containing the name, relative to the workspace root. Required with line/column; "
        "optional with symbol (narrows the lookup).")
    line: int | None = Field(None, ge=1, description="1-based line of the name.")
    column: int | None = Field(None, ge=1, description="1-based column (in characters) of the name's first character.")
    symbol: str | None = Field(
        None, min_length=1, description="Instead of line/column: a symbol name or name path, e.g. "
        "`QuerySet` or `QuerySet.filter`, looked up in the workspace's definitions.")

    @model_validator(mode="after")
    def _position_or_symbol(self) -> Self:
        if self.symbol is None:
            if self.file_path is None or self.line is None or self.column is None:
                raise ValueError("give file_path, line and column, or symbol")
        elif self.line is not None or self.column is not None:
            raise ValueError("give either line/column or symbol, not both")
        return self

"""A Core statement compiled once for a database, to run straight on its driver.

The SQL text, the order of its parameters and each parameter's type processor all come from
SQLAlchemy (the engine's own dialect), so a value is written exactly as the unit of work
writes it: the same JSON text, the same timestamp format."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

_GIVEN = object()  # a parameter whose value the caller gives (not a literal of the statement)


@dataclass(frozen=True)
class Compiled:
    sql: str
    # Each positional parameter in order: its name, its literal when the statement has one
    # (the 1 of `version + 1`) or _GIVEN, its type's processor, and that type as written
    # (`DateTime(timezone=True)`: two parameters of equal types process a value alike).
    plan: tuple[tuple[str, Any, Callable[[Any], Any] | None, str], ...]

    @classmethod
    def of(
        cls, statement: ClauseElement, dialect: Dialect, keys: list[str] | None = None
    ) -> Compiled:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=keys))
        names = tuple(compiled.positiontup or ())
        binds = [compiled.binds[name] for name in names]
        processors = tuple(b.type.dialect_impl(dialect).bind_processor(dialect) for b in binds)
        fixed = {n: b.value for n, b in zip(names, binds, strict=True) if not b.required}
        return cls(
            sql=compiled.string,
            plan=tuple(
                (name, fixed.get(name, _GIVEN), process, repr(bind.type))
                for name, process, bind in zip(names, processors, binds, strict=True)
            ),
        )

    def params(
        self, values: Mapping[str, Any], done: dict[tuple[int, str], Any] | None = None
    ) -> tuple[Any, ...]:
        """The positional parameters, each through its type's processor. `done` keeps what a
        type made of a value, for the next statement given the same values (a command's save
        and its event share the time: processed once)."""
        out = []
        for name, literal, process, kind in self.plan:
            value = values[name] if literal is _GIVEN else literal
            if process is None:
                out.append(value)
            elif done is None:
                out.append(process(value))
            else:
                key = (id(value), kind)  # `values` holds the value: its id stays its own
                if key not in done:
                    done[key] = process(value)
                out.append(done[key])
        return tuple(out)

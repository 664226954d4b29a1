"""A Core statement compiled once for a database, to run straight on its driver.

The SQL text, the order of its parameters and each parameter's type processor all come from
SQLAlchemy (the engine's own dialect), so a value is written exactly as the unit of work
writes it: the same JSON text, the same timestamp format."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, cast

from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.types import DateTime

Process = Callable[[Any], Any]


@dataclass(frozen=True)
class Compiled:
    sql: str
    # Each positional parameter in order: its name and its type's processor (None: as given).
    names: tuple[str, ...]
    processes: tuple[Process | None, ...]
    # The statement's own literals (the 1 of `version + 1`), by name: not the caller's to give.
    literals: dict[str, Any] = field(default_factory=dict)
    _get: Callable[[Mapping[str, Any]], tuple[Any, ...]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        # One C call takes every value out of the caller's mapping, in order.
        names = self.names
        get: Callable[[Mapping[str, Any]], tuple[Any, ...]]
        if len(names) == 1:
            only = names[0]
            get = lambda values: (values[only],)  # noqa: E731 - itemgetter of one is no tuple
        else:
            get = cast(Callable[[Mapping[str, Any]], tuple[Any, ...]], itemgetter(*names))
        object.__setattr__(self, "_get", get)

    @classmethod
    def of(
        cls, statement: ClauseElement, dialect: Dialect, keys: list[str] | None = None
    ) -> Compiled:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect, column_keys=keys))
        names = tuple(compiled.positiontup or ())
        binds = [compiled.binds[name] for name in names]
        processes: list[Process | None] = []
        for bind in binds:
            process: Process | None = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None and isinstance(bind.type, DateTime):
                process = _last_kept(process)
            processes.append(process)
        literals = {n: b.value for n, b in zip(names, binds, strict=True) if not b.required}
        return cls(sql=compiled.string, names=names, processes=tuple(processes), literals=literals)

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """The positional parameters, each through its type's processor."""
        if self.literals:
            values = {**values, **self.literals}
        given = self._get(values)
        return tuple([v if p is None else p(v) for p, v in zip(self.processes, given, strict=True)])


def _last_kept(process: Process) -> Process:
    """A processor that keeps what it made of the last value: a command's save and its event
    share the time (processed once; a datetime is immutable). The pair is replaced in one
    assignment, so a writer thread and the event loop never see one's value with the other's
    text."""
    last: list[tuple[Any, Any]] = [(object(), None)]

    def kept(value: Any) -> Any:
        seen, made = last[0]
        if seen is value:
            return made
        made = process(value)
        last[0] = (value, made)
        return made

    return kept

"""Frozen records: the value objects of kingsheet (rules, a game, a deal, a report…).

A record is declared as a dataclass is, by its annotated fields with optional defaults::

    class Deal(Record):
        game: str
        points: tuple[int, ...] | None = None

and behaves as ``@dataclass(frozen=True)`` does: keyword or positional construction in the order
of the fields, equality and hashing by value (only with a record of the same class), a readable
repr, and no assignment after construction. ``replace(record, field=value)`` makes a changed
copy. A default is used as it is, so it must be immutable (a tuple, ``EMPTY_MAP``, None…).

Why not dataclasses: ``dataclass`` writes and compiles six functions for every frozen class when
it is defined, about 1.5 ms a class on the machine the figures were measured on; the twenty
records a command imports cost a tenth of its start-up. A record's methods are written once,
here. (Dataclasses stay where a class needs their options, as in the photo reader.)
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar, dataclass_transform


class _EmptyMap(dict[Any, Any]):
    """An empty dict that stays empty: the default of a mapping field, shared by every record (JSON
    writes it as {}, pickle as a reference to this one)."""

    __slots__ = ()

    def _frozen(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("this mapping is the shared empty default of a record and cannot change")

    __setitem__ = __delitem__ = __ior__ = update = setdefault = pop = popitem = clear = _frozen

    def __reduce__(self) -> str:
        return "EMPTY_MAP"


#: The default of a mapping field: empty and immutable.
EMPTY_MAP: dict[Any, Any] = _EmptyMap()

R = TypeVar("R", bound="Record")


@dataclass_transform(eq_default=True, frozen_default=True)
class Record:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _field_names: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [name for name, kind in cls.__dict__.get("__annotations__", {}).items()
               if not str(kind).startswith(("ClassVar", "typing.ClassVar"))]
        defaults = dict(cls._defaults)
        defaults.update((name, cls.__dict__[name]) for name in own if name in cls.__dict__)
        fields = (*cls._fields, *(n for n in own if n not in cls._fields))
        seen_default = False
        for name in fields:
            if name in defaults:
                seen_default = True
            elif seen_default:
                raise TypeError(f"{cls.__name__}: field {name} without a default follows one with a default")
        cls._fields, cls._defaults, cls._field_names = fields, defaults, frozenset(fields)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        fields = cls._fields
        values = dict(zip(fields, args))
        if len(args) > len(fields) or (kwargs and not (kwargs.keys() <= cls._field_names and values.keys().isdisjoint(kwargs))):
            cls._refuse(args, kwargs)
        values.update(kwargs)
        if len(values) < len(fields):  # the defaults
            values = {**cls._defaults, **values}
            if len(values) < len(fields):
                missing = next(name for name in fields if name not in values)
                raise TypeError(f"{cls.__name__}() needs {missing!r}")
        object.__setattr__(self, "__dict__", values)

    @classmethod
    def _refuse(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if len(args) > len(cls._fields):
            raise TypeError(f"{cls.__name__}() takes {len(cls._fields)} arguments, {len(args)} were given")
        unknown = [name for name in kwargs if name not in cls._field_names]
        if unknown:
            raise TypeError(f"{cls.__name__}() has no field {unknown[0]!r}")
        twice = next(name for name in cls._fields[:len(args)] if name in kwargs)
        raise TypeError(f"{cls.__name__}() got {twice!r} twice")

    def _values(self) -> tuple[Any, ...]:
        d = self.__dict__
        return tuple(d[name] for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self._values()))
        return f"{type(self).__qualname__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._values()))


def _rebuild(cls: type[R], values: tuple[Any, ...]) -> R:
    return cls(*values)


def replace(record: R, **changes: Any) -> R:
    """A copy of ``record`` with the given fields changed."""
    return type(record)(**{**record.__dict__, **changes})

"""Records behave as frozen dataclasses do: the value objects of the verifier rely on it."""

from __future__ import annotations

import copy
import json
import pickle
from typing import ClassVar

import pytest

from kingsheet.core.record import EMPTY_MAP, Record, replace


class Point(Record):
    x: int
    y: int = 0
    label: str | None = None
    kind: ClassVar[str] = "point"  # a class variable, not a field


class Other(Record):
    x: int
    y: int = 0
    label: str | None = None


class Tagged(Record):
    tags: dict[str, int] = EMPTY_MAP


def test_fields_in_order_with_their_defaults():
    assert Point._fields == ("x", "y", "label")
    assert Point(1) == Point(x=1, y=0, label=None) == Point(1, 0, None)
    assert Point(1, label="a").label == "a"
    assert Point.kind == "point" and "kind" not in Point(1).__dict__


@pytest.mark.parametrize("make, words", [
    (lambda: Point(), "needs 'x'"),
    (lambda: Point(1, 2, "a", 4), "takes 3 arguments"),
    (lambda: Point(1, z=2), "no field 'z'"),
    (lambda: Point(1, x=2), "'x' twice"),
])
def test_a_wrong_construction_is_a_type_error(make, words):
    with pytest.raises(TypeError, match=words):
        make()


def test_a_field_without_a_default_may_not_follow_one_with_a_default():
    with pytest.raises(TypeError, match="without a default follows"):
        class Bad(Record):  # noqa: F841
            a: int = 0
            b: int


def test_frozen():
    p = Point(1)
    with pytest.raises(AttributeError, match="frozen"):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError, match="frozen"):
        del p.x  # type: ignore[misc]
    assert p.x == 1


def test_equal_and_hashed_by_value_within_one_class_only():
    assert Point(1, 2) == Point(1, 2) and hash(Point(1, 2)) == hash(Point(1, 2))
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != Other(1, 2)  # the same values in another class are another thing
    assert Point(1, 2) != (1, 2, None)
    assert len({Point(1), Point(1), Point(2)}) == 2


def test_replace_pickle_copy_and_repr():
    p = Point(1, 2, "a")
    assert replace(p, y=5) == Point(1, 5, "a") and p.y == 2
    with pytest.raises(TypeError):
        replace(p, z=1)
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p and copy.copy(p) == p
    assert repr(p) == "Point(x=1, y=2, label='a')"


def test_subclasses_extend_the_fields():
    class Point3(Point):
        z: int = 0

    assert Point3._fields == ("x", "y", "label", "z")
    assert Point3(1, 2, None, 3).z == 3 and Point3(1) != Point(1)


def test_the_shared_empty_mapping_stays_empty():
    t = Tagged()
    assert t.tags == {} and json.dumps(t.tags) == "{}"
    for change in (lambda m: m.__setitem__("a", 1), lambda m: m.update(a=1), lambda m: m.setdefault("a", 1),
                   lambda m: m.pop("a"), lambda m: m.clear(), lambda m: m.popitem()):
        with pytest.raises(TypeError, match="cannot change"):
            change(t.tags)
    assert Tagged().tags == {} and pickle.loads(pickle.dumps(EMPTY_MAP)) is EMPTY_MAP

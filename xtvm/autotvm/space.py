"""AutoTVM's configuration space (TVM's ``autotvm.task.space``).

A template is a schedule function that asks a config for its choices
(``cfg.define_split("tile_ow", width, ...)``, then ``cfg["tile_ow"]``)
instead of hard-coding them. The same template code serves three configs:

* :class:`FallbackConfig` (no tuning): every ``define_*`` answers its
  ``default``, so an untuned build is exactly the hand-written schedule;
* :class:`ConfigSpace` (task extraction): records every knob and its
  candidates while answering the defaults;
* :class:`ConfigEntity` (tuning, or a record applied): one point of the
  space, answering the chosen candidate of each knob.

A point is an index into the cross product of the knobs (the first knob
varies fastest); :meth:`ConfigSpace.get` maps an index to its entity and
entities serialize to TVM's record layout ``[[name, kind, value], ...]``.

Knob kinds: ``sp`` (split factors), ``re`` (a permutation), ``an`` (loop
annotations), ``ot`` (any JSON value). Values are JSON-compatible (ints,
strings, lists of them) so records need nothing but JSON.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Value = Any
"""A knob's value: an int, a string, or a list of them (JSON-compatible)."""

ANNOTATIONS = ("none", "unroll", "vec")
"""What ``define_annotate`` may put on a loop."""


@dataclass(frozen=True)
class SplitEntity:
    """Split factors, outermost first; -1 is the inferred outer factor."""

    size: tuple[int, ...]

    def apply(self, sch, loop):
        """Split ``loop`` (a ``LoopRV``) by these factors; the new loops."""
        return sch.split(loop, [None if f == -1 else f for f in self.size])


@dataclass(frozen=True)
class ReorderEntity:
    """A permutation of a list of loops."""

    perm: tuple[int, ...]

    def apply(self, sch, loops):
        """Reorder ``loops`` into this permutation; the loops in their new order."""
        ordered = [loops[i] for i in self.perm]
        if list(self.perm) != sorted(self.perm):
            sch.reorder(*ordered)
        return ordered


@dataclass(frozen=True)
class AnnotateEntity:
    """One annotation (``none``, ``unroll``, ``vec``) per loop."""

    anns: tuple[str, ...]

    def apply(self, sch, loops) -> None:
        for loop, ann in zip(loops, self.anns, strict=True):
            if ann == "unroll":
                sch.unroll(loop)
            elif ann == "vec":
                sch.vectorize(loop)


@dataclass(frozen=True)
class OtherOptionEntity:
    """A plain choice (``define_knob``)."""

    val: Value


Entity = SplitEntity | ReorderEntity | AnnotateEntity | OtherOptionEntity

_KINDS: dict[type, str] = {
    SplitEntity: "sp",
    ReorderEntity: "re",
    AnnotateEntity: "an",
    OtherOptionEntity: "ot",
}


def entity_value(entity: Entity) -> Value:
    """The JSON value of an entity (its record form)."""
    if isinstance(entity, SplitEntity):
        return list(entity.size)
    if isinstance(entity, ReorderEntity):
        return list(entity.perm)
    if isinstance(entity, AnnotateEntity):
        return list(entity.anns)
    return entity.val


def entity_from(kind: str, value: Value) -> Entity:
    """The entity of a record's ``[name, kind, value]`` (a ValueError when malformed)."""
    if kind == "sp" and isinstance(value, list) and all(isinstance(v, int) for v in value):
        return SplitEntity(tuple(value))
    if kind == "re" and isinstance(value, list) and all(isinstance(v, int) for v in value):
        return ReorderEntity(tuple(value))
    if kind == "an" and isinstance(value, list) and all(v in ANNOTATIONS for v in value):
        return AnnotateEntity(tuple(value))
    if kind == "ot":
        return OtherOptionEntity(value)
    raise ValueError(f"knob kind '{kind}' with value {value!r} is not a valid config entity")


def _factor_splits(extent: int, parts: int, candidates: Sequence[int] | None) -> list[SplitEntity]:
    """Every split of ``extent`` into ``parts`` loops whose inner factors
    divide it (or, for 2 parts, come from ``candidates``)."""
    if parts == 2 and candidates is not None:
        return [SplitEntity((-1, f)) for f in dict.fromkeys(candidates) if 1 <= f <= extent]
    divisors = [d for d in range(1, extent + 1) if extent % d == 0]
    out = []
    for inner in itertools.product(divisors, repeat=parts - 1):
        if extent % math.prod(inner) == 0:
            out.append(SplitEntity((-1, *inner)))
    return out


class ConfigBase:
    """What every config answers a template: the ``define_*`` calls and
    ``cfg[name]``. ``flop`` is what the template says the kernel computes
    (``add_flop``), for GFLOP/s."""

    def __init__(self) -> None:
        self.flop = 0.0
        self._values: dict[str, Entity] = {}

    def __getitem__(self, name: str) -> Entity:
        try:
            return self._values[name]
        except KeyError:
            raise KeyError(
                f"config has no knob '{name}' (knobs: {', '.join(self._values)})"
            ) from None

    def add_flop(self, flop: float) -> None:
        self.flop += flop

    def _define(self, name: str, options: list[Entity], default: Entity) -> Entity:
        raise NotImplementedError

    def define_split(
        self,
        name: str,
        extent: int,
        num_outputs: int = 2,
        candidates: Sequence[int] | None = None,
        default: Sequence[int] | None = None,
    ) -> SplitEntity:
        """A split of a loop of ``extent``: inner factors that divide it (or,
        for two parts, the ``candidates`` inner factors); ``default`` the
        factors of the hand-written schedule."""
        options = _factor_splits(extent, num_outputs, candidates)
        fallback = SplitEntity(tuple(default)) if default is not None else options[0]
        if fallback not in options:
            options.insert(0, fallback)
        return self._define(name, list(options), fallback)  # type: ignore[return-value]

    def define_reorder(
        self,
        name: str,
        count: int,
        perms: Iterable[Sequence[int]] | None = None,
        default: Sequence[int] | None = None,
    ) -> ReorderEntity:
        """A permutation of ``count`` loops: the given ``perms`` or all of them."""
        options = [ReorderEntity(tuple(p)) for p in (perms or itertools.permutations(range(count)))]
        fallback = (
            ReorderEntity(tuple(default))
            if default is not None
            else ReorderEntity(tuple(range(count)))
        )
        if fallback not in options:
            options.insert(0, fallback)
        return self._define(name, options, fallback)  # type: ignore[return-value]

    def define_annotate(
        self,
        name: str,
        count: int,
        policy: Sequence[str] = ("none", "unroll"),
        default: Sequence[str] | None = None,
    ) -> AnnotateEntity:
        """One annotation of ``policy`` per loop of ``count``."""
        unknown = set(policy) - set(ANNOTATIONS)
        if unknown:
            raise ValueError(
                f"define_annotate: unknown annotations {sorted(unknown)} (known: {ANNOTATIONS})"
            )
        options = [AnnotateEntity(tuple(a)) for a in itertools.product(policy, repeat=count)]
        fallback = AnnotateEntity(tuple(default) if default is not None else ("none",) * count)
        if fallback not in options:
            options.insert(0, fallback)
        return self._define(name, options, fallback)  # type: ignore[return-value]

    def define_knob(
        self, name: str, candidates: Sequence[Value], default: Value | None = None
    ) -> Value:
        """A plain choice among ``candidates``; returns the chosen value."""
        options = [OtherOptionEntity(c) for c in candidates]
        fallback = OtherOptionEntity(default if default is not None else candidates[0])
        if fallback not in options:
            options.insert(0, fallback)
        return self._define(name, options, fallback).val  # type: ignore[union-attr]


class FallbackConfig(ConfigBase):
    """No tuning: every knob takes its default (the hand-written schedule)."""

    is_fallback = True

    def _define(self, name: str, options: list[Entity], default: Entity) -> Entity:
        self._values[name] = default
        return default


@dataclass(frozen=True)
class Knob:
    """A knob of a space: its name and candidates (the default first)."""

    name: str
    options: tuple[Entity, ...]

    @property
    def kind(self) -> str:
        return _KINDS[type(self.options[0])]


class ConfigSpace(ConfigBase):
    """The space a template defines (recorded while it runs on defaults)."""

    is_fallback = True

    def __init__(self) -> None:
        super().__init__()
        self.knobs: dict[str, Knob] = {}

    def _define(self, name: str, options: list[Entity], default: Entity) -> Entity:
        options = [default, *(o for o in options if o != default)]
        self.knobs[name] = Knob(name, tuple(options))
        self._values[name] = default
        return default

    def __len__(self) -> int:
        return math.prod(len(k.options) for k in self.knobs.values())

    @property
    def dims(self) -> list[int]:
        """The number of candidates of each knob, in definition order."""
        return [len(k.options) for k in self.knobs.values()]

    def point(self, index: int) -> list[int]:
        """The candidate index of each knob at ``index`` (first knob fastest)."""
        if not 0 <= index < len(self):
            raise IndexError(f"config index {index} outside the space of {len(self)}")
        out = []
        for dim in self.dims:
            out.append(index % dim)
            index //= dim
        return out

    def index_of(self, point: Sequence[int]) -> int:
        index, stride = 0, 1
        for p, dim in zip(point, self.dims, strict=True):
            index += p * stride
            stride *= dim
        return index

    def get(self, index: int) -> ConfigEntity:
        """The config at ``index``; index 0 is the hand-written schedule."""
        values = {k.name: k.options[p] for k, p in zip(self.knobs.values(), self.point(index))}
        return ConfigEntity(index, values)

    def from_entity(self, entity: Sequence[Sequence[Any]]) -> ConfigEntity:
        """The config whose record form is ``entity`` (a ValueError when it is
        not a point of this space)."""
        chosen = ConfigEntity.from_json({"entity": list(entity)}).values
        point = []
        for knob in self.knobs.values():
            if knob.name not in chosen or chosen[knob.name] not in knob.options:
                raise ValueError(
                    f"knob '{knob.name}': {chosen.get(knob.name)} is not one of its candidates"
                )
            point.append(knob.options.index(chosen[knob.name]))
        return self.get(self.index_of(point))

    def features(self, index: int) -> list[float]:
        """Numeric features of a config for the cost model: each knob's
        candidate index and, for splits, the log2 of each factor."""
        out: list[float] = []
        for knob, p in zip(self.knobs.values(), self.point(index)):
            out.append(float(p))
            entity = knob.options[p]
            if isinstance(entity, SplitEntity):
                out.extend(math.log2(f) if f > 0 else 0.0 for f in entity.size[1:])
            elif isinstance(entity, OtherOptionEntity) and isinstance(entity.val, int | float):
                out.append(float(entity.val))
        return out


@dataclass
class ConfigEntity(ConfigBase):
    """One point of a space: ``index`` and the entity of each knob."""

    index: int
    values: dict[str, Entity] = field(default_factory=dict)
    is_fallback = False

    def __post_init__(self) -> None:
        ConfigBase.__init__(self)
        self._values = dict(self.values)

    strict: bool = True
    """A knob the config lacks, or a value the template does not offer, is
    an error (tuning); else (records applied to a later template) the
    knob's default, with a warning."""

    def _define(self, name: str, options: list[Entity], default: Entity) -> Entity:
        value = self._values.get(name)
        if value is not None and value in options:
            return value
        problem = (
            f"the config has no knob '{name}' the template defines"
            if value is None
            else f"knob '{name}': {entity_value(value)!r} is not one of the template's candidates"
        )
        if self.strict:
            raise KeyError(problem)
        warnings.warn(
            f"{problem}; using the hand-written choice {entity_value(default)!r}", stacklevel=2
        )
        return default

    @staticmethod
    def from_json(data: dict[str, Any], strict: bool = True) -> ConfigEntity:
        """A config from its record form (:meth:`to_json`); a ValueError
        when malformed."""
        if not isinstance(data, dict) or not isinstance(data.get("entity"), list):
            raise ValueError(f"a config must be {{'index': i, 'entity': [...]}}, got {data!r}")
        values = {}
        for item in data["entity"]:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)):
                raise ValueError(f"config entity item {item!r} is not [name, kind, value]")
            values[item[0]] = entity_from(item[1], item[2])
        config = ConfigEntity(int(data.get("index", -1)), values)
        config.strict = strict
        return config

    def to_json(self) -> dict[str, Any]:
        """TVM's record form: ``{"index": i, "code_hash": null, "entity": [[name, kind, value], ...]}``."""
        return {
            "index": self.index,
            "code_hash": None,
            "entity": [[n, _KINDS[type(e)], entity_value(e)] for n, e in self._values.items()],
        }

    def __str__(self) -> str:
        return ",".join(f"{n}={entity_value(e)}" for n, e in self._values.items())

"""The doubling cube (docs/rules.md, rules 7-10).

Pure and immutable. :class:`CubeState` knows its value and owner; :func:`double_problem`
says, in words that name the rule, why a player may not double now (or ``None``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pibg.position import Color


@dataclass(frozen=True, slots=True)
class CubeState:
    """The cube's value and owner (``None``: centred, either side may double)."""

    value: int = 1
    owner: Color | None = None

    def __post_init__(self) -> None:
        if self.value < 1 or self.value & (self.value - 1):
            raise ValueError(f"cube value must be a power of two, got {self.value}")

    @property
    def centred(self) -> bool:
        return self.owner is None

    @property
    def face(self) -> int:
        """What the physical cube shows: 64 while centred at 1, else the value (up to 64)."""
        return 64 if self.value == 1 else min(self.value, 64)

    def may_double(self, player: Color) -> bool:
        return self.owner is None or self.owner is player

    def taken(self, taker: Color) -> CubeState:
        """The cube after a take: twice the value, owned by the taker."""
        return CubeState(self.value * 2, taker)

    def beavered(self, taker: Color) -> CubeState:
        """After a beaver: the taker redoubles at once and keeps the cube."""
        return CubeState(self.value * 4, taker)

    def automatic_double(self) -> CubeState:
        """An automatic double on a tied opening roll: the stake doubles, the cube stays centred."""
        return CubeState(self.value * 2, None)

    def __str__(self) -> str:
        where = "centred" if self.owner is None else f"owned by {self.owner.label}"
        return f"cube {self.value}, {where}"


def double_problem(
    cube: CubeState,
    player: Color,
    *,
    on_roll: Color,
    rolled: bool,
    crawford: bool,
    limit: int = 0,
) -> str | None:
    """Why ``player`` may not offer a double now, or ``None`` if the double is allowed."""
    if crawford:
        return "no doubling in the Crawford game"
    if player is not on_roll:
        return "a double may be offered only on one's own turn (rule 7)"
    if rolled:
        return "a double must be offered before rolling (rule 7)"
    if not cube.may_double(player):
        owner = cube.owner.label if cube.owner is not None else "?"
        return f"the cube is owned by {owner}: only its owner may redouble"
    if limit and cube.value * 2 > limit:
        return f"the cube is at its limit of {limit}"
    return None

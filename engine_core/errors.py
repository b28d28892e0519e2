"""Rule violations. Every error names the rule it enforces, so a player can see why a move was refused."""

from __future__ import annotations


class RulesError(ValueError):
    """A request the rules refuse. `rule` is a short name of the rule; str(error) explains it."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class IllegalActionError(RulesError):
    """The action breaks a rule of the game in the current state."""


class NotYourTurnError(RulesError):
    """The seat may not act now: another seat's decision is pending."""

    def __init__(self, seat: int, pending: list[int]) -> None:
        waiting = " and ".join(f"seat {s}" for s in pending) or "nobody"
        super().__init__("turn order", f"seat {seat} may not act now; waiting for {waiting}")


class GameOverError(RulesError):
    """The game has finished; no more actions are accepted."""

    def __init__(self) -> None:
        super().__init__("game over", "the game has finished; no more actions are accepted")


class MalformedActionError(RulesError):
    """The action is not a well-formed action of this game (wrong message type, missing choice, bad text)."""


class InvalidConfigError(RulesError):
    """The game cannot be created as configured (seat count, unknown or invalid option)."""


class UnknownGameError(RulesError):
    """No registered game has this name."""

    def __init__(self, name: str) -> None:
        super().__init__("unknown game", f"no game named {name!r}")

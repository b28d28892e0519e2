"""The SDK's tests run against the real stack of tests/stack (its fixture, imported here)."""

from tests.stack.conftest import stack

__all__ = ["stack"]

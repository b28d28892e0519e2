"""One field of a JSON answer read from stdin, for shell scripts such as docs/api.md's grpcurl walkthrough:
`... | python -m deploy.field table tableId` prints the table's id (a string as it is, anything else as JSON; a
number picks a list's item). An answer without the field (the call before failed, and said why) gets one line
naming what is missing, on stderr, and exit status 1: no traceback."""

from __future__ import annotations

import json
import sys
from typing import Any


def field(answer: str, path: list[str]) -> Any:
    """The value at `path` in the JSON text `answer`; LookupError (naming the path) when there is none."""
    try:
        value = json.loads(answer)
    except ValueError:
        raise LookupError(f"no {'.'.join(path)}: the answer is not JSON (did the call before fail?)") from None
    for key in path:
        try:
            value = value[int(key)] if isinstance(value, list) else value[key]
        except (KeyError, IndexError, TypeError, ValueError):
            raise LookupError(f"no {'.'.join(path)} in the answer {answer.strip()[:200]!r}") from None
    return value


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python -m deploy.field KEY [KEY...] < answer.json")
    try:
        value = field(sys.stdin.read(), sys.argv[1:])
    except LookupError as missing:
        sys.exit(str(missing))
    print(value if isinstance(value, str) else json.dumps(value))


if __name__ == "__main__":
    main()

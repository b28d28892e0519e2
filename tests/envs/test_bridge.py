"""The bridge's refusals, offline (tests/sdk/test_policy_bot.py plays policies on the platform)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.bridge import PolicyError, policy_bot
from envs.core import Table, spec


def test_a_policy_choosing_an_index_its_mask_forbids_is_named() -> None:
    table = Table(spec("cardbench"), 3)
    view = table.view(0)
    legal = [(action, "") for action in table.spec.game.legal_actions(table.state, 0)]
    forbidden = int(np.flatnonzero(table.mask(0) == 0)[0])
    bot = policy_bot(lambda observation, mask: forbidden).for_seat(0)
    with pytest.raises(PolicyError, match=f"the policy chose index {forbidden}, which its mask does not allow"):
        bot(view, legal)
    chosen = policy_bot(lambda observation, mask: int(np.flatnonzero(mask)[-1])).for_seat(0)(view, legal)
    assert chosen == table.legal(0)[int(np.flatnonzero(table.mask(0))[-1])]

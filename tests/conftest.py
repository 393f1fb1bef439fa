"""Shared test helpers."""

from __future__ import annotations

import os

import numpy as np

# pytest-xdist's workers set COLUMNS=80, which the CLI honours (as it should for a user's
# terminal); the tests expect a pipe's output, as under plain pytest
os.environ.pop("COLUMNS", None)


def assert_ports_consistent(topo) -> None:
    """Port p of A leads to B, whose port back leads to A; node attachments agree."""
    n = topo.n_nodes
    peer, back = topo.port_peer, topo.port_peer_port
    s_idx, p_idx = np.nonzero(peer >= 0)
    v = peer[s_idx, p_idx].astype(np.int64)
    node = v < n
    assert np.array_equal(topo.node_switch[v[node]], s_idx[node])
    assert np.array_equal(topo.node_port[v[node]], p_idx[node])
    sw = ~node
    b = back[s_idx[sw], p_idx[sw]]
    assert np.all(peer[v[sw] - n, b] == n + s_idx[sw])
    assert np.all(back[v[sw] - n, b] == p_idx[sw])
    # every node hangs on exactly one switch port
    assert np.all(topo.node_switch >= 0)
    assert node.sum() == n

"""The routing kernels every walker calls (``docs/ARCHITECTURE.md``, routing contract).

``route_ports`` and ``next_vc`` are ``@njit`` and callable from other numba code
(simulator, checks, channel dependency graphs, loads). ``code`` selects the rule
(an integer switch, no Python dispatch per hop); ``iparams`` holds its integers
(layout in ``_consts``) and ``table`` the next-hop table of irregular graphs.
"""

from __future__ import annotations

from numba import njit, types

from ._consts import (
    CODE_CLOS,
    CODE_CUBE,
    CODE_HYBRID,
    CODE_KANT,
    CODE_MIKANT,
    CODE_MIN,
    CODE_TABLE,
    CODE_XGFT,
    IP_POLICY,
    POL_ALLMIN,
)
from ._cubes import _cube_ports, _torus_vc
from ._hybrid import _hybrid_ports, _hybrid_vc
from ._min import _min_ports
from ._trees import _clos_ports, _kant_ports, _mikant_ports, _mikant_vc
from ._xgft import _xgft_ports


# One explicit signature each: every caller (simulator, walkers, checks, loads, faults)
# shares one compiled copy of every rule, instead of one per combination of int32 /
# int64 / literal arguments (nine copies, ~30 s of compiling, before). Arrays are
# read-only C arrays (a writable one converts); the integers are int64.
_I64 = types.int64
_RO1 = types.Array(types.int64, 1, "C", readonly=True)
_RO2 = types.Array(types.int32, 2, "C", readonly=True)
_OUT = types.Array(types.int64, 1, "C")
ROUTE_PORTS_SIG = _I64(_I64, _RO1, _RO2, _RO2, _I64, _I64, _I64, _I64, _I64, _OUT)
NEXT_VC_SIG = _I64(_I64, _RO1, _I64, _I64, _I64, _I64, _I64)


@njit(ROUTE_PORTS_SIG, cache=True)
def route_ports(code, iparams, table, port_peer, sw, in_port, src, dst, pkt_key, out):
    """Candidate output ports of switch ``sw`` for a packet ``src -> dst``.

    Writes ``out[0:count]`` in preference order and returns ``count`` (0: no route).
    ``in_port`` is -1 at injection; at the destination's switch the ejection port is
    returned. ``pkt_key`` seeds per-packet random choices (with ``iparams``' seed),
    so routing never consumes a caller's random stream. ``src`` may be -1 for a
    packet that starts at a switch. ``out`` needs room for one entry per port.
    """
    if code == CODE_MIKANT:
        return _mikant_ports(iparams, sw, src, dst, pkt_key, out)
    if code == CODE_KANT:
        return _kant_ports(iparams, sw, src, dst, pkt_key, out)
    if code == CODE_CLOS:
        return _clos_ports(iparams, sw, src, dst, pkt_key, out)
    if code == CODE_CUBE:
        return _cube_ports(iparams, sw, dst, out)
    if code == CODE_HYBRID:
        return _hybrid_ports(iparams, sw, dst, out)
    if code == CODE_MIN:
        return _min_ports(iparams, sw, dst, out)
    if code == CODE_XGFT:
        return _xgft_ports(iparams, sw, src, dst, pkt_key, out)
    if code == CODE_TABLE:
        p = table[sw, dst]
        if p < 0:
            return 0
        out[0] = p
        return 1
    return 0


@njit(NEXT_VC_SIG, cache=True)
def next_vc(code, iparams, sw, in_port, in_vc, out_port, n_vcs):
    """Virtual channel the packet must use on ``out_port`` (-1: any VC of the port).

    ``in_vc`` is the VC it arrived on (-1 at injection). Algorithms whose
    ``vcs_required`` is 1 return -1; the others return a class below ``n_vcs`` (all
    classes collapse to VC 0 when ``n_vcs`` is smaller than required, which is how
    ``fattree deadlock --vcs 1`` exhibits their cycles).
    """
    if code == CODE_MIKANT and iparams[IP_POLICY] == POL_ALLMIN:
        return _mikant_vc(iparams, sw, in_port, in_vc, out_port, n_vcs)
    if code == CODE_HYBRID and iparams[2] == 1:  # KANTC/MiKANTC with k >= 5: two classes
        return _hybrid_vc(iparams, sw, in_port, in_vc, out_port, n_vcs)
    if code == CODE_CUBE and iparams[2] == 1:  # torus: dateline
        return _torus_vc(iparams, sw, in_port, in_vc, out_port, n_vcs)
    return -1


__all__ = ["route_ports", "next_vc"]

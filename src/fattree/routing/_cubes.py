"""Direct networks: e-cube on the hypercube, dimension order with a dateline on the
torus (numba). Index conventions of ``topology/families/cubes.py``: switch s carries
nodes ``s*p .. s*p+p-1`` on ports ``cube_ports ..``; hypercube port i flips bit i;
torus port 2i is +1 and 2i+1 is -1 in dimension i (k = 2: port i flips digit i).
"""

from __future__ import annotations

from numba import njit

# iparams layout of both
CP_K = 0  # radix of a dimension (2 for the hypercube)
CP_DIMS = 1
CP_P = 4  # nodes per switch
CP_PPD = 5  # ports per dimension (1 or 2)


@njit(cache=True)
def _cube_ports(iparams, sw, dst, out):
    """Lowest differing dimension first; the shorter way round a ring (+ on a tie)."""
    k = iparams[CP_K]
    dims = iparams[CP_DIMS]
    p = iparams[CP_P]
    ppd = iparams[CP_PPD]
    tsw = dst // p
    if tsw == sw:
        out[0] = ppd * dims + dst % p
        return 1
    w = 1
    for i in range(dims):
        a = (sw // w) % k
        b = (tsw // w) % k
        w *= k
        if a == b:
            continue
        if ppd == 1:
            out[0] = i
        else:
            fwd = (b - a) % k
            out[0] = 2 * i if fwd <= k - fwd else 2 * i + 1
        return 1
    return 0


@njit(cache=True)
def _torus_vc(iparams, sw, in_port, in_vc, out_port, n_vcs):
    """Dateline: VC 1 from the wrap-around hop of a ring to the end of that dimension."""
    k = iparams[CP_K]
    ppd = iparams[CP_PPD]
    cube = ppd * iparams[CP_DIMS]
    if n_vcs < 2 or ppd == 1 or out_port >= cube:
        return 0 if out_port < cube or in_vc < 0 else in_vc
    dim = out_port // 2
    vc = 0
    if 0 <= in_port < cube and in_port // 2 == dim and in_vc >= 1:
        vc = 1
    a = (sw // k**dim) % k
    if (out_port % 2 == 0 and a == k - 1) or (out_port % 2 == 1 and a == 0):
        vc = 1
    return vc

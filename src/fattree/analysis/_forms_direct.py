"""Closed forms of the direct networks (hypercube, torus) and 003's MIN fat trees.

The hypercube and torus carry ``p`` compute nodes per switch (000 eq. 7's convention), so
their hop counts include the two node links, as for the tree families; 001/004 Table 1's
HC(k) column counts switches only (radix k, diameter k, average k/2).
"""

from __future__ import annotations

from ..errors import ParameterError
from ._forms_hybrid import cube_pd, cube_pd_printed
from ._forms_trees import _kant_avg, _kant_pd
from .formset import ParamSpec, avg_distinct, register_forms


def _hc_printed(one, d, p):
    return {"path_diversity": cube_pd_printed(one, d) / p}


@register_forms(
    "hypercube",
    title="binary d-cube with p nodes per switch",
    params=[ParamSpec("d", 1, maximum=63), ParamSpec("p", 1, default=1)],
    references={
        "nodes": "001 Table 1 HC(k), p nodes per switch (000 eq. 7)",
        "switches": "001 Table 1 HC(k)",
        "links": "001 Table 1 HC(k) + p 2^d node links",
        "radix": "000 §V.A: real router radix m + p",
        "diameter": "000 §V.A: 'we let the diameter of m-cube be m + 2'",
        "avg_distance": "d/2 between switches (001 Table 1) + 2 node links",
        "avg_distance_distinct": "rescaled to s != t",
        "bisection_width": "2^(d-1) (standard)",
        "path_diversity": "001 §3.3 PD_cube (corrected in errata), divided by p",
    },
    notes={
        "path_diversity": "printed sum k!/(i! 4^k) is wrong; correct sum k!/((k-i)! 4^k)",
        "avg_distance": "d/2 + 2 - 2/N over all N^2 pairs including s = t",
    },
    printed=_hc_printed,
)
def _hypercube(one, d, p):
    N = p * 2**d
    avg = one * d / 2 + 2 - 2 * one / N
    return {
        "nodes": N,
        "switches": 2**d,
        "links": d * 2 ** (d - 1) + N,
        "radix": d + p,
        "diameter": d + 2,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
        "bisection_width": 2 ** (d - 1),
        "path_diversity": cube_pd(one, d) / p,
    }


@register_forms(
    "torus",
    title="k-ary n-cube torus with p nodes per switch",
    params=[ParamSpec("k", 2), ParamSpec("n", 1, maximum=63), ParamSpec("p", 1, default=1)],
    references={
        "nodes": "002 §1 (k-ary n-cube), p nodes per switch",
        "switches": "002 §1",
        "links": "n k^n rings (n 2^(n-1) for k = 2) + p k^n",
        "radix": "2n + p (n + p for k = 2)",
        "diameter": "n floor(k/2) + 2",
        "avg_distance": "n floor(k^2/4)/k + 2 - 2/N (rings, all pairs incl. self)",
        "avg_distance_distinct": "rescaled to s != t",
        "bisection_width": "2 k^(n-1) for even k (002: B = 2WN/k at W = 1)",
    },
    notes={
        "links": "a ring of two switches is one link (k = 2 is the binary n-cube)",
        "bisection_width": "given for even k only",
    },
)
def _torus(one, k, n, p):
    S = k**n
    N = p * S
    avg = one * n * (k * k // 4) / k + 2 - 2 * one / N
    ring_links = n * S if k >= 3 else n * S // 2
    out = {
        "nodes": N,
        "switches": S,
        "links": ring_links + N,
        "radix": (2 * n if k >= 3 else n) + p,
        "diameter": n * (k // 2) + 2,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, N),
    }
    if k % 2 == 0:
        out["bisection_width"] = 2 * k ** (n - 1) if k >= 4 else 2 ** (n - 1)
    return out


def _log2_clients(clients: int, family: str, minimum: int) -> int:
    m = clients.bit_length() - 1
    if clients != 1 << m or clients < minimum:
        raise ParameterError(
            f"{family}: clients={clients} is invalid: must be a power of two >= {minimum}"
        )
    return m


def _check_minft(params):
    _log2_clients(params["clients"], "minft", 2)


def _check_rsminft(params):
    _log2_clients(params["clients"], "rsminft", 8)


@register_forms(
    "minft",
    title="MIN fat tree (Bouhraoua; 003 §3)",
    params=[ParamSpec("clients", 2)],
    references={
        "nodes": "003 §3",
        "switches": "003 Table 2 (n 2^(n-1) routers, N = 2^n)",
        "links": "003 §3.1: two up-links per router below the top row",
        "radix": "003 §3.1 (2 down, 2 up)",
        "diameter": "003 Table 1 (2n - 1 routers visited)",
        "avg_distance": "equals the binary n-tree, 000 eq. (3) at k = 2",
        "avg_distance_distinct": "rescaled to s != t",
        "bisection_width": "N/2",
        "path_diversity": "001 §3.3 PD_kant at k = 2",
        "max_routers_visited": "003 Table 1",
    },
    notes={
        "diameter": "in links incl. node links (2n); 003 counts routers visited (2n - 1)",
        "nodes": "router (r,c) joins (r+1,c) and (r+1, c XOR 2^r): the 2-ary n-tree",
    },
    check=_check_minft,
)
def _minft(one, clients):
    m = clients.bit_length() - 1
    avg = _kant_avg(one, 2, m)
    return {
        "nodes": clients,
        "switches": m * 2 ** (m - 1),
        "links": m * 2**m,
        "radix": 4 if m >= 2 else 2,
        "diameter": 2 * m,
        "avg_distance": avg,
        "avg_distance_distinct": avg_distinct(avg, clients),
        "bisection_width": clients // 2,
        "path_diversity": _kant_pd(one, 2, m),
        "max_routers_visited": 2 * m - 1,
    }


def _rsminft_printed(one, clients):
    m = clients.bit_length() - 1
    # 003 Table 2 truncates the reduction 1/n for 64 and 128 clients: 16.66%, 14.28%
    return {"router_reduction": int(one * 10000 / m) / (one * 10000)} if m in (6, 7) else {}


@register_forms(
    "rsminft",
    title="reduced-switch scalable MIN fat tree (003 §4)",
    params=[ParamSpec("clients", 8)],
    references={
        "nodes": "003 §4.2",
        "switches": "003 Table 2 ((n-1) 2^(n-1) routers)",
        "links": "003 §4.2: top row removed, one lateral link per router (c XOR 2^l)",
        "radix": "003 §4.2 (2 down, 2 up, 1 lateral)",
        "diameter": "003 Table 1 (2n - 2 routers visited; errata)",
        "max_routers_visited": "003 Table 1",
        "router_reduction": "003 Table 2 (% reduced = 1/n)",
    },
    notes={
        "diameter": "in links incl. node links (2n - 1); 003 counts routers visited (2n - 2)",
        "router_reduction": "exactly 1/n; the paper truncates 16.67% to 16.66% and 14.29% to 14.28%",
    },
    printed=_rsminft_printed,
    check=_check_rsminft,
)
def _rsminft(one, clients):
    m = clients.bit_length() - 1
    routers = (m - 1) * 2 ** (m - 1)
    return {
        "nodes": clients,
        "switches": routers,
        "links": clients + (m - 2) * clients + routers // 2,
        "radix": 5,
        "diameter": 2 * m - 1,
        "max_routers_visited": 2 * m - 2,
        "router_reduction": one / m,
    }

"""Naming faulty links: endpoint labels, 001's link IDs, fault files, random fault sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..fileio import read_input, write_atomic
from ..errors import InputFileError, ParameterError
from ..topology import Topology
from .walks import walk_of


def fault_mask(topo: Topology, faulty) -> np.ndarray:
    """``faulty`` as a bool mask over ``topo.links`` (None: no faulty link).

    Parameters
    ----------
    topo : Topology
    faulty : bool array over ``topo.links``, or None

    Returns
    -------
    numpy.ndarray
        bool, shape ``(topo.n_links,)``.

    Raises
    ------
    ParameterError
        If its shape is not ``(topo.n_links,)``.
    """
    faulty = np.zeros(topo.n_links, bool) if faulty is None else np.asarray(faulty, bool)
    if faulty.shape != (topo.n_links,):
        raise ParameterError(f"faulty has shape {faulty.shape}, expected ({topo.n_links},)")
    return faulty


def link_between(topo: Topology, a: int, b: int) -> int:
    """Id of the link joining vertices a and b (``-1`` if they are not adjacent).

    Parameters
    ----------
    topo : Topology
        The network.
    a, b : int
        Vertex ids (nodes ``0..N-1``, switch ``s`` is ``N+s``).

    Returns
    -------
    int
        The index into ``topo.links``, or ``-1``.
    """
    n = topo.n_nodes
    if a > b:
        a, b = b, a
    if a < n:
        return a if b >= n and topo.node_switch[a] == b - n else -1
    row = topo.port_peer[a - n]
    hit = np.nonzero(row == b)[0]
    return int(topo.link_index[a - n, hit[0]]) if len(hit) else -1


def mikant_link_id(topo: Topology, lid) -> int:
    """Link of 001's ID ``<G, level, D_{n-2..0}, P>`` (docs/mikant-routing.md §1.3) in a MiKANT.

    Parameters
    ----------
    topo : Topology
        A MiKANT network.
    lid : sequence of int
        The link id ``(G, level, D_{n-2}, ..., D_0, P)``.

    Returns
    -------
    int
        The index into ``topo.links``.

    Raises
    ------
    ParameterError
        If the topology is not a MiKANT or the id does not name one of its links.

    Examples
    --------
    >>> import fattree
    >>> t = fattree.build("mikant:k=3,n=3")
    >>> e = mikant_link_id(t, [1, 2, 0, 0, 0])
    >>> [t.vertex_label(int(v)) for v in t.links[e]]
    ['s0.1.0.0', 's1.1.0.0']
    """
    text = ",".join(map(str, lid))
    walk = walk_of(topo.family)
    if walk is None or not walk.link_ids:  # 001's ids name the links of MiKANT's walk
        raise ParameterError(
            f"link id <{text}> names a MiKANT link; {topo.spec} is not a "
            "MiKANT: give the link as two labels 'A B'"
        )
    k, n = topo.params["k"], topo.params["n"]
    try:
        lid = [int(x) for x in lid]
    except (TypeError, ValueError):  # an empty or non-numeric field: '<1,,0>'
        lid = []
    if len(lid) != n + 2:
        raise ParameterError(
            f"link id <{text}> is invalid: expected {n + 2} integers <G,level,{n - 1} digits,P>"
        )
    g, level, digits, p = lid[0], lid[1], lid[2:-1], lid[-1]
    if not (0 <= g <= 1 and 0 <= level <= n - 1 and 0 <= p < k and all(0 <= x < k for x in digits)):
        raise ParameterError(f"link id {lid} is out of range for MiKANT({k},{n})")
    cross = level == n - 1  # up port p of stage n-2
    if cross and g != 1:
        raise ParameterError(f"link id {lid}: cross links are named from group 1 (G=1)")
    sw = topo.find("s" + ".".join(map(str, [g, min(level, n - 2), *digits]))) - topo.n_nodes
    return int(topo.link_index[sw, k * cross + p])


def parse_link(topo: Topology, text: str) -> int:
    """A link given as ``"A B"`` (two vertex labels) or as a MiKANT link id ``<1,2,0,0,0>``.

    Parameters
    ----------
    topo : Topology
        The network.
    text : str
        Two vertex labels separated by blanks, or a MiKANT link id.

    Returns
    -------
    int
        The index into ``topo.links``.

    Raises
    ------
    ParameterError
        If a label is unknown or the two vertices are not adjacent.
    """
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        return mikant_link_id(topo, text[1:-1].replace(" ", "").split(","))
    parts = text.replace(",", " ").replace("-", " ").split()
    if len(parts) != 2:
        raise ParameterError(
            f"link {text!r} is not 'LABEL LABEL' (e.g. 's0.1.0.0 s1.1.0.0') or a link id '<1,2,0,0,0>'"
        )
    a, b = topo.find(parts[0]), topo.find(parts[1])
    e = link_between(topo, a, b)
    if e < 0:
        raise ParameterError(
            f"link {text!r}: {parts[0]} and {parts[1]} are not adjacent in {topo.spec}"
        )
    return e


def read_fault_file(topo: Topology, path: str | Path) -> np.ndarray:
    """Boolean mask over ``topo.links`` from a file of one link per line ('#' comments).

    Parameters
    ----------
    topo : Topology
        The network the labels refer to.
    path : str or Path
        The fault file.

    Returns
    -------
    numpy.ndarray of bool
        Mask over ``topo.links``.

    Raises
    ------
    InputFileError
        If the file is missing, or a line names an unknown label or a non-existent link
        (the message gives the line number).
    """
    path = Path(path)
    text = read_input(path, "faults file")  # a regular file of UTF-8 text (fattree.fileio)
    mask = np.zeros(topo.n_links, bool)
    for no, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            mask[parse_link(topo, body)] = True
        except ParameterError as exc:
            raise InputFileError(f"{path}:{no}: {exc}") from None
    return mask


def write_fault_file(topo: Topology, mask: np.ndarray, path: str | Path) -> None:
    """Write the links of ``mask`` to a fault file, one ``A B`` label pair per line.

    Parameters
    ----------
    topo : Topology
        The network.
    mask : numpy.ndarray of bool
        Faulty links, over ``topo.links``.
    path : str or Path
        The file to write (read back by :func:`read_fault_file`).
    """
    lines = [
        f"{topo.vertex_label(int(a))} {topo.vertex_label(int(b))}"
        for a, b in topo.links[np.nonzero(mask)[0]]
    ]
    text = "# faulty links, one per line\n" + "\n".join(lines) + "\n"
    write_atomic(path, lambda fh: fh.write(text), binary=False, what="path")


def random_faults(topo: Topology, rate: float, seed: int, switch_only: bool = False) -> np.ndarray:
    """round(rate × links) faulty links drawn uniformly without replacement (001 §5).

    Parameters
    ----------
    topo : Topology
        The network.
    rate : float
        The share of links made faulty, in [0, 1].
    seed : int
        Seed of the draw.
    switch_only : bool
        Draw among switch-to-switch links only (node links never fail).

    Returns
    -------
    numpy.ndarray of bool
        Mask over ``topo.links``.

    Raises
    ------
    ParameterError
        If ``rate`` is outside [0, 1].
    """
    if not 0.0 <= rate <= 1.0:
        raise ParameterError(f"rate={rate!r} is invalid: a fraction in [0, 1]")
    pool = np.arange(topo.n_nodes if switch_only else 0, topo.n_links)
    f = int(np.floor(len(pool) * rate + 0.5))
    rng = np.random.default_rng(seed)
    mask = np.zeros(topo.n_links, bool)
    mask[rng.choice(pool, size=f, replace=False)] = True
    return mask


__all__ = [
    "fault_mask",
    "link_between",
    "mikant_link_id",
    "parse_link",
    "read_fault_file",
    "write_fault_file",
    "random_faults",
]

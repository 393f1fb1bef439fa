"""The ``booksim`` simulation model: BookSim2's input-queued router in numba.

``routes`` builds BookSim2's routing (``nca`` on the built-in fat tree, the ``min``
table of anynet files) and node numbering, ``kernel`` is the private cycle loop
(struct-of-arrays, no Python object per flit) and ``model`` its driver (BookSim2's
warm-up and sampling periods, the result). docs/booksim.md describes the semantics.
"""

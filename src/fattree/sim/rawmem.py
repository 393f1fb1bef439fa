"""Raw memory access for the simulator's numba kernel (private).

The kernel's state is a handful of C-contiguous row-major arrays (one 64-byte row per
FIFO, per output port, ...). Indexing them as ``fs[f, col]`` makes numba emit, for every
access, a negative-index wrap-around and a multiplication by the array's stride; in a
function that takes sixty arrays those strides and shapes do not fit in registers, so
each access also reloads them from the stack. :func:`ld` and :func:`st` address the
flat element ``arr.flat[i]`` directly (``i = row * COLS + col`` with a constant
``COLS``), which measured 10-15 % fewer CPU cycles per flit move
(``benchmarks/sim_speed.py``). Like numba's own indexing they do no bounds check unless
numba's is on (``NUMBA_BOUNDSCHECK=1``: an index outside the array raises ``IndexError``,
``tests/sim/test_rawmem.py``); the kernel's indices are in range by construction and the
pure-Python reference (:mod:`fattree.sim.reference`) reproduces every run exactly.

:func:`prefetch` issues LLVM's ``llvm.prefetch``: the evaluation walks a list of FIFO
ids and reads each one's row, so loading the rows a few entries ahead lets those cache
misses overlap (a few per cent; prefetching the rows a commit touches measured slower,
so it is not done). A prefetch is only a hint; it never faults and never changes a result.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _flat_ptr(context, builder, sig, args, check=True):
    ary = context.make_array(sig.args[0])(context, builder, args[0])
    idx = context.cast(builder, args[1], sig.args[1], types.intp)
    if check and context.enable_boundscheck:  # NUMBA_BOUNDSCHECK=1, as numba's indexing
        size = ary.nitems
        cgutils.do_boundscheck(context, builder, idx, size)
    return builder.gep(ary.data, [idx])


def _array_and_index(arr, index) -> bool:
    return isinstance(arr, types.Array) and arr.layout == "C" and isinstance(index, types.Integer)


@intrinsic
def ld(typingctx, arr, index):
    """``arr.flat[index]`` of a C-contiguous array (no wrap-around, no bounds check).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def third_of_row(a, r):
    ...     return ld(a, r * 4 + 2)
    >>> int(third_of_row(np.arange(12).reshape(3, 4), 1))
    6
    """
    if not _array_and_index(arr, index):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(_flat_ptr(context, builder, sig, args))

    return arr.dtype(arr, index), codegen


@intrinsic
def st(typingctx, arr, index, value):
    """``arr.flat[index] = value`` (cast to the array's dtype) of a C-contiguous array.

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def put(a):
    ...     st(a, 5, 7)
    >>> a = np.zeros((2, 3), np.int32); put(a); a.tolist()
    [[0, 0, 0], [0, 0, 7]]
    """
    if not _array_and_index(arr, index) or not isinstance(value, (types.Integer, types.Boolean)):
        return None

    def codegen(context, builder, sig, args):
        val = context.cast(builder, args[2], sig.args[2], sig.args[0].dtype)
        builder.store(val, _flat_ptr(context, builder, sig, args))
        return context.get_dummy_value()

    return types.void(arr, index, value), codegen


@intrinsic
def prefetch(typingctx, arr, index):
    """Hint that ``arr.flat[index]`` will be read soon (no effect on results).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def f(a):
    ...     prefetch(a, 3)
    ...     return a[3]
    >>> int(f(np.arange(5)))
    3
    """
    if not _array_and_index(arr, index):
        return None

    def codegen(context, builder, sig, args):
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch"
        )
        # (a hint for any address: never checked)
        ptr = builder.bitcast(_flat_ptr(context, builder, sig, args, check=False), i8p)
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])  # read, keep in all levels, data
        return context.get_dummy_value()

    return types.void(arr, index), codegen

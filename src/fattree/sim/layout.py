"""Column and slot indices of the simulator's state arrays (shared by kernel and engine).

numba folds these module-level integers into the compiled kernel.
"""

# fs: (n_fifos, FS_COLS) int32, one 64-byte row per (switch, input port, VC): what the
# evaluation reads, the head flit included, so that it touches one cache line per FIFO
FS_LEN = 0  # flits stored (the head flit included)
FS_WAIT = 1  # output port whose wait list holds this (blocked) FIFO, -1: awake or empty
FS_INLIST = 2  # 1 while in the active list (empty or asleep FIFOs leave it lazily)
FS_SW = 3  # switch, input port and VC of this FIFO (saves divisions in the kernel)
FS_IP = 4
FS_VC = 5
FS_OUT = 6  # output port held by the packet at the head (-1: none yet)
FS_OVC = 7  # output VC held
FS_ROUTE = 8  # cached route of the head packet (deterministic routing; -1: none)
FS_HPKT = 9  # the head flit: its packet (pool id), ready cycle, destination, hops
FS_HREADY = 10  # first cycle it may leave (arrival + 1 + router delay)
FS_HDST = 11
FS_HHOPS = 12  # links crossed so far by the packet's head flit
FS_UP = 13  # the sender: output port id (>= 0) or -(node + 1) for a node's link
FS_FIDX = 14  # index of the head flit inside its packet
FS_RHEAD = 15  # ring index of the first flit behind the head
FS_COLS = 16

# fcold: (n_fifos, 2) int32, rarely used per-FIFO data
FC_WNEXT = 0  # next FIFO in the wait list
FC_DEPTH = 1  # depth in flits (0: unused port)
FC_COLS = 2

# slots: (n_fifos * (max depth - 1), 4) int32: the flits *behind* each head, a ring of
# max depth - 1 slots per FIFO starting at f * (max depth - 1)
SL_PKT = 0  # pool id of the flit's packet
SL_READY = 1  # first cycle the flit may leave
SL_DST = 2  # the packet's destination
SL_HOPS = 3  # links crossed so far (head flit)
SL_COLS = 4

# ops: (n_ports, OP_OWN + 2 V) int32, one row per output port (switch, port)
OP_BF = 0  # arbitration: winning FIFO so far (-1: none)
OP_BVC = 1  # its output VC
OP_BIP = 2  # its input port
OP_DEM = 3  # awake input VCs whose ready head flit wants this port this cycle
OP_KEYOK = 4  # op_key holds the hash of the current winner
OP_TGT = 5  # downstream FIFO of VC 0 (>= 0), or -(node + 1) for an ejection port
OP_LVL = 6  # index in lvl_flits (1 + level of the switch)
OP_WHEAD = 7  # first FIFO of the wait list (blocked FIFOs wanting this port), -1: none
OP_SLEEP = 8  # length of the wait list
OP_TSW = 9  # downstream switch (-1: a node)
OP_OWN = 10  # OP_OWN + v: FIFO holding output VC v (-1: free); then credits
# OP_OWN + V + v: credits of VC v (free slots downstream, as seen by this sender)

# in_scr: (n_ports, IN_COLS) int64 scratch of input (VC) arbitration when vcs > 1
IN_BF = 0
IN_BOP = 1
IN_BVC = 2
IN_KEYOK = 3
IN_COLS = 4

# inj: (n_nodes, INJ_COLS) int64 per-node injection state
INJ_PKT = 0  # pool id of the packet being injected (-1: none)
INJ_FLIT = 1  # flits of it already sent
INJ_VC = 2
INJ_PEND = 3  # 1 while the node is in the pending list (packets queued or being injected)
INJ_COLS = 4

# pk: (pool, PK_COLS) int64 per-packet state (pool slots are recycled)
PK_SRC = 0
PK_DST = 1
PK_SEQ = 2
PK_TC = 3  # creation cycle
PK_TI = 4  # injection cycle (head flit left the source)
PK_HOPS = 5  # links crossed by the head flit (written when it reaches its node)
PK_MEAS = 6  # counts in the latency statistics
PK_FT = 7  # faults: header routing state (misroutes left; MiKANT/MiKANTC: packed walk state)
PK_COLS = 8  # padded to 64 bytes

# cfg: int64 parameters
C_R = 0
C_V = 1
C_F = 2
C_N = 3
C_RD = 4
C_CD = 5
C_ARB = 6  # 0 random, 1 round-robin
C_TERM = 7  # 0 papers, 1 window
C_WARM = 8
C_MEAS = 9
C_DLWIN = 10
C_SEED = 11
C_RCODE = 12
C_ADAPT = 13
C_INJVC0 = 14
C_TCODE = 15
C_ICODE = 16
C_MAXCYC = 17
C_MAXPER = 18
C_NQUOTA = 19
C_NSRC = 20
C_RCACHE = 21  # rcache holds routes by (switch, destination)
C_SLEEP = 22  # blocked FIFOs sleep on their output port (0: evaluate every cycle)
C_DONLY = 23  # the routing depends on (switch, destination) only
C_RING = 24  # ring slots per FIFO (max depth - 1)
C_FT = 25  # faults: the engine of sim/faulthop.py (0: fault-free)
C_COLS = 26

# cnt: int64 counters and running state
K_T = 0
K_CREATED = 1
K_INJECTED = 2
K_DELIVERED = 3
K_FLITS_IN = 4
K_FLITS_OUT = 5
K_MOVES = 6  # switch traversals (flit-hops inside the network, ejection included)
K_CONFLICTS = 7
K_MEAS_N = 8
K_LAT_SUM = 9
K_NET_SUM = 10
K_HOPS_SUM = 11
K_LAT_MAX = 12
K_NET_MAX = 13
K_LAST_MOVE = 14
K_DONE_SRC = 15
K_WIN_FLITS_OUT = 16
K_WIN_CREATED = 17  # packets created inside the measurement window
K_QUEUED = 18
K_QSUM = 19
K_QPEAK = 20
K_NACTIVE = 21  # length of the active list
K_FREE = 22  # free pool slots (top of the free stack)
K_ERR_F = 23
K_ERR_PKT = 24
K_WIN_FLITS_CREATED = 25
K_EXCESS = 26  # sum over output ports of max(sleepers - 1, 0)
K_EVALS = 27  # FIFO evaluations (work counter, for benchmarks)
K_UNROUTABLE = 28  # faults: packets the fault-tolerant routing cannot deliver (never injected)
K_LIVELOCK = 29  # faults: packets whose walk hit its hop limit (never injected)
K_WIN_DROPPED = 30  # of those two, created inside the measurement window
K_STALE_DUE = 31  # a stale-FIFO check is due (at the next cycle in which a flit moves)
K_NPEND = 32  # length of the pending list (nodes that may inject; idle ones leave lazily)
K_COLS = 33

# kernel status
ST_CHUNK = 0
ST_DONE = 1
ST_GROW_QUEUE = 2
ST_GROW_POOL = 3
ST_DEADLOCK = 4
ST_NOROUTE = 5
ST_CAP = 6
ST_MISROUTE = 7  # a head flit ejected at a node other than its destination
ST_STALE = 8  # some head has not moved for the deadlock window: the engine checks for a cycle

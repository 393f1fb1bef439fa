"""A slow, obviously-correct pure-Python simulator of the same model (small networks).

It shares nothing with the numba kernel but the routing functions and the setup
(configuration, pattern and process binding): every input FIFO is a ``deque``,
every FIFO is evaluated every cycle in index order, requests are plain lists and
every random decision is recomputed from :func:`fattree.traffic.rng.py_hash3`.
Because all randomness is a function of ``(seed, cycle, ids)``, the kernel (which
visits only busy or awake FIFOs, in any order) must produce *identical* numbers;
``tests/sim/test_reference.py`` checks that. See docs/simulator.md.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace

import numpy as np

from ..routing import compile_routing, next_vc, route_ports
from ..traffic import make_process, make_traffic
from ..traffic.injection import I_BERNOULLI, I_BURSTY, I_EXACT, I_TRACE
from ..traffic.patterns import T_HOTSPOT, T_TABLE, T_TRACE
from ..traffic.rng import (
    S_ARB_IN,
    S_ARB_OUT,
    S_BURST,
    S_BURST_SEND,
    S_CREATE,
    S_DEST,
    S_DEST_HOT,
    S_EXACT_M,
    S_EXACT_PICK,
    py_bernoulli,
    py_hash3,
    py_randint,
)
from .config import SimConfig
from .engine import _config, _topology, fault_mask
from ..faults.view import fault_router
from .result import percentile

MAX_FIFOS = 20_000  # the reference is for small networks only


def _dest(tr, n, src, seq, seed):
    ip, tab = tr.iparams, tr.table
    if tr.code == T_TABLE:
        return int(tab[src])
    if tr.code == T_TRACE:
        return int(tab[n + 1 + tab[src] + seq])
    if (
        tr.code == T_HOTSPOT
        and src != ip[0]
        and py_bernoulli(seed, S_DEST_HOT, src, seq, int(ip[1]))
    ):
        return int(ip[0])
    if ip[2]:
        return py_randint(seed, S_DEST, src, seq, n)
    d = py_randint(seed, S_DEST, src, seq, n - 1)
    return d + 1 if d >= src else d


def _creators(pr, src_ids, t, seed, burst_state, exact_mark, trace_ptr):
    ip = [int(x) for x in pr.iparams]
    out = []
    if pr.code == I_BERNOULLI:
        out = [i for i in src_ids if py_bernoulli(seed, S_CREATE, t, i, ip[0])]
    elif pr.code == I_EXACT:
        na = len(src_ids)
        m = min(ip[0] + (1 if py_bernoulli(seed, S_EXACT_M, t, 0, ip[1]) else 0), na)
        chosen: set[int] = set()
        for j in range(na - m, na):  # Floyd's algorithm
            r = py_randint(seed, S_EXACT_PICK, t, j, j + 1)
            r = j if r in chosen else r
            chosen.add(r)
            out.append(src_ids[r])
    elif pr.code == I_BURSTY:
        for i in src_ids:
            if burst_state[i]:
                if py_bernoulli(seed, S_BURST, t, i, ip[0]):
                    burst_state[i] = 0
            elif py_bernoulli(seed, S_BURST, t, i, ip[1]):
                burst_state[i] = 1
            if burst_state[i] and py_bernoulli(seed, S_BURST_SEND, t, i, ip[2]):
                out.append(i)
    elif pr.code == I_TRACE:
        tab = pr.table
        m = int(tab[0])
        while trace_ptr[0] < m and tab[1 + trace_ptr[0]] <= t:
            out.append(int(tab[1 + m + trace_ptr[0]]))
            trace_ptr[0] += 1
    return out


def simulate_reference(topology, config: SimConfig | None = None, **params) -> dict:
    """Run the reference model; returns the metrics the kernel must match exactly.

    Examples
    --------
    >>> r = simulate_reference("kant:k=2,n=2", load=0.2, packets_per_source=5, seed=3)
    >>> r["created"] == r["delivered"] + r["queued"] + r["in_flight"]
    True

    References
    ----------
    000 §V.B; docs/simulator.md ("The reference simulator").
    """
    topo = _topology(topology)
    cfg = _config(config, params)
    # faults: every packet follows the whole route its source walks at injection
    # (FaultRouter.route: the walk loop, VC classes of the whole route); the kernel asks
    # the per-hop kernel at each switch with the state in the header (sim/faulthop.py),
    # so equal results check the hop-by-hop kernel against the walks
    ft = (
        fault_router(topo, cfg.algorithm, fault_mask(topo, cfg), cfg.vcs, cfg.fault_model)
        if cfg.faulted
        else None
    )
    ft_routes: dict[tuple[int, int], tuple] = {}  # (src, dst) -> FaultRouter.route
    cr = compile_routing(topo, None if ft else cfg.algorithm, seed=cfg.seed)
    tr = make_traffic(cfg.traffic, topo.n_nodes, seed=cfg.seed, topology=topo)
    pr = make_process(cfg.injection, tr, cfg.load, cfg.packet_flits, seed=cfg.seed)
    if tr.timed:
        cfg = cfg.for_trace(int(tr.trace[0].max()))
    cfg = replace(cfg, algorithm=cr.algorithm)
    N, S, R, V, F = topo.n_nodes, topo.n_switches, topo.max_ports, cfg.vcs, cfg.packet_flits
    if S * R * V > MAX_FIFOS:
        raise ValueError(f"the reference simulator is for small networks (<= {MAX_FIFOS} FIFOs)")
    seed, RD, CD = cfg.seed, cfg.router_delay, cfg.credit_delay
    peer, back = topo.port_peer.astype(int), topo.port_peer_port.astype(int)
    level = topo.switch_level.astype(int)
    b0 = cfg.buffer if cfg.buffer_level0 is None else cfg.buffer_level0
    window = cfg.termination == "window"
    warm, wend = cfg.warmup, cfg.warmup + cfg.measure
    cap_cycles = cfg.cycle_cap
    dlwin = cfg.deadlock_window + RD + CD
    injvc = 1 if cr.vcs_required > 1 else V
    peer32 = np.ascontiguousarray(topo.port_peer, np.int32)
    cand = np.zeros(R + 1, np.int64)

    def fid(sw, p, v):
        return (sw * R + p) * V + v

    # input FIFOs of used ports: contents, depth, the packet's held output, flit index
    fifo = {}
    depth = {}
    held = {}  # f -> (out port, out vc) of the packet at the head
    fidx = {}
    for sw in range(S):
        for p in range(R):
            if peer[sw, p] >= 0:
                for v in range(V):
                    f = fid(sw, p, v)
                    fifo[f] = deque()
                    depth[f] = b0 if level[sw] == 0 else cfg.buffer
                    fidx[f] = 0
    order = sorted(fifo)
    # credits at each sender: output (sw, port, vc) of a switch, or (node, vc)
    credit = {}
    owner = {}
    for sw in range(S):
        for p in range(R):
            u = peer[sw, p]
            for v in range(V):
                owner[(sw, p, v)] = None
                if u >= N:
                    credit[(sw, p, v)] = depth[fid(u - N, back[sw, p], v)]
    node_credit = {
        (i, v): depth[fid(int(topo.node_switch[i]), int(topo.node_port[i]), v)]
        for i in range(N)
        for v in range(V)
    }

    def sender(f):
        sw, rem = divmod(f, R * V)
        p, v = divmod(rem, V)
        u = peer[sw, p]
        return ("node", u, v) if u < N else ("sw", u - N, back[sw, p], v)

    def give_credit(f):
        s = sender(f)
        if s[0] == "node":
            node_credit[(s[1], s[2])] += 1
        else:
            credit[(s[1], s[2], s[3])] += 1

    src_ids = [int(i) for i in np.flatnonzero(tr.active)]
    if tr.timed:
        counts = np.diff(tr.table[: N + 1])
        quota = {i: min(int(counts[i]), cfg.packets_per_source) for i in range(N)}
    else:
        quota = {i: (cfg.packets_per_source if tr.active[i] else 0) for i in range(N)}
    nquota = sum(1 for v in quota.values() if v > 0)
    burst_state = [int(x) for x in pr.state] if pr.code == I_BURSTY else []
    trace_ptr = [0]
    queue = {i: deque() for i in range(N)}
    nseq = dict.fromkeys(range(N), 0)
    injecting = {}  # node -> [packet, flits sent, vc]
    packets = {}
    next_pid = 0
    dfirst = dict.fromkeys(range(N), 0)
    rr_out = {}
    rr_in = {}
    pending = []  # (due cycle, fifo) of credits travelling back
    lat, net, hops = [], [], []
    st = dict(
        created=0,
        injected=0,
        delivered=0,
        flits_in=0,
        flits_out=0,
        moves=0,
        conflicts=0,
        win_created=0,
        win_flits_created=0,
        win_flits_out=0,
        qsum=0,
        qpeak=0,
        unroutable=0,
        livelock=0,
        win_dropped=0,
    )
    lvl_flits = [0] * (int(level.max()) + 2)
    done_src = 0
    last_move = 0
    status = "cap"
    t = 0
    while t < cap_cycles:
        for _due, f in [x for x in pending if x[0] == t]:
            give_credit(f)
        pending = [x for x in pending if x[0] != t]
        # creation
        made = _creators(pr, src_ids, t, seed, burst_state, None, trace_ptr)
        for i in made:
            queue[i].append(t)
            st["qpeak"] = max(st["qpeak"], len(queue[i]))
        st["created"] += len(made)
        if window and warm <= t < wend:
            st["win_created"] += len(made)
            st["win_flits_created"] += len(made) * F
        # injection
        for i in src_ids:
            if i not in injecting:
                if not queue[i]:
                    continue
                vs = [v for v in range(injvc) if node_credit[(i, v)] > 0]
                if not vs:
                    continue
                vb = max(vs, key=lambda v: (node_credit[(i, v)], -v))
                tc = queue[i].popleft()
                seq = nseq[i]
                nseq[i] += 1
                dst = _dest(tr, N, i, seq, seed)
                route = None
                if ft is not None:
                    route = ft_routes.get((i, dst))
                    if route is None:
                        route = ft_routes[(i, dst)] = ft.route(i, dst, V)
                if route is not None and route[0] != 0:  # no route: never injected
                    st["unroutable" if route[0] == 1 else "livelock"] += 1
                    if window:
                        st["win_dropped"] += int(warm <= tc < wend)
                    elif seq < quota[i]:
                        dfirst[i] += 1
                        if dfirst[i] == quota[i]:
                            done_src += 1
                    continue
                pid = next_pid
                next_pid += 1
                meas = (warm <= tc < wend) if window else seq < quota[i]
                packets[pid] = dict(
                    src=i, dst=dst, seq=seq, tc=tc, ti=t, hops=1, meas=meas, route=route
                )
                injecting[i] = [pid, 0, vb]
                st["injected"] += 1
            pid, sent, v = injecting[i]
            if node_credit[(i, v)] <= 0:
                continue
            node_credit[(i, v)] -= 1
            fifo[fid(int(topo.node_switch[i]), int(topo.node_port[i]), v)].append([pid, t + 1 + RD])
            st["flits_in"] += 1
            lvl_flits[0] += 1
            injecting[i][1] += 1
            if injecting[i][1] == F:
                del injecting[i]
        # evaluate every FIFO
        demand = {}
        requests = {}  # input port -> [(f, op, out vc)]
        for f in order:
            if not fifo[f] or fifo[f][0][1] > t:
                continue
            sw, rem = divmod(f, R * V)
            ip, vc = divmod(rem, V)
            if f in held:
                port, ov = held[f]
                op = sw * R + port
                demand[op] = demand.get(op, 0) + 1
                if peer[sw, port] >= N and credit[(sw, port, ov)] <= 0:
                    continue
            else:
                pk = packets[fifo[f][0][0]]
                if ft is not None:  # the hop index = links the head has crossed before here
                    hop = pk["hops"] - 1
                    if hop >= len(pk["route"][1]):
                        raise RuntimeError(f"the route ends before {pk} arrives")
                    cand[0], n = pk["route"][1][hop], 1
                else:
                    n = route_ports(
                        cr.code,
                        cr.iparams,
                        cr.table,
                        peer32,
                        sw,
                        ip,
                        pk["src"],
                        pk["dst"],
                        (pk["src"] << 32) + pk["seq"],
                        cand,
                    )
                if n <= 0:
                    raise RuntimeError(f"no route at switch {sw} for {pk}")
                if not cr.adaptive:
                    n = 1
                best = None  # (score, port, vc): the most credits, first candidate, lowest VC
                for port in cand[:n].tolist():
                    if ft is not None:
                        nv = pk["route"][2][hop] if V > 1 else -1
                    else:
                        nv = int(next_vc(cr.code, cr.iparams, sw, ip, vc, port, V)) if V > 1 else -1
                    for v in range(V) if nv < 0 else [nv]:
                        if owner[(sw, port, v)] is not None:
                            continue
                        score = (1 << 30) if peer[sw, port] < N else credit[(sw, port, v)]
                        if score > 0 and (best is None or score > best[0]):
                            best = (score, port, v)
                op = sw * R + (int(cand[0]) if best is None else best[1])
                demand[op] = demand.get(op, 0) + 1
                if best is None:
                    continue
                port, ov = best[1], best[2]
            requests.setdefault(sw * R + ip, []).append((f, sw * R + port, ov))
        st["conflicts"] += sum(d - 1 for d in demand.values() if d > 1)
        # separable allocation: one VC per input port, then one input port per output port
        offers = {}
        for gip, reqs in requests.items():
            if cfg.arbitration == "random":
                f, op, ov = max(reqs, key=lambda r: (py_hash3(seed, S_ARB_IN, t, r[0]), -r[0]))
            else:
                ptr = rr_in.get(gip, 0)
                f, op, ov = min(reqs, key=lambda r: (r[0] % V - ptr) % V)
            offers.setdefault(op, []).append((f, ov, gip % R))
        grants = []
        for op, offs in offers.items():
            if cfg.arbitration == "random":
                g = max(offs, key=lambda o: (py_hash3(seed, S_ARB_OUT, t, op * R + o[2]), -o[2]))
            else:
                ptr = rr_out.get(op, 0)
                g = min(offs, key=lambda o: (o[2] - ptr) % R)
                rr_out[op] = (g[2] + 1) % R
                rr_in[op - op % R + g[2]] = (g[0] % V + 1) % V
            grants.append((op, g[0], g[1]))
        # commit
        for op, f, ov in grants:
            sw, port = divmod(op, R)
            pid, _ready = fifo[f].popleft()
            k = fidx[f]
            fidx[f] = (k + 1) % F
            if CD == 0:
                give_credit(f)
            else:
                pending.append((t + 1 + CD, f))
            pk = packets[pid]
            if k == 0:
                held[f] = (port, ov)
                owner[(sw, port, ov)] = f
                pk["hops"] += 1
            if k == F - 1:
                owner[(sw, port, ov)] = None
                del held[f]
            lvl_flits[1 + level[sw]] += 1
            st["moves"] += 1
            last_move = t
            u = peer[sw, port]
            if u >= N:
                credit[(sw, port, ov)] -= 1
                fifo[fid(u - N, back[sw, port], ov)].append([pid, t + 1 + RD])
                continue
            assert u == pk["dst"], "ejected at a wrong node"
            st["flits_out"] += 1
            if window and warm <= t < wend:
                st["win_flits_out"] += 1
            if k == F - 1:
                st["delivered"] += 1
                if pk["meas"]:
                    lat.append(t - pk["tc"] + 1)
                    net.append(t - pk["ti"] + 1)
                    hops.append(pk["hops"])
                    if not window:
                        dfirst[pk["src"]] += 1
                        if dfirst[pk["src"]] == quota[pk["src"]]:
                            done_src += 1
                del packets[pid]
        st["qsum"] += sum(len(q) for q in queue.values())
        t += 1
        if st["flits_in"] > st["flits_out"] and t - 1 - last_move > dlwin:
            # a deadlock only if every waiting head is ready (sim/deadlock.py global_stall):
            # a packet injected after a long idle spell is not one
            if all(q[0][1] < t for q in fifo.values() if q):
                status = "deadlock"
                break
            last_move = t - 1
            continue
        if window:
            if t >= wend and len(lat) + st["win_dropped"] == st["win_created"]:
                status = "window"
                break
        elif done_src >= nquota:
            status = "papers"
            break
    meas = len(lat)
    hist = np.bincount(np.asarray(lat, np.int64), minlength=1) if lat else np.zeros(1, np.int64)
    return dict(
        cycles=t,
        termination=status,
        deadlock=status == "deadlock",
        created=st["created"],
        injected=st["injected"],
        delivered=st["delivered"],
        queued=sum(len(q) for q in queue.values()),
        in_flight=len(packets),
        measured=meas,
        avg_latency=sum(lat) / meas if meas else math.nan,
        avg_network_latency=sum(net) / meas if meas else math.nan,
        avg_hops=sum(hops) / meas if meas else math.nan,
        max_latency=float(max(lat)) if meas else math.nan,
        p99_latency=percentile(hist, 0.99),
        port_conflicts_per_cycle=st["conflicts"] / max(t, 1),
        flit_hops=st["moves"] + st["flits_in"],
        lvl_flits=lvl_flits,
        max_source_queue=st["qpeak"],
        qsum=st["qsum"],
        unroutable=st["unroutable"],
        livelock=st["livelock"],
    )

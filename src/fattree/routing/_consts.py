"""Integer constants shared by the routing kernels and the Python-side registry.

numba folds module-level integers into compiled code, so these select rules and
policies inside the kernels without any Python dispatch per hop.
"""

# rule families (CompiledRouting.code)
CODE_TABLE = 1  # next-hop table[sw, dst] (shortest, updown, any graph)
CODE_KANT = 2
CODE_CLOS = 3
CODE_MIKANT = 4
CODE_CUBE = 5  # hypercube e-cube / torus dimension order
CODE_HYBRID = 6  # cat, micat, kantc, mikantc
CODE_MIN = 7  # minft, rsminft
CODE_XGFT = 8  # extended generalized fat tree (routing/_xgft.py)

# up-port policies (iparams[IP_POLICY])
POL_ALG1 = 0  # going up from level L set digit L to T_L (000 Algorithm 1)
POL_DMODK = 1  # digit L := T_{L-1}, T_{-1} = T_{n-1}
POL_SMODK = 2  # the same with the source's digits
POL_RANDOM = 3  # one of the adaptive candidates, hashed from (seed, pkt_key, level)
POL_ADAPTIVE = 4  # every up port on a minimal path (crossing: Algorithm 1's)
POL_ALLMIN = 5  # every minimal next hop, root crossings included (needs 2 VCs)
POL_LITERAL000 = 6  # 000's printing of Algorithm 1 taken literally (loops; demo only)
POL_DMODK_BAL = 7  # dmodk, root crossings through the table after the powers of k
POL_BALANCED = 8  # dmodk, root crossings split by a destination digit (routing/_balanced.py)

# iparams layout (int64)
IP_K = 0
IP_N = 1
IP_POLICY = 2
IP_SEED = 3
IP_KN1 = 4  # k**(n-1): switches per stage
IP_NODES = 5
IP_POW = 8  # iparams[IP_POW + i] = k**i for i = 0..n

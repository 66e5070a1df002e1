"""The shape of bloom_empty(capacity, fpp, layout), from doc/layouts.md alone.

The rules of "Sizing" and "How the tail is bounded", step by step, in IEEE
double arithmetic as the page states them, so that check_format.py can
compare them with the server's shapes.  shape(n, fpp, layout) returns
(nbits, nhashes, rows, locators), or None where bloom_empty fails.
"""

import math

Z = 1.6448536269514722          # the standard normal 95th percentile
MAX_K = 64
MAX_WORDS = (0x3FFFFFFF - 64) // 8   # 1 GB less the 64-byte header, in words
EXACT_LOAD_VAR = 400.0


def power_mean(a, u, v):
    """M(a; u, v): E (X/w)^a for a normal X of mean u*w and sd v*w."""
    if u <= 0.0:
        return 0.0
    ratio2 = (v / u) * (v / u)
    term = math.pow(u, a)
    total = term
    j = 0
    while j + 2 <= a:
        step = float(a - j) * float(a - j - 1) / float(j + 2) * ratio2
        term *= step
        total += term
        if step < 1.0 and term <= 1e-17 * total:
            break
        j += 2
    return total


def occupancy(w, t):
    """u = E X / w and v^2 = Var X / w^2 after t uniform throws into w bits."""
    if t <= 0.0:
        return 0.0, 0.0
    q1 = math.exp(t * math.log1p(-1.0 / w))
    pair = math.expm1(t * math.log1p(-1.0 / ((w - 1.0) * (w - 1.0)))) if w > 2.0 else -1.0
    u = -math.expm1(t * math.log1p(-1.0 / w))
    v2 = (w * q1 * (1.0 - q1) + w * (w - 1.0) * q1 * q1 * pair) / (w * w)
    return u, max(v2, 0.0)


def quantile(n, w, blocks, k):
    """Q(n, w, B, k): the rate 95% of filters of the model stay under."""
    values = math.ceil(n)
    pb = 1.0 / blocks
    load_var = values * pb * (1.0 - pb)
    g = g2 = gl = wsum = 0.0
    if values <= 0.0:
        return 0.0

    def add(load, weight):
        nonlocal g, g2, gl, wsum
        u, v2 = occupancy(w, load * k)
        a = weight * power_mean(k, u, math.sqrt(v2))
        b = weight * power_mean(2 * k, u, math.sqrt(v2))
        g += a
        g2 += b
        gl += a * load
        wsum += weight
        return b

    def negligible(share, weight):
        return share < 1e-13 * g2 and weight < 1e-16 * wsum

    if blocks <= 1.0:
        add(values, 1.0)
    elif load_var <= EXACT_LOAD_VAR:
        odds = pb / (1.0 - pb)
        start = math.floor(values * pb)
        weight, last, i = 1.0, math.inf, start
        while i <= values:
            share = add(i, weight)
            if share <= 0.5 * last and negligible(share, weight):
                break
            last = share
            weight *= (values - i) / (i + 1.0) * odds
            i += 1.0
        weight, i = 1.0, start - 1.0
        while i >= 0.0:
            weight *= (i + 1.0) / (values - i) / odds
            if negligible(add(i, weight), weight):
                break
            i -= 1.0
        g, g2, gl = g / wsum, g2 / wsum, gl / wsum
    else:
        mean = values * pb
        slope = -float(k) * math.log1p(-1.0 / w) * math.exp(mean * k * math.log1p(-1.0 / w))
        u, v2 = occupancy(w, mean * k)
        v = math.sqrt(v2 + slope * slope * load_var)
        g = power_mean(k, u, v)
        g2 = power_mean(2 * k, u, v)
        gl = g * mean + slope * load_var * k * power_mean(k - 1, u, v)
    if not g > 0.0:
        return 0.0
    var = g2 - g * g
    if load_var > 0.0:
        cov = gl - g * values * pb
        var -= cov * cov / load_var
    var = max(var, 0.0) / blocks
    s2 = math.log1p(var / (g * g))
    return g * math.exp(Z * math.sqrt(s2) - 0.5 * s2)


def fewest(lo, hi, fits):
    """The fewest units from lo (at least 1) up to hi that fit; None if none."""
    lo = max(lo, 1)
    if lo > hi:
        return None
    top = lo
    while not fits(top):
        if top >= hi:
            return None
        lo = top + 1
        top = hi if top > hi // 2 else 2 * top
    while lo < top:
        mid = lo + (top - lo) // 2
        if fits(mid):
            top = mid
        else:
            lo = mid + 1
    return top


def optimal_bits(n, p):
    return -n * math.log(p) / (math.log(2) * math.log(2))


def classic(n, p):
    k0 = math.log2(1.0 / p)
    ks = sorted({max(1, math.floor(k0)), max(1, math.ceil(k0))})
    best = None
    for k in ks:
        if k > MAX_K:
            continue
        mean_bits = -n * k / math.log1p(-math.pow(p, 1.0 / k))
        lo = min(math.floor(mean_bits / 64.0), MAX_WORDS)
        words = fewest(lo, MAX_WORDS, lambda W: quantile(n, 64.0 * W, 1.0, k) <= p)
        if words is None:
            continue
        if (best is None or words < best[0] or
                (words == best[0] and quantile(n, 64.0 * words, 1.0, k)
                 < quantile(n, 64.0 * words, 1.0, best[1]))):
            best = (words, k)
    return None if best is None else (64 * best[0], best[1], 0, 0)


def best_k_walk(rate, max_k, start):
    """The k of 1 .. max_k with the lowest rate, walking from start."""
    k = min(max(start, 1), max_k)
    best = rate(k)
    step = -1 if k > 1 and rate(k - 1) < best else 1
    while 1 <= k + step <= max_k:
        q = rate(k + step)
        if not q < best:
            break
        best, k = q, k + step
    return best, k


def blocked(n, p):
    max_k = min(MAX_K, math.ceil(math.log2(1.0 / p)))
    max_blocks = MAX_WORDS * 64 // 512
    lo = optimal_bits(n, p) / 512.0
    if not lo <= max_blocks:
        return None
    last = [max(max_k - 1, 1)]

    def best(B):
        q, k = best_k_walk(lambda k: quantile(n, 512.0, float(B), k), max_k, last[0])
        last[0] = k
        return q, k

    nblocks = fewest(math.floor(lo), max_blocks, lambda B: best(B)[0] <= p)
    if nblocks is None:
        return None
    return (512 * nblocks, best(nblocks)[1], 0, 0)


def matrix(n, p):
    s = 2
    rows = 8 if n >= 4096 else 4 if n >= 2048 else 2
    max_k = min(MAX_K, math.ceil(math.log2(2.0 / p)) + 1)

    def rate(W, k):
        w = 64.0 * W
        h = min(w, math.ceil(w / 2.0) - 1.0 + k)
        total = min(math.ceil(n) * k, rows * h)
        full = math.floor(total / h)
        packed = s / rows * (full * math.pow(h / w, k) + math.pow((total - full * h) / w, k))
        if packed > p:
            return math.inf
        return s * quantile(n, w, float(rows), k)

    def best(W):
        q, kk = math.inf, 1
        for k in range(1, max_k + 1):
            r = rate(W, k)
            if r < q:
                q, kk = r, k
        return q, kk

    lo = optimal_bits(n / rows, p / s) / 64.0
    top = (MAX_WORDS - rows) // rows
    if not lo <= top:
        return None
    words = fewest(math.floor(lo), top, lambda W: best(W)[0] <= p)
    if words is None:
        return None
    return (64 * words * rows, best(words)[1], rows, s)


def shape(n, p, layout="classic"):
    reads = 2 if layout == "matrix" else 1
    if math.floor(math.log2(reads / p) + 0.5) > MAX_K:
        return None
    return {"classic": classic, "blocked": blocked, "matrix": matrix}[layout](n, p)

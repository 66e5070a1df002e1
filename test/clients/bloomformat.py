"""The `bloom` binary format, written from doc/format.md alone.

A client-side reader, writer and prober of `bloom` values, kept apart from
the extension's C code on purpose: check_format.py compares what it computes
with what the server computes, so a gap or an error in doc/format.md shows
up as a disagreement.  It needs only the values' 64-bit hashes, which a
client gets from bloom_hash(value, seed); for bigint (and the other 64-bit
integer types) it also computes them itself, as doc/format.md says.
"""

import bisect
import struct

MASK64 = (1 << 64) - 1
HEADER_BYTES = 60
HEADER = struct.Struct("<BBBBQQQIIIIqQ")
CLASSIC, BLOCKED, MATRIX, EXPLICIT = 0, 1, 2, 3
LAYOUT_NAMES = {CLASSIC: "classic", BLOCKED: "blocked", MATRIX: "matrix", EXPLICIT: "explicit"}
BLOCK_BITS = 512
DATA_SIZED = 0x01
TIES_FIRST = 0x02                    # matrix layout only
EXPLICIT_MAX = 240
KNOWN_HASH_SCHEMES = (1, 2, 3)
NEWEST_HASH_SCHEME = 3
WIDE_KEY = 0x2545F4914F6CDD1D


class FormatError(ValueError):
    """A byte string that doc/format.md says a reader must reject."""


def words_for_bits(nbits):
    return (nbits + 63) // 64


def finalizer(x, shifts, multipliers):
    """xor-shift, multiply, xor-shift, multiply, xor-shift (mod 2^64)."""
    x ^= x >> shifts[0]
    x = (x * multipliers[0]) & MASK64
    x ^= x >> shifts[1]
    x = (x * multipliers[1]) & MASK64
    return x ^ (x >> shifts[2])


def mix(x):
    return finalizer(x, (30, 27, 31), (0xBF58476D1CE4E5B9, 0x94D049BB133111EB))


def remix(x):
    return finalizer(x, (31, 27, 33), (0x7FB5D329728EA185, 0x81DADEF4BC2DD44D))


def reduce(x, n):
    return (x * n) >> 64


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK64


def rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF


def hash_uint32_extended(k, seed):
    """PostgreSQL's hash_bytes_uint32_extended (Bob Jenkins' lookup3 on one
    32-bit word), the hash of int2, int4, and of bigints that fit in 32 bits."""
    m32 = 0xFFFFFFFF
    a = b = c = (0x9E3779B9 + 4 + 3923095) & m32
    seed &= MASK64
    if seed:
        a = (a + (seed >> 32)) & m32
        b = (b + (seed & m32)) & m32
        # mix(a, b, c)
        a = (a - c) & m32; a ^= rotl32(c, 4); c = (c + b) & m32
        b = (b - a) & m32; b ^= rotl32(a, 6); a = (a + c) & m32
        c = (c - b) & m32; c ^= rotl32(b, 8); b = (b + a) & m32
        a = (a - c) & m32; a ^= rotl32(c, 16); c = (c + b) & m32
        b = (b - a) & m32; b ^= rotl32(a, 19); a = (a + c) & m32
        c = (c - b) & m32; c ^= rotl32(b, 4); b = (b + a) & m32
    a = (a + (k & m32)) & m32
    # final(a, b, c)
    c ^= b; c = (c - rotl32(b, 14)) & m32
    a ^= c; a = (a - rotl32(c, 11)) & m32
    b ^= a; b = (b - rotl32(a, 25)) & m32
    c ^= b; c = (c - rotl32(b, 16)) & m32
    a ^= c; a = (a - rotl32(c, 4)) & m32
    b ^= a; b = (b - rotl32(a, 14)) & m32
    c ^= b; c = (c - rotl32(b, 24)) & m32
    return (b << 32) | c


def wide64(v, seed):
    """Hash scheme 3: the hash of a 64-bit quantity beyond 32 bits."""
    k = (seed ^ WIDE_KEY) & MASK64
    return mix((mix((v ^ k) & MASK64) + k) & MASK64)


def int8_hash(v, seed, scheme=NEWEST_HASH_SCHEME):
    """The value hash of a bigint (or of the 64-bit quantity of a timestamp,
    time, pg_lsn, xid8 or interval) in a filter of that seed and scheme, as
    an unsigned 64-bit number."""
    v = ((v + (1 << 63)) & MASK64) - (1 << 63)          # the signed 64-bit value
    if scheme >= 3 and not -(1 << 31) <= v < (1 << 31):
        return wide64(v & MASK64, seed)
    lo, hi = v & 0xFFFFFFFF, (v >> 32) & 0xFFFFFFFF
    return hash_uint32_extended(lo ^ (hi if v >= 0 else ~hi & 0xFFFFFFFF), seed)


def int128_hash(v, seed):
    """Hash scheme 3: an interval's span v (up to 128 bits, signed)."""
    if -(1 << 63) <= v < (1 << 63):
        return int8_hash(v, seed, 3)
    return wide64(v & MASK64, wide64((v >> 64) & MASK64, seed))


def two_words(h):
    """Step 2 of every hash scheme: h1 and h2 from the value's hash h."""
    h &= MASK64                      # bloom_hash returns it as a signed bigint
    h1 = mix((h + 0x9E3779B97F4A7C15) & MASK64)
    h2 = mix(h ^ 0xC2B2AE3D27D4EB4F) | 1
    return h1, h2


def position_word(h1, h2, i):
    """Hash schemes 2 and 3: the value's i-th independent position word."""
    return mix((h1 + i * h2) & MASK64)


def independent_positions(h1, h2, k, n):
    """Hash schemes 2 and 3: k positions in [0, n), one from each position word."""
    return [reduce(position_word(h1, h2, i), n) for i in range(k)]


def double_hashing(h1, h2, k, n):
    """The enhanced double hashing sequence of the classic layout, in [0, n)."""
    x, y = h1, h2
    out = []
    for i in range(k):
        out.append(reduce(x, n))
        x = (x + y) & MASK64
        y = (y + i) & MASK64
    return out


class Bloom:
    """One filter: the header fields by their names in doc/format.md, and the bits."""

    def __init__(self, layout, nbits, nhashes, seed=0, rows=0, locators=0, flags=0):
        self.version = 1
        self.layout = layout
        self.hash_scheme = NEWEST_HASH_SCHEME
        self.flags = flags
        self.nbits = nbits
        self.seed = seed & MASK64
        self.inserted = 0
        self.nhashes = nhashes
        self.rows = rows
        self.locators = locators
        self.full_at = -1
        self.words = [0] * words_for_bits(nbits)

    # -- the byte form -----------------------------------------------------

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        if len(data) < HEADER_BYTES:
            raise FormatError("%d bytes is shorter than the header" % len(data))
        (version, layout, scheme, flags, nbits, seed, inserted, nhashes, rows,
         locators, reserved1, full_at, reserved2) = HEADER.unpack_from(data)
        if version != 1:
            raise FormatError("unknown version %d" % version)
        if scheme not in KNOWN_HASH_SCHEMES:
            raise FormatError("hash scheme %d is not described in doc/format.md" % scheme)
        if layout not in LAYOUT_NAMES:
            raise FormatError("unknown layout %d" % layout)
        known = DATA_SIZED | (TIES_FIRST if layout == MATRIX else 0)
        if flags & ~known or reserved1 or reserved2:
            raise FormatError("unknown flags or non-zero reserved fields")
        if layout == EXPLICIT:
            if nbits % 64 or nbits // 64 > EXPLICIT_MAX or nhashes or not flags & 0x01:
                raise FormatError("not a list of at most 240 hashes, k 0, data-sized")
        elif not 1 <= nbits <= 8589934016 or not 1 <= nhashes <= 64:
            raise FormatError("nbits or nhashes out of range")
        if len(data) != HEADER_BYTES + 8 * words_for_bits(nbits):
            raise FormatError("length %d does not match nbits %d" % (len(data), nbits))
        f = cls(layout, nbits, nhashes, seed, rows, locators)
        f.version, f.hash_scheme, f.flags = version, scheme, flags
        f.inserted, f.full_at = inserted, full_at
        f.words = list(struct.unpack_from("<%dQ" % len(f.words), data, HEADER_BYTES))
        tail = nbits % 64
        if tail and f.words[-1] >> tail:
            raise FormatError("bits at positions >= nbits are set")
        f._check_layout()
        return f

    def _check_layout(self):
        if self.layout == BLOCKED and self.nbits % BLOCK_BITS:
            raise FormatError("blocked nbits %d is not a multiple of 512" % self.nbits)
        if self.layout == MATRIX:
            r, s = self.rows, self.locators
            if r < 1 or not 1 <= s <= 64 or s > r or self.nbits % r:
                raise FormatError("bad matrix shape r=%d s=%d nbits=%d" % (r, s, self.nbits))
            if self.full_at != -1 and not 0 <= self.full_at < self.inserted:
                raise FormatError("full_at %d is neither -1 nor below inserted" % self.full_at)
        elif self.rows or self.locators or self.full_at != -1:
            raise FormatError("rows, locators and full_at belong to the matrix layout")
        if self.layout == EXPLICIT and any(a >= b for a, b in zip(self.words, self.words[1:])):
            raise FormatError("the listed hashes do not ascend strictly")

    def to_bytes(self):
        head = HEADER.pack(self.version, self.layout, self.hash_scheme, self.flags,
                           self.nbits, self.seed, self.inserted, self.nhashes,
                           self.rows, self.locators, 0, self.full_at, 0)
        return head + struct.pack("<%dQ" % len(self.words), *self.words)

    # -- bits ----------------------------------------------------------------

    def test_bit(self, i):
        return (self.words[i // 64] >> (i % 64)) & 1

    def set_bit(self, i):
        self.words[i // 64] |= 1 << (i % 64)

    def bits_set(self):
        return sum(bin(w).count("1") for w in self.words)

    # -- positions, by layout -----------------------------------------------

    def _positions(self, h1, h2, n):
        """The k positions in [0, n) under the filter's hash scheme."""
        if self.hash_scheme in (2, 3):
            return independent_positions(h1, h2, self.nhashes, n)
        return double_hashing(h1, h2, self.nhashes, n)

    def _blocked_bits(self, h1, h2):
        block = reduce(h1, self.nbits // BLOCK_BITS)
        if self.hash_scheme in (2, 3):
            return [block * BLOCK_BITS +
                    ((position_word(h1, h2, i // 7 + 1) >> (9 * (i % 7))) & 511)
                    for i in range(self.nhashes)]
        x = h2 >> 1
        out = []
        for i in range(self.nhashes):
            p = x & 511
            x >>= 9
            if (i + 1) % 7 == 0 and i + 1 < self.nhashes:
                x = remix((x + h2) & MASK64)
            out.append(block * BLOCK_BITS + p)   # word 8b + p//64, bit p mod 64
        return out

    def _matrix_rows(self):
        return self.nbits // self.rows

    def _group(self, i):
        """Group i's first row and size: s groups as even as possible."""
        q, e = divmod(self.rows, self.locators)
        return i * q + min(i, e), q + (1 if i < e else 0)

    def _candidates(self, h1, h2):
        b = mix(h1 ^ rotl(h2, 29))
        out = []
        for i in range(self.locators):
            first, size = self._group(i)
            out.append(first + reduce(mix((b + (i + 1) * 0x9E3779B97F4A7C15) & MASK64), size))
        return out

    def _row_count(self, row):
        row_bits = self._matrix_rows()
        return sum(self.test_bit(row * row_bits + j) for j in range(row_bits))

    def _matrix_add(self, h1, h2):
        row_bits = self._matrix_rows()
        pos = self._positions(h1, h2, row_bits)
        cands = self._candidates(h1, h2)
        new = [sum(1 for p in pos if not self.test_bit(c * row_bits + p)) for c in cands]
        if 0 not in new:
            counts = [self._row_count(c) for c in cands]
            open_ = [i for i, c in enumerate(cands) if 2 * counts[i] < row_bits]
            if open_:
                if self.flags & TIES_FIRST:
                    pick = min(open_, key=lambda i: (new[i], i))
                else:
                    pick = min(open_, key=lambda i: (new[i], counts[i], i))
            else:
                if self.full_at == -1:
                    self.full_at = self.inserted
                pick = min(range(len(cands)), key=lambda i: (counts[i], i))
            for p in pos:
                self.set_bit(cands[pick] * row_bits + p)

    def add_hash(self, h):
        if self.layout == EXPLICIT:
            # a list: the value's hash itself, kept sorted (a client that
            # goes past 240 values must build the bit array the doc describes)
            h &= MASK64
            i = bisect.bisect_left(self.words, h)
            if i == len(self.words) or self.words[i] != h:
                if len(self.words) == EXPLICIT_MAX:
                    raise FormatError("a list holds at most 240 hashes")
                self.words.insert(i, h)
                self.nbits = 64 * len(self.words)
            self.inserted = min(self.inserted + 1, MASK64)
            return
        h1, h2 = two_words(h)
        if self.layout == CLASSIC:
            for p in self._positions(h1, h2, self.nbits):
                self.set_bit(p)
        elif self.layout == BLOCKED:
            for p in self._blocked_bits(h1, h2):
                self.set_bit(p)
        else:
            self._matrix_add(h1, h2)
        self.inserted = min(self.inserted + 1, MASK64)

    def contains_hash(self, h):
        if self.layout == EXPLICIT:
            h &= MASK64
            i = bisect.bisect_left(self.words, h)
            return i < len(self.words) and self.words[i] == h
        h1, h2 = two_words(h)
        if self.layout == CLASSIC:
            return all(self.test_bit(p) for p in self._positions(h1, h2, self.nbits))
        if self.layout == BLOCKED:
            return all(self.test_bit(p) for p in self._blocked_bits(h1, h2))
        row_bits = self._matrix_rows()
        pos = self._positions(h1, h2, row_bits)
        return any(all(self.test_bit(c * row_bits + p) for p in pos)
                   for c in self._candidates(h1, h2))

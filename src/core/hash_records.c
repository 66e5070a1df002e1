/*
 * hash_records.c
 *	  Sorting, deduplication and merge heap of hash records: see
 *	  hash_records.h.
 */
#include "hash_records.h"

#include "little_endian.h"
#include "radix_sort.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * Records of any width
 * --------------------------------------------------------------------- */

static inline void
swap_records(uint64_t *a, uint64_t *b, int width)
{
	for (int i = 0; i < width; i++)
	{
		uint64_t	t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

static void
sort_wide(uint64_t *a, size_t n, int width)
{
	uint64_t	pivot[BF_RECORD_MAX_WIDTH];

	while (n > 1)
	{
		size_t		lt = 0,
					i = 0,
					gt = n;
		const uint64_t *x = a,
				   *y = a + (n / 2) * width,
				   *z = a + (n - 1) * width,
				   *m;

		/* median of three as the pivot, copied out since records move */
		if (bf_record_cmp(x, y, width) < 0)
			m = bf_record_cmp(y, z, width) < 0 ? y : (bf_record_cmp(x, z, width) < 0 ? z : x);
		else
			m = bf_record_cmp(x, z, width) < 0 ? x : (bf_record_cmp(y, z, width) < 0 ? z : y);
		memcpy(pivot, m, sizeof(uint64_t) * width);

		while (i < gt)
		{
			int			c = bf_record_cmp(a + i * width, pivot, width);

			if (c < 0)
				swap_records(a + (i++) * width, a + (lt++) * width, width);
			else if (c > 0)
				swap_records(a + i * width, a + (--gt) * width, width);
			else
				i++;
		}
		if (lt < n - gt)
		{
			sort_wide(a, lt, width);
			a += gt * width;
			n -= gt;
		}
		else
		{
			sort_wide(a + gt * width, n - gt, width);
			n = lt;
		}
	}
}

void
bf_records_sort(uint64_t *recs, size_t n, int width)
{
	if (width == 1 && n <= UINT32_MAX)
		bf_radix_sort_u64(recs, n, NULL);
	else
		sort_wide(recs, n, width);
}

size_t
bf_records_unique(uint64_t *recs, size_t n, int width)
{
	size_t		out = 0;

	if (n == 0)
		return 0;
	if (width == 1)
	{
		for (size_t i = 1; i < n; i++)
			if (recs[i] != recs[out])
				recs[++out] = recs[i];
		return out + 1;
	}
	for (size_t i = 1; i < n; i++)
	{
		if (bf_record_cmp(recs + i * width, recs + out * width, width) != 0)
		{
			out++;
			if (out != i)
				memcpy(recs + out * width, recs + i * width, sizeof(uint64_t) * width);
		}
	}
	return out + 1;
}

/*
 * Merges the sorted, distinct records recs[0..np) and tail[0..nt) into
 * recs, dropping the records both hold; returns the merged count.  tail
 * lies at or after recs + np + nt.  The merge runs from the back: the next
 * record written goes at out - 1 >= i + j - 1, so it never overwrites a
 * record of recs not yet read, nor any of tail.
 */
static size_t
merge_from_back(uint64_t *recs, size_t np, const uint64_t *tail, size_t nt, int width)
{
	size_t		i = np,
				j = nt,
				out = np + nt;
	size_t		rb = sizeof(uint64_t) * width;

	if (width == 1)
	{
		/* branch-free choice: which side runs out first is random */
		while (i > 0 && j > 0)
		{
			uint64_t	p = recs[i - 1],
						q = tail[j - 1];
			bool		take_p = p >= q;

			recs[--out] = take_p ? p : q;
			i -= take_p;
			j -= (!take_p) | (p == q);	/* in both: keep one */
		}
		while (j > 0)
			recs[--out] = tail[--j];
	}
	while (j > 0)
	{
		int			c = i == 0 ? -1 : bf_record_cmp(recs + (i - 1) * width, tail + (j - 1) * width, width);

		out--;
		if (c >= 0)
		{
			i--;
			if (out != i)
				memcpy(recs + out * width, recs + i * width, rb);
			if (c == 0)
				j--;			/* in both: keep one */
		}
		else
			memcpy(recs + out * width, tail + (--j) * width, rb);
	}
	/* recs[0, i) stays; the records dropped left a gap before recs[out, np + nt) */
	if (out > i)
		memmove(recs + i * width, recs + out * width, (np + nt - out) * rb);
	return i + (np + nt - out);
}

/*
 * One-word records with room past them for a copy of the tail: the tail is
 * sorted by the radix sort with that room as scratch (twice as fast as in
 * place), at the end of the room where the merge reads it.
 */
static size_t
sort_unique_u64_roomy(uint64_t *recs, size_t nsorted, size_t n, size_t cap)
{
	size_t		t = n - nsorted;
	uint64_t   *tail = nsorted == 0 ? recs : recs + cap - t;
	size_t		nt;

	if (nsorted == 0)
		bf_radix_sort_u64(recs, n, recs + n);
	else
	{
		/* [cap - t, cap) lies past n: the tail's old place is the scratch */
		memmove(tail, recs + nsorted, t * sizeof(uint64_t));
		bf_radix_sort_u64(tail, t, recs + nsorted);
	}
	nt = bf_records_unique(tail, t, 1);
	return nsorted == 0 ? nt : merge_from_back(recs, nsorted, tail, nt, 1);
}

size_t
bf_records_sort_unique_in(uint64_t *recs, size_t nsorted, size_t n, size_t cap, int width)
{
	uint64_t   *tail = recs + nsorted * width;
	size_t		nt;

	if (nsorted == n)
		return n;
	if (width == 1 && cap - n >= n - nsorted && n - nsorted <= UINT32_MAX)
		return sort_unique_u64_roomy(recs, nsorted, n, cap);
	bf_records_sort(tail, n - nsorted, width);
	nt = bf_records_unique(tail, n - nsorted, width);
	if (nsorted == 0)
		return nt;
	if (cap - (nsorted + nt) >= nt)
	{
		/* the tail moves to the end of the room and merges into the prefix */
		uint64_t   *moved = recs + (cap - nt) * width;

		memmove(moved, tail, nt * sizeof(uint64_t) * width);
		return merge_from_back(recs, nsorted, moved, nt, width);
	}
	bf_records_sort(recs, nsorted + nt, width);
	return bf_records_unique(recs, nsorted + nt, width);
}

size_t
bf_records_sort_unique(uint64_t *recs, size_t nsorted, size_t n, int width)
{
	return bf_records_sort_unique_in(recs, nsorted, n, n, width);
}

/* ---------------------------------------------------------------------
 * Merge heap
 * --------------------------------------------------------------------- */

static inline bool
cursor_less(const BfMergeHeap *h, int a, int b)
{
	return bf_record_cmp(h->cur[a], h->cur[b], h->width) < 0;
}

static void
sift_down(BfMergeHeap *h, int pos)
{
	int			item = h->heap[pos];

	for (;;)
	{
		int			child = 2 * pos + 1;

		if (child >= h->n)
			break;
		if (child + 1 < h->n && cursor_less(h, h->heap[child + 1], h->heap[child]))
			child++;
		if (!cursor_less(h, h->heap[child], item))
			break;
		h->heap[pos] = h->heap[child];
		pos = child;
	}
	h->heap[pos] = item;
}

void
bf_merge_heap_build(BfMergeHeap *h)
{
	for (int i = h->n / 2 - 1; i >= 0; i--)
		sift_down(h, i);
}

void
bf_merge_heap_top_advanced(BfMergeHeap *h)
{
	if (h->cur[h->heap[0]] == NULL)
	{
		h->heap[0] = h->heap[--h->n];
		if (h->n == 0)
			return;
	}
	sift_down(h, 0);
}

/* ---------------------------------------------------------------------
 * Packed form
 * --------------------------------------------------------------------- */

#define PACK_K_BITS		6		/* a block's k, 0..63 */

static inline uint64_t
low_bits(uint64_t v, int n)
{
	return n >= 64 ? v : v & ((UINT64_C(1) << n) - 1);
}

size_t
bf_pack_bound(uint64_t n, int width)
{
	double		blocks = ceil((double) n / BF_PACK_BLOCK);
	double		bits;

	if (n == 0)
		return 1;

	/*
	 * A block of c records with span s (last word 0 minus the one before
	 * the block) gets k <= log2(1 + s/c), and its unary parts add up to less
	 * than 2c, so it takes less than c (3 + k) bits plus its k.  Over all
	 * blocks, sum c log2(1 + s/c) <= n log2(1 + 2^64/n) (the spans add up
	 * to less than 2^64; log-sum inequality).  Then the other words, the
	 * padding, and a margin for rounding.
	 */
	bits = blocks * PACK_K_BITS + (double) n * (3.0 + log2(1.0 + ldexp(1.0, 64) / (double) n))
		+ (double) n * 64.0 * (width - 1);
	bits = bits * (1.0 + 1e-9) + 64.0;
	if (bits / 8.0 >= (double) (SIZE_MAX / 2))
		return SIZE_MAX;
	return (size_t) (bits / 8.0) + 2;
}

void
bf_pack_init(BfPackWriter *w, int width, uint64_t *block, uint8_t *out, size_t cap)
{
	*w = (BfPackWriter) {.out = out, .cap = cap, .width = width, .block = block};
}

/* Writes the whole bytes of the pending bits. */
static inline void
flush_bytes(BfPackWriter *w)
{
	int			nbytes = w->nacc >> 3;

	if (w->len + 8 <= w->cap)
		bf_put_le64(w->out + w->len, w->acc);	/* beyond nbytes: rewritten later */
	else if (w->len + nbytes <= w->cap)
	{
		for (int i = 0; i < nbytes; i++)
			w->out[w->len + i] = (uint8_t) (w->acc >> (8 * i));
	}
	else
	{
		w->failed = true;
		w->acc = 0;
		w->nacc = 0;
		return;
	}
	w->len += nbytes;
	w->acc = nbytes == 8 ? 0 : w->acc >> (8 * nbytes);
	w->nacc &= 7;
}

/* Appends the low n bits of v, n <= 56. */
static inline void
put_bits(BfPackWriter *w, uint64_t v, int n)
{
	w->acc |= low_bits(v, n) << w->nacc;
	w->nacc += n;
	if (w->nacc >= 8)
		flush_bytes(w);
}

/* Appends the low n bits of v, n <= 64. */
static inline void
put_wide(BfPackWriter *w, uint64_t v, int n)
{
	if (n > 32)
	{
		put_bits(w, v, 32);
		v >>= 32;
		n -= 32;
	}
	put_bits(w, v, n);
}

/* q in unary: q zero bits, then a one. */
static inline void
put_unary(BfPackWriter *w, uint64_t q)
{
	while (q >= 32)
	{
		put_bits(w, 0, 32);
		q -= 32;
	}
	put_bits(w, UINT64_C(1) << q, (int) q + 1);
}

/* Rice parameter for c gaps spanning span: floor(log2(mean gap)), or 0. */
static int
block_k(uint64_t span, size_t c)
{
	uint64_t	mean = span / c;

	return mean == 0 ? 0 : 63 - __builtin_clzll(mean);
}

void
bf_pack_flush_block(BfPackWriter *w)
{
	int			width = w->width;
	size_t		c = w->nblock;
	int			k;

	if (c == 0)
		return;
	/* ascending and distinct, also across blocks */
	for (size_t i = 0; i < c; i++)
	{
		const uint64_t *rec = w->block + i * width;

		if (w->count + i > 0 && bf_record_cmp(rec, i > 0 ? rec - width : w->last, width) <= 0)
			w->failed = true;
	}
	if (w->failed)
	{
		w->nblock = 0;
		return;
	}
	k = block_k(w->block[(c - 1) * width] - w->prev, c);
	put_bits(w, (uint64_t) k, PACK_K_BITS);
	for (size_t i = 0; i < c; i++)
	{
		const uint64_t *rec = w->block + i * width;
		uint64_t	gap = rec[0] - w->prev;

		put_unary(w, gap >> k);
		put_wide(w, gap, k);
		for (int j = 1; j < width; j++)
			put_wide(w, rec[j], 64);
		w->prev = rec[0];
	}
	memcpy(w->last, w->block + (c - 1) * width, sizeof(uint64_t) * width);
	w->count += c;
	w->nblock = 0;
}

bool
bf_pack_finish(BfPackWriter *w)
{
	bf_pack_flush_block(w);
	if (w->nacc > 0)
		put_bits(w, 0, 8 - w->nacc);
	return !w->failed;
}

void
bf_unpack_init(BfPackReader *r, const uint8_t *in, size_t len, int width, uint64_t count)
{
	*r = (BfPackReader) {.in = in, .len = len, .width = width, .remaining = count};
}

/* Reads whole bytes until at least 57 bits wait, or the input ends. */
static inline void
refill(BfPackReader *r)
{
	if (r->pos + 8 <= r->len)
	{
		int			take = (64 - r->nacc) >> 3;

		/* only the bytes taken: the bits above nacc stay zero */
		r->acc |= low_bits(bf_get_le64(r->in + r->pos), 8 * take) << r->nacc;
		r->pos += take;
		r->nacc += 8 * take;
		return;
	}
	while (r->nacc <= 56 && r->pos < r->len)
	{
		r->acc |= (uint64_t) r->in[r->pos++] << r->nacc;
		r->nacc += 8;
	}
}

/* The next n bits (n <= 56) into *v; false if the input ends first. */
static inline bool
get_bits(BfPackReader *r, int n, uint64_t *v)
{
	if (r->nacc < n)
		refill(r);
	if (r->nacc < n)
		return false;
	*v = low_bits(r->acc, n);
	r->acc = n >= 64 ? 0 : r->acc >> n;
	r->nacc -= n;
	return true;
}

static inline bool
get_wide(BfPackReader *r, int n, uint64_t *v)
{
	uint64_t	hi;

	if (n <= 32)
		return get_bits(r, n, v);
	if (!get_bits(r, 32, v) || !get_bits(r, n - 32, &hi))
		return false;
	*v |= hi << 32;
	return true;
}

/* A unary number no larger than limit into *q. */
static inline bool
get_unary(BfPackReader *r, uint64_t limit, uint64_t *q)
{
	uint64_t	zeros = 0;

	for (;;)
	{
		int			tz;

		if (r->nacc == 0)
			refill(r);
		if (r->nacc == 0)
			return false;
		if (r->acc == 0)
		{
			/* bits above nacc are always zero, so these nacc bits are zeros */
			zeros += r->nacc;
			r->nacc = 0;
			if (zeros > limit)
				return false;
			continue;
		}
		tz = __builtin_ctzll(r->acc);
		zeros += tz;
		r->acc = tz == 63 ? 0 : r->acc >> (tz + 1);
		r->nacc -= tz + 1;
		*q = zeros;
		return zeros <= limit;
	}
}

/* One record into out; false if the input is damaged. */
static bool
unpack_one(BfPackReader *r, uint64_t *out)
{
	uint64_t	q,
				low,
				gap,
				prev = r->have_last ? r->last[0] : 0;

	if (r->left_in_block == 0)
	{
		uint64_t	k;

		if (!get_bits(r, PACK_K_BITS, &k))
			return false;
		r->k = (int) k;
		r->left_in_block = BF_PACK_BLOCK;
	}
	if (!get_unary(r, UINT64_MAX >> r->k, &q) || !get_wide(r, r->k, &low))
		return false;
	gap = (q << r->k) | low;
	if (gap > UINT64_MAX - prev)
		return false;
	out[0] = prev + gap;
	for (int j = 1; j < r->width; j++)
		if (!get_wide(r, 64, &out[j]))
			return false;
	if (r->have_last && bf_record_cmp(out, r->last, r->width) <= 0)
		return false;
	memcpy(r->last, out, sizeof(uint64_t) * r->width);
	r->have_last = true;
	r->left_in_block--;
	r->remaining--;
	return true;
}

int64_t
bf_unpack(BfPackReader *r, uint64_t *out, size_t max)
{
	size_t		n = 0;

	while (n < max && r->remaining > 0)
	{
		if (!unpack_one(r, out + n * r->width))
			return -1;
		n++;
	}
	return (int64_t) n;
}

bool
bf_unpack_done(const BfPackReader *r)
{
	return r->remaining == 0 && r->pos == r->len && r->nacc < 8 && r->acc == 0;
}

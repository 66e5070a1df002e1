/*
 * multibloom.c
 *	  The multi-attribute Bloom filter in plain C: see multibloom.h.
 *	  Every part is a bloom filter of filter.h; this file only arranges
 *	  them, combines the attributes' hashes for the verification filter, and
 *	  reads and writes the container.
 */
#include "multibloom.h"

#include <string.h>

/* Offsets in the binary format (doc/multibloom.md). */
enum
{
	MW_VERSION = 0, MW_NATTRS = 1, MW_FLAGS = 2, MW_RESERVED0 = 3,
	MW_ROWS = 4, MW_RESERVED1 = 12, MW_LENGTHS = MULTIBLOOM_WIRE_FIXED_BYTES
};

/* The container header: every field of MultiBloom before the offsets. */
#define CONTAINER_FIELD(name, offset)	BF_LE_FIELD(MultiBloom, name, offset)

static const BfLeField container_fields[] = {
	CONTAINER_FIELD(version, MW_VERSION),
	CONTAINER_FIELD(nattrs, MW_NATTRS),
	CONTAINER_FIELD(flags, MW_FLAGS),
	CONTAINER_FIELD(reserved0, MW_RESERVED0),
	CONTAINER_FIELD(rows, MW_ROWS),
	CONTAINER_FIELD(reserved1, MW_RESERVED1),
};

static const BfLeHeader container = {
	"multibloom", MULTIBLOOM_WIRE_FIXED_BYTES,
	(int) (sizeof(container_fields) / sizeof(container_fields[0])), container_fields
};

static uint64_t
wire_header_bytes(int nattrs)
{
	return MULTIBLOOM_WIRE_FIXED_BYTES + 8 * (uint64_t) (nattrs + 1);
}

/* "attribute 2" or "verification filter", for messages. */
static void
part_name(int i, int nattrs, char *buf, size_t len)
{
	if (i == nattrs)
		snprintf(buf, len, "verification filter");
	else
		snprintf(buf, len, "attribute %d", i + 1);
}

/* errbuf = "<part>: <inner message>" (inner is cut to fit). */
static void
part_error(char *errbuf, int i, int nattrs, const char *inner)
{
	char		name[32];

	part_name(i, nattrs, name, sizeof(name));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE, "%s: %.400s", name, inner);
}

/*
 * Parts are bit arrays: multibloom_add inserts into them in place, which a
 * list of hashes, whose size grows, cannot take.
 */
static bool
part_layout_check(uint8_t layout, int i, int nattrs, char *errbuf)
{
	char		name[32];

	if (bf_layout_interop(layout))
	{
		/* other systems' bits hash the value alone, not a row's attributes */
		part_name(i, nattrs, name, sizeof(name));
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%s is of the foreign layout \"%s\"; the parts of a multibloom are native bit arrays",
				 name, bf_layout_name(layout));
		return false;
	}
	if (layout != BLOOM_LAYOUT_EXPLICIT)
		return true;
	part_name(i, nattrs, name, sizeof(name));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE,
			 "%s is an explicit list; the parts of a multibloom are bit arrays", name);
	return false;
}

static bool
nattrs_check(long nattrs, char *errbuf)
{
	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of attributes must be between 1 and %d, not %ld",
				 MULTIBLOOM_MAX_ATTRS, nattrs);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Shapes and sizes
 * --------------------------------------------------------------------- */

bool
mbf_shapes_for(int nattrs, const double *attr_capacity, double row_capacity,
					  double fpp, BloomShape *shapes, char *errbuf)
{
	char		inner[BLOOM_ERRBUF_SIZE];

	if (!nattrs_check(nattrs, errbuf))
		return false;
	for (int i = 0; i <= nattrs; i++)
	{
		double		capacity = i == nattrs ? row_capacity : attr_capacity[i];

		if (!bf_shape_for(capacity, fpp, BLOOM_LAYOUT_CLASSIC, &shapes[i], inner))
		{
			part_error(errbuf, i, nattrs, inner);
			return false;
		}
		shapes[i].seed = mbf_part_seed(i, nattrs);
	}
	return true;
}

bool
mbf_struct_bytes(int nattrs, const BloomShape *shapes, uint64_t *bytes, char *errbuf)
{
	uint64_t	total;
	char		inner[BLOOM_ERRBUF_SIZE];

	if (!nattrs_check(nattrs, errbuf))
		return false;
	total = mbf_header_bytes(nattrs);
	for (int i = 0; i <= nattrs; i++)
	{
		if (!bf_shape_check(&shapes[i], inner))
		{
			part_error(errbuf, i, nattrs, inner);
			return false;
		}
		if (!part_layout_check(shapes[i].layout, i, nattrs, errbuf))
			return false;
		/* each part is below 1 GB and there are at most 33: no overflow */
		total += bf_shape_bytes(&shapes[i]);
	}
	if (total > BLOOM_MAX_ALLOC_BYTES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a multibloom of %d attributes with these sizes needs %llu bytes, more than the 1 GB limit",
				 nattrs, (unsigned long long) total);
		return false;
	}
	*bytes = total;
	return true;
}

void
mbf_init(MultiBloom *mb, int nattrs, const BloomShape *shapes)
{
	uint64_t	off = mbf_header_bytes(nattrs);

	mb->version = MULTIBLOOM_FORMAT_VERSION;
	mb->nattrs = (uint8_t) nattrs;
	mb->flags = 0;
	mb->reserved0 = 0;
	mb->rows = 0;
	mb->reserved1 = 0;
	for (int i = 0; i <= nattrs; i++)
	{
		mb->offsets[i] = off;
		bf_init(mbf_part(mb, i), &shapes[i]);
		off += bf_shape_bytes(&shapes[i]);
	}
}

void
mbf_describe(const MultiBloom *mb, char *buf, size_t len)
{
	size_t		used;

	snprintf(buf, len, "%d attribute%s", mb->nattrs, mb->nattrs == 1 ? "" : "s");
	for (int i = 0; i <= mb->nattrs; i++)
	{
		BloomShape	s;
		char		shape[160];
		char		name[32];

		used = strlen(buf);
		if (used + 1 >= len)
			return;
		bf_get_shape(mbf_part_c(mb, i), &s);
		bf_shape_describe(&s, shape, sizeof(shape));
		part_name(i, mb->nattrs, name, sizeof(name));
		snprintf(buf + used, len - used, "; %s: %s", name, shape);
	}
}

/* ---------------------------------------------------------------------
 * Hashing, insertion and lookup
 * --------------------------------------------------------------------- */

/*
 * A bijective 64-bit mix, taken from the bloom hash derivation so the two
 * stay one scheme: h1 of bf_hash_derive is a full-avalanche bijection.
 */
static inline uint64_t
chain_mix(uint64_t x)
{
	return bf_hash_derive(x).h1;
}

/*
 * c_0 = mix(seed + nattrs), c_i = mix(c_{i-1} XOR h_i).  Each step is a
 * bijection of the new attribute's hash, so rows differing in one attribute
 * get unrelated hashes, and since the state carries the order, permuted rows
 * ((a, b) against (b, a)) do too.  The count enters first, so a row is never
 * confused with its own prefix.
 */
uint64_t
mbf_row_hash(const uint64_t *attr_hashes, int nattrs)
{
	uint64_t	c = chain_mix(MULTIBLOOM_VERIFY_SEED + (uint64_t) nattrs);

	for (int i = 0; i < nattrs; i++)
		c = chain_mix(c ^ attr_hashes[i]);
	return c;
}

bool
mbf_add_row(MultiBloom *mb, const uint64_t *attr_hashes, const bool *isnull)
{
	bool		changed = false;
	bool		complete = true;

	for (int i = 0; i < mb->nattrs; i++)
	{
		if (isnull[i])
			complete = false;
		else
			changed |= bf_insert(mbf_part(mb, i),
									bf_hash_derive(attr_hashes[i]));
	}
	if (complete)
		changed |= bf_insert(mbf_part(mb, mb->nattrs),
								bf_hash_derive(mbf_row_hash(attr_hashes, mb->nattrs)));
	if (mb->rows < UINT64_MAX)
		mb->rows++;
	return changed;
}

bool
mbf_query_row(const MultiBloom *mb, const uint64_t *attr_hashes, const bool *isnull)
{
	bool		complete = true;
	bool		any = false;

	for (int i = 0; i < mb->nattrs; i++)
	{
		complete &= !isnull[i];
		any |= !isnull[i];
	}
	if (!any)
		return mb->rows > 0;

	/*
	 * A whole row is tested against the verification filter first: it
	 * rejects every absent row, cross-combinations included, with one probe.
	 */
	if (complete &&
		!bf_query(mbf_verify_part(mb),
					 bf_hash_derive(mbf_row_hash(attr_hashes, mb->nattrs))))
		return false;
	for (int i = 0; i < mb->nattrs; i++)
	{
		if (!isnull[i] &&
			!bf_query(mbf_part_c(mb, i), bf_hash_derive(attr_hashes[i])))
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Set operations
 * --------------------------------------------------------------------- */

bool
mbf_compatible(const MultiBloom *a, const MultiBloom *b, char *errbuf)
{
	char		inner[BLOOM_ERRBUF_SIZE];

	if (a->nattrs != b->nattrs)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "first filter has %d attributes, second has %d",
				 a->nattrs, b->nattrs);
		return false;
	}
	for (int i = 0; i <= a->nattrs; i++)
	{
		if (!bf_compatible(mbf_part_c(a, i), mbf_part_c(b, i), inner))
		{
			part_error(errbuf, i, a->nattrs, inner);
			return false;
		}
	}
	return true;
}

/*
 * The union of part i of a and b, planned by bloom's rules: equal shapes
 * OR, data-sized parts of different sizes fold onto the smaller, and an
 * empty data-sized part (an attribute that was always NULL, a filter of no
 * rows) is the identity, so the other part is kept at its size.  The
 * callers checked mbf_compatible.
 */
static void
part_union_plan(const MultiBloom *a, const MultiBloom *b, int i, BfSetop *op)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (!bf_setop_plan(mbf_part_c(a, i), mbf_part_c(b, i), false, op, errbuf))
		memset(op, 0, sizeof(*op));		/* unreachable for compatible values */
}

bool
mbf_union_fits(const MultiBloom *dst, const MultiBloom *src)
{
	for (int i = 0; i <= dst->nattrs; i++)
	{
		BfSetop		op;

		part_union_plan(dst, src, i, &op);
		if (!bf_setop_in_place(&op))
			return false;
	}
	return true;
}

void
mbf_union_shapes(const MultiBloom *a, const MultiBloom *b, BloomShape *shapes)
{
	for (int i = 0; i <= a->nattrs; i++)
	{
		BfSetop		op;

		part_union_plan(a, b, i, &op);
		shapes[i] = op.shape;
	}
}

void
mbf_union_build(MultiBloom *result, const MultiBloom *a, const MultiBloom *b)
{
	for (int i = 0; i <= a->nattrs; i++)
	{
		BfSetop		op;

		part_union_plan(a, b, i, &op);
		bf_setop_build(mbf_part(result, i), mbf_part_c(a, i), mbf_part_c(b, i), &op);
	}
	result->rows = bf_add_saturating(a->rows, b->rows);
	result->flags = a->flags & b->flags;
}

void
mbf_union_into(MultiBloom *dst, const MultiBloom *src)
{
	for (int i = 0; i <= dst->nattrs; i++)
	{
		BfSetop		op;

		part_union_plan(dst, src, i, &op);
		bf_setop_build(mbf_part(dst, i), mbf_part(dst, i), mbf_part_c(src, i), &op);
	}
	dst->rows = bf_add_saturating(dst->rows, src->rows);
	/* a union of differently built filters is no longer "sized to its data" */
	dst->flags &= src->flags;
}

bool
mbf_equal(const MultiBloom *a, const MultiBloom *b)
{
	if (a->nattrs != b->nattrs)
		return false;
	for (int i = 0; i <= a->nattrs; i++)
		if (!bf_equal(mbf_part_c(a, i), mbf_part_c(b, i)))
			return false;
	return true;
}

/* ---------------------------------------------------------------------
 * Binary format: the container header, the parts' lengths, then each part
 * in bloom's binary format.
 * --------------------------------------------------------------------- */

uint64_t
mbf_wire_bytes(const MultiBloom *mb)
{
	uint64_t	bytes = wire_header_bytes(mb->nattrs);

	for (int i = 0; i <= mb->nattrs; i++)
		bytes += bf_wire_bytes(mbf_part_c(mb, i));
	return bytes;
}

void
mbf_serialize(const MultiBloom *mb, uint8_t *out)
{
	uint64_t	pos = wire_header_bytes(mb->nattrs);

	bf_put_header(out, mb, &container);
	for (int i = 0; i <= mb->nattrs; i++)
	{
		const BloomFilter *part = mbf_part_c(mb, i);
		uint64_t	len = bf_wire_bytes(part);

		bf_put_le64(out + MW_LENGTHS + 8 * i, len);
		bf_serialize(part, out + pos);
		pos += len;
	}
}

/*
 * The container header, shared by both checks: h is the header (of the
 * struct, or read from the bytes).
 */
static bool
container_check(const MultiBloom *h, char *errbuf)
{
	if (h->version < 1 || h->version > MULTIBLOOM_FORMAT_VERSION)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unsupported multibloom format version %u (this version reads versions 1 to %d)",
				 (unsigned) h->version, MULTIBLOOM_FORMAT_VERSION);
		return false;
	}
	if (!nattrs_check(h->nattrs, errbuf))
		return false;
	if (h->flags & ~MULTIBLOOM_KNOWN_FLAGS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown multibloom flags 0x%02x",
				 (unsigned) h->flags);
		return false;
	}
	if (h->reserved0 != 0 || h->reserved1 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "reserved multibloom header fields are not zero");
		return false;
	}
	return true;
}

/*
 * The scheme rule: every part is written under one hash scheme, so an
 * attribute's value hash is the same for its part and for the whole row's
 * chain (scheme 3 hashes some values differently from schemes 1 and 2).
 */
static bool
scheme_check(uint8_t scheme, uint8_t first, int i, int nattrs, char *errbuf)
{
	char		name[32];

	if (scheme == first)
		return true;
	part_name(i, nattrs, name, sizeof(name));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE, "%s has hash scheme %u, the first part %u",
			 name, (unsigned) scheme, (unsigned) first);
	return false;
}

/* The seed rule: parts are independent only with their own seeds. */
static bool
seed_check(uint64_t seed, int i, int nattrs, char *errbuf)
{
	char		name[32];

	if (seed == mbf_part_seed(i, nattrs))
		return true;
	part_name(i, nattrs, name, sizeof(name));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE, "%s has seed %llu, expected %llu",
			 name, (unsigned long long) seed,
			 (unsigned long long) mbf_part_seed(i, nattrs));
	return false;
}

/*
 * Part i of a serialized value, at pos of its len bytes: its length within
 * what is left, its bloom header and bits (bf_wire_check), and the
 * multibloom's rules for its seed, layout and hash scheme.  Sets *part_len
 * and the in-memory size *part_struct.
 */
static bool
part_wire_check(const uint8_t *buf, size_t len, uint64_t pos, int i, int nattrs,
				uint64_t *part_len, uint64_t *part_struct, char *errbuf)
{
	const uint8_t *part = buf + pos;
	const uint8_t *first = buf + wire_header_bytes(nattrs);	/* checked as part 0 */
	char		inner[BLOOM_ERRBUF_SIZE];
	char		name[32];

	*part_len = bf_get_le64(buf + MW_LENGTHS + 8 * i);
	if (*part_len > (uint64_t) len - pos)
	{
		part_name(i, nattrs, name, sizeof(name));
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%s: length %llu exceeds the %llu bytes left in the value",
				 name, (unsigned long long) *part_len,
				 (unsigned long long) ((uint64_t) len - pos));
		return false;
	}
	if (!bf_wire_check(part, (size_t) *part_len, part_struct, inner))
	{
		part_error(errbuf, i, nattrs, inner);
		return false;
	}
	return seed_check(bf_wire_seed(part), i, nattrs, errbuf) &&
		part_layout_check(part[BF_WIRE_LAYOUT], i, nattrs, errbuf) &&
		scheme_check(part[BF_WIRE_SCHEME], first[BF_WIRE_SCHEME], i, nattrs, errbuf);
}

bool
mbf_wire_check(const uint8_t *buf, size_t len, uint64_t *struct_bytes, char *errbuf)
{
	MultiBloom	head;			/* the header alone, no offsets */
	uint64_t	pos,
				total;

	if (!bf_wire_read_header(buf, len, &container, &head, errbuf) ||
		!container_check(&head, errbuf))
		return false;
	pos = wire_header_bytes(head.nattrs);
	if ((uint64_t) len < pos)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%zu bytes is too short for the header of %d attributes (%llu bytes)",
				 len, (int) head.nattrs, (unsigned long long) pos);
		return false;
	}
	total = mbf_header_bytes(head.nattrs);
	for (int i = 0; i <= head.nattrs; i++)
	{
		uint64_t	part_len,
					part_struct;

		if (!part_wire_check(buf, len, pos, i, head.nattrs, &part_len, &part_struct, errbuf))
			return false;
		pos += part_len;
		/* each part_struct is below 1 GB, at most 33 of them: no overflow */
		total += part_struct;
	}
	if (pos != (uint64_t) len)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%llu bytes follow the last part",
				 (unsigned long long) ((uint64_t) len - pos));
		return false;
	}
	if (total > BLOOM_MAX_ALLOC_BYTES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "multibloom of %llu bytes exceeds the 1 GB limit",
				 (unsigned long long) total);
		return false;
	}
	*struct_bytes = total;
	return true;
}

void
mbf_deserialize(const uint8_t *buf, MultiBloom *mb)
{
	int			nattrs = buf[MW_NATTRS];
	uint64_t	pos = wire_header_bytes(nattrs);
	uint64_t	off = mbf_header_bytes(nattrs);

	bf_get_header(buf, mb, &container);
	for (int i = 0; i <= nattrs; i++)
	{
		uint64_t	part_len = bf_get_le64(buf + MW_LENGTHS + 8 * i);
		BloomFilter *part;

		mb->offsets[i] = off;
		part = mbf_part(mb, i);
		bf_deserialize(buf + pos, part);
		pos += part_len;
		/* the size mbf_wire_check counted: matrix parts carry counters */
		off += bf_filter_bytes(part);
	}
}

/*
 * Part i of an in-memory value of size bytes, expected at offset expect:
 * its place, its bloom header against its size (bf_struct_check), and the
 * multibloom's rules for its seed, layout and hash scheme.  Sets *end to
 * where it ends.
 */
static bool
part_struct_check(const MultiBloom *mb, uint64_t size, int i, uint64_t expect,
				  uint64_t *end, char *errbuf)
{
	const BloomFilter *part;
	int			nattrs = mb->nattrs;
	char		inner[BLOOM_ERRBUF_SIZE];
	char		name[32];

	part_name(i, nattrs, name, sizeof(name));
	if (mb->offsets[i] != expect)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "%s starts at %llu, expected %llu",
				 name, (unsigned long long) mb->offsets[i],
				 (unsigned long long) expect);
		return false;
	}
	*end = i == nattrs ? size : mb->offsets[i + 1];
	if (*end < expect || *end > size)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "%s ends at %llu, outside the value of %llu bytes",
				 name, (unsigned long long) *end, (unsigned long long) size);
		return false;
	}
	part = mbf_part_c(mb, i);
	if (!bf_struct_check(part, *end - expect, inner))
	{
		part_error(errbuf, i, nattrs, inner);
		return false;
	}
	return seed_check(part->seed, i, nattrs, errbuf) &&
		part_layout_check(part->layout, i, nattrs, errbuf) &&
		scheme_check(part->hash_scheme, mbf_part_c(mb, 0)->hash_scheme, i, nattrs, errbuf);
}

bool
mbf_struct_check(const MultiBloom *mb, uint64_t size, char *errbuf)
{
	uint64_t	expect;

	if (size < offsetof(MultiBloom, offsets))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "value of %llu bytes is too short for a multibloom",
				 (unsigned long long) size);
		return false;
	}
	if (!container_check(mb, errbuf))
		return false;
	expect = mbf_header_bytes(mb->nattrs);
	if (size < expect)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "value of %llu bytes is too short for the header of %d attributes",
				 (unsigned long long) size, (int) mb->nattrs);
		return false;
	}
	/* parts follow each other in order, without gaps, up to the end */
	for (int i = 0; i <= mb->nattrs; i++)
	{
		uint64_t	end;

		if (!part_struct_check(mb, size, i, expect, &end, errbuf))
			return false;
		expect = end;
	}
	return true;
}

/*
 * layout_table.h
 *	  The layout table of the core: what each value of the layout byte
 *	  does, one row per layout (the bit arrays of layout_classic.h,
 *	  layout_blocked.h and layout_matrix.h, and the explicit list of
 *	  layout_explicit.h).  Internal to the core: filter.c defines the table
 *	  and the entries all bit arrays share, and works on one filter through
 *	  it; setops.c reads it for the set operations.  Everything else goes
 *	  through filter.h.  It includes only bf_base.h: the rows hold the
 *	  layouts' functions, the table itself is in filter.c, which includes
 *	  them.
 */
#ifndef BF_LAYOUT_TABLE_H
#define BF_LAYOUT_TABLE_H

#include "bf_base.h"

struct BfBuilder;				/* filter.h */

/*
 * How a layout holds its values: as bits at positions derived from their
 * hashes, or as the list of the hashes themselves.  It decides the shape
 * rules a layout shares with others and the rules two filters combine by.
 */
typedef enum Holding
{
	HOLDS_BITS,
	HOLDS_HASHES,
	NUM_HOLDINGS
} Holding;

/* What a layout does, one row of the table per layout byte. */
typedef struct LayoutOps
{
	const char *name;
	Holding		holds;
	bool		has_rows;		/* uses the shape's rows and locators */
	bool		folds;			/* bf_fold applies: runs of bits OR onto one */
	/* shapes: sizing for a capacity and rate (NULL: sized by its values) */
	bool		(*shape_for) (double capacity, double fpp, BloomShape *shape, char *errbuf);
	bool		(*shape_check) (const BloomShape *shape, char *errbuf); /* its own rules */
	void		(*describe) (const BloomShape *shape, char *buf, size_t len);
	/* a value by its derived words (h from bf_hash_derive); insert counts it */
	bool		(*insert) (BloomFilter *f, BloomHash h);
	bool		(*query) (const BloomFilter *f, BloomHash h);
	void		(*prefetch) (const BloomFilter *f, BloomHash h);
	/*
	 * the inserter (filter.h): stage computes what inserting v->h needs
	 * into v->where and prefetches the memory it touches; commit inserts
	 * the staged value exactly as insert would, and counts it
	 */
	void		(*stage) (const BloomFilter *f, BfStaged *v);
	void		(*commit) (BloomFilter *f, const BfStaged *v);
	/* a value by its hash */
	bool		(*contains_value) (const BloomFilter *f, uint64_t value_hash);
	int			(*probe_batch) (const BloomFilter *f, const uint64_t *hashes, int n,
								bool *found);
	void		(*collect) (struct BfBuilder *b, uint64_t value_hash);
	bool		(*is_empty) (const BloomFilter *f);
	/*
	 * set operations: the layout's own rule for a pair it is in (a and b in
	 * the caller's order), and what it derives from the bits, brought up to
	 * date after they were ORed or ANDed
	 */
	bool		(*combinable) (const BloomFilter *a, const BloomFilter *b, char *errbuf);
	void		(*after_union) (BloomFilter *dst, const BloomFilter *src);
	void		(*after_intersect) (BloomFilter *dst);
	/* statistics */
	uint64_t	(*bits_set) (const BloomFilter *f);
	double		(*estimate_count) (const BloomFilter *f);
	double		(*estimate_fpp) (const BloomFilter *f);
} LayoutOps;

/* Rows of the table: every value of the layout byte a filter may carry. */
#define BF_LAYOUT_ROWS	(BLOOM_LAYOUT_LAST_INTEROP + 1)

/* Indexed by BLOOM_LAYOUT_*, the stored layout byte (filter.c). */
extern const LayoutOps bf_layout_table[BF_LAYOUT_ROWS];

/* The row of a checked filter (its layout byte is in range). */
static inline const LayoutOps *
bf_layout_ops(const BloomFilter *f)
{
	return &bf_layout_table[f->layout];
}

#endif							/* BF_LAYOUT_TABLE_H */

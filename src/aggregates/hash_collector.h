/*
 * hash_collector.h
 *	  A set of distinct fixed-width records of 64-bit words (typically value
 *	  hashes), built row by row inside an aggregate in memory bounded by a
 *	  limit such as work_mem: the data-sized aggregates (bloom_agg without a
 *	  capacity, multibloom_agg) collect their distinct hashes here, then size
 *	  the result from the exact distinct count and insert every record.
 *
 *	  How it works: records are appended to a buffer that starts tiny; when
 *	  the buffer is full it is sorted and deduplicated in place, and it grows
 *	  (doubling) while the limit allows, both for this collector and for
 *	  all the memory of its context (the states of every group of a hash
 *	  aggregate share one context).  When it cannot grow and is still
 *	  more than half full after deduplication, it is written to a temporary
 *	  file as a sorted run and emptied.  Counting and iterating merge the
 *	  buffer and the runs, dropping duplicates (counting writes the merge
 *	  as the one run left, which iterating then reads alone).  So memory is
 *	  bounded by the limit, never by the number of rows, and duplicates
 *	  cost no space.
 *
 *	  Usage in an aggregate (state in the aggregate context):
 *		hc = hc_create(aggcxt, width, hc_work_mem_limit(), fcinfo);
 *		hc_add(hc, rec) per row (no allocation on the common path);
 *		combine: hc_merge(dst, src);
 *		serial: b = hc_state_serialize(0, head, rows, hc);
 *		deserial: hc = hc_state_deserialize(b, 0, name, head, &rows, aggcxt, fcinfo);
 *		final: n = hc_count(hc); hc_iterate(hc, visit, arg).
 *	  Temporary files are closed at executor shutdown through
 *	  AggRegisterCallback (fcinfo of an aggregate support function), or by
 *	  hc_free.  Neither hc_count nor hc_iterate modifies the set, so final
 *	  functions may run more than once (window aggregates).
 *
 *	  Records are opaque to the collector except for the order it sorts them
 *	  in; iteration yields each distinct record once, in ascending order
 *	  (word 0 most significant).
 *
 *	  Include postgres.h before this header.
 */
#ifndef HASH_COLLECTOR_H
#define HASH_COLLECTOR_H

#include "pg_compat.h"

#include "fmgr.h"
#include "storage/buffile.h"

#include "core/hash_records.h"

/* A sorted, duplicate-free run of records in a temporary file. */
typedef struct HcRun
{
	BufFile    *file;
	int			fileno;			/* start position, as BufFileTell gives it */
	off_t		offset;
	uint64		nrecs;
} HcRun;

/* The fields are private to hash_collector.c; hc_add is inline for speed. */
typedef struct HashCollector
{
	MemoryContext cxt;
	int			width;			/* words per record, 1..BF_RECORD_MAX_WIDTH */
	FunctionCallInfo fcinfo;	/* for AggRegisterCallback, or NULL */
	bool		cleanup_registered;

	uint64	   *buf;			/* nbuf records; the first nsorted sorted, distinct */
	Size		nbuf;
	Size		nsorted;
	Size		capacity;		/* records buf can hold */
	Size		max_capacity;	/* records the memory limit allows */
	Size		mem_limit;		/* bytes, for this collector and for its context */

	HcRun	   *runs;
	int			nruns;
	int			maxruns;
	BufFile   **files;			/* every file holding runs (closed at cleanup) */
	int			nfiles;
	int			maxfiles;
	BufFile    *spill;			/* the file new runs are appended to */
	int			spill_end_fileno;
	off_t		spill_end_offset;

	uint64		generation;		/* changes whenever the set is reorganized */
	uint64		count_generation;	/* generation and nbuf of cached_count */
	Size		count_nbuf;
	int64		cached_count;	/* -1: unknown */
} HashCollector;

/* The memory limit for one collector: work_mem, in bytes. */
extern Size hc_work_mem_limit(void);

/*
 * A new empty collector in cxt for records of width words, keeping at most
 * about mem_limit bytes of records in memory.  fcinfo is the calling
 * aggregate support function (its temporary files are then closed at
 * executor shutdown), or NULL when the caller calls hc_free itself.
 */
extern HashCollector *hc_create(MemoryContext cxt, int width, Size mem_limit,
								FunctionCallInfo fcinfo);

/* Makes room in a full buffer: deduplicates, grows or spills. */
extern void hc_make_room(HashCollector *hc);

/* Adds one record of hc->width words. */
static inline void
hc_add(HashCollector *hc, const uint64 *rec)
{
	if (unlikely(hc->nbuf == hc->capacity))
		hc_make_room(hc);
	if (hc->width == 1)
		hc->buf[hc->nbuf] = rec[0];
	else
		memcpy(hc->buf + hc->nbuf * hc->width, rec, sizeof(uint64) * hc->width);
	hc->nbuf++;
}

/* Adds a one-word record. */
static inline void
hc_add1(HashCollector *hc, uint64 value)
{
	Assert(hc->width == 1);
	if (unlikely(hc->nbuf == hc->capacity))
		hc_make_room(hc);
	hc->buf[hc->nbuf++] = value;
}

/*
 * Number of distinct records (exact).  With runs, merges them and the
 * buffer into one run, once: an iteration then reads that run alone.
 */
extern uint64 hc_count(HashCollector *hc);

/* Calls visit once per distinct record, in ascending order. */
typedef void (*hc_visit_fn) (const uint64 *rec, void *arg);
extern void hc_iterate(HashCollector *hc, hc_visit_fn visit, void *arg);

/*
 * Moves every record of src into dst (same width); src is left empty, its
 * buffer given back.  Within the memory limit of dst, the buffers merge in
 * place; beyond it src's buffer becomes a run of dst.
 */
extern void hc_merge(HashCollector *dst, HashCollector *src);

/* Releases memory and temporary files; hc must not be used afterwards. */
extern void hc_free(HashCollector *hc);

/*
 * The partial state of a data-sized aggregate as a bytea: a 4-byte word of
 * the aggregate's own (its form, its width), the number of rows aggregated,
 * then the set: a header and the distinct records in ascending order,
 * packed (hash_records.h; about 5.4 bytes per one-word record at 10^7
 * records).  Written in one merge of the buffer and the runs, straight
 * into the result, after lead zero bytes left for the caller (a state
 * type's format byte); ERROR if it would exceed 1 GB.  The bytea is the one
 * thing that must hold every distinct record at once: PostgreSQL's
 * parallel aggregation moves a partial state as one value.
 */
extern bytea *hc_state_serialize(Size lead, const char head[4], uint64 rows,
								 HashCollector *hc);

/*
 * Reads a state hc_state_serialize wrote (after lead bytes of the
 * caller's, at any alignment) into head, rows and a new
 * collector in cxt, keeping in memory only what its limit allows (the rest
 * is unpacked straight into a run in a temporary file); ERROR
 * (data_corrupted, naming the aggregate agg) if anything is wrong with it.
 */
extern HashCollector *hc_state_deserialize(const bytea *b, Size lead, const char *agg,
										   char head[4],
										   uint64 *rows, MemoryContext cxt,
										   FunctionCallInfo fcinfo);

#endif							/* HASH_COLLECTOR_H */

/*
 * hash_collector.c
 *	  Distinct fixed-width records in bounded memory, spilling sorted runs to
 *	  temporary files: see hash_collector.h.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "aggregates/hash_collector.h"

/* Records in a new collector's buffer: small, since GROUP BY may make many. */
#define HC_INITIAL_BYTES	64

/* Smallest buffer the memory limit may impose, in records. */
#define HC_MIN_CAPACITY		1024

/* Runs kept before they are merged into one (bounds the merge's memory). */
#define HC_MAX_RUNS			64

/* Bytes read at a time from a run during a merge. */
#define HC_READ_BYTES		8192

/* Magic word of the serialized form: the records packed (hash_records.h). */
#define HC_SERIAL_MAGIC		0x48435332	/* "HCS2" */

static void hc_spill_buffer(HashCollector *hc);
static void hc_compact_runs(HashCollector *hc, bool with_buffer);

Size
hc_work_mem_limit(void)
{
	return (Size) work_mem * 1024;
}

static inline Size
record_bytes(const HashCollector *hc)
{
	return sizeof(uint64) * hc->width;
}

HashCollector *
hc_create(MemoryContext cxt, int width, Size mem_limit, FunctionCallInfo fcinfo)
{
	HashCollector *hc;

	if (width < 1 || width > BF_RECORD_MAX_WIDTH)
		elog(ERROR, "hash collector record width %d out of range 1..%d", width, BF_RECORD_MAX_WIDTH);

	hc = MemoryContextAllocZero(cxt, sizeof(HashCollector));
	hc->cxt = cxt;
	hc->width = width;
	hc->fcinfo = fcinfo;
	hc->mem_limit = mem_limit;
	hc->max_capacity = Max(mem_limit / (sizeof(uint64) * width), HC_MIN_CAPACITY);
	/* keep one allocation below MaxAllocSize */
	hc->max_capacity = Min(hc->max_capacity, MaxAllocSize / (sizeof(uint64) * width));
	hc->capacity = Max(HC_INITIAL_BYTES / (sizeof(uint64) * width), 1);
	hc->buf = MemoryContextAlloc(cxt, hc->capacity * sizeof(uint64) * width);
	hc->cached_count = -1;
	return hc;
}

/* ---------------------------------------------------------------------
 * Growing and spilling
 * --------------------------------------------------------------------- */

/*
 * Sorts and deduplicates the buffer; the free part of it is scratch, so
 * when it can hold the unsorted tail, the sorted prefix is not sorted again.
 */
static inline void
sort_buffer(HashCollector *hc)
{
	hc->nbuf = bf_records_sort_unique_in(hc->buf, hc->nsorted, hc->nbuf, hc->capacity,
										 hc->width);
	hc->nsorted = hc->nbuf;
}

/*
 * Many collectors may share one memory context: a hash aggregate keeps one
 * per group, each with its own limit.  Once the context as a whole holds
 * more than the limit, a buffer of HC_MIN_CAPACITY records or more spills
 * instead of growing, so the groups together stay near the limit (plus one
 * small buffer per group) instead of reaching one limit per group.  A lone
 * collector still grows to its limit.
 */
static bool
shared_budget_spent(const HashCollector *hc)
{
	return hc->capacity >= HC_MIN_CAPACITY &&
		MemoryContextMemAllocated(hc->cxt, true) > hc->mem_limit;
}

static bool
may_grow(const HashCollector *hc)
{
	return hc->capacity < hc->max_capacity && !shared_budget_spent(hc);
}

static void
grow_buffer(HashCollector *hc)
{
	Size		newcap = Min(hc->capacity * 2, hc->max_capacity);

	hc->buf = repalloc(hc->buf, newcap * record_bytes(hc));
	hc->capacity = newcap;
}

/*
 * sort_buffer before the set is read whole (counted, iterated, shipped):
 * when the free part cannot hold the unsorted tail and the limit allows,
 * the buffer grows first, so that the sort has its scratch room.
 */
static void
sort_buffer_to_read(HashCollector *hc)
{
	if (hc->capacity - hc->nbuf < hc->nbuf - hc->nsorted && may_grow(hc))
		grow_buffer(hc);
	sort_buffer(hc);
}

void
hc_make_room(HashCollector *hc)
{
	/*
	 * A sorted prefix of half the buffer or more (distinct records, as
	 * after the last growth) leaves the buffer at least half full whatever
	 * the tail holds: grow first, and the sort then uses the new room to
	 * sort only the tail and merge it in.
	 */
	if (hc->nsorted >= hc->capacity / 2 && may_grow(hc))
	{
		grow_buffer(hc);
		sort_buffer(hc);
		hc->generation++;
		return;
	}
	sort_buffer(hc);
	hc->generation++;
	/* at least half free: deduplication made enough room */
	if (hc->nbuf <= hc->capacity / 2)
		return;
	if (may_grow(hc))
	{
		grow_buffer(hc);
		return;
	}
	hc_spill_buffer(hc);
}

/* Closes the temporary files at executor shutdown (not called on abort). */
static void
hc_shutdown_callback(Datum arg)
{
	HashCollector *hc = (HashCollector *) DatumGetPointer(arg);

	for (int i = 0; i < hc->nfiles; i++)
		BufFileClose(hc->files[i]);
	hc->nfiles = 0;
	hc->nruns = 0;
	hc->spill = NULL;
}

static void
register_cleanup(HashCollector *hc)
{
	if (hc->cleanup_registered || hc->fcinfo == NULL)
		return;
	AggRegisterCallback(hc->fcinfo, hc_shutdown_callback, PointerGetDatum(hc));
	hc->cleanup_registered = true;
}

/* array (of *max elements, n used) with room for one more, in hc's context. */
static void *
room_for_one_more(HashCollector *hc, void *array, int n, int *max, Size elem_size)
{
	int			newmax;

	if (n < *max)
		return array;
	newmax = Max(*max * 2, 8);
	*max = newmax;
	return array ? repalloc(array, newmax * elem_size)
		: MemoryContextAlloc(hc->cxt, newmax * elem_size);
}

static void
remember_file(HashCollector *hc, BufFile *file)
{
	hc->files = room_for_one_more(hc, hc->files, hc->nfiles, &hc->maxfiles,
								  sizeof(BufFile *));
	hc->files[hc->nfiles++] = file;
}

static void
remember_run(HashCollector *hc, const HcRun *run)
{
	hc->runs = room_for_one_more(hc, hc->runs, hc->nruns, &hc->maxruns, sizeof(HcRun));
	hc->runs[hc->nruns++] = *run;
}

/* A fresh temporary file for new runs, closed at executor shutdown. */
static void
open_spill_file(HashCollector *hc)
{
	MemoryContext old = MemoryContextSwitchTo(hc->cxt);

	register_cleanup(hc);
	hc->spill = BufFileCreateTemp(false);
	MemoryContextSwitchTo(old);
	remember_file(hc, hc->spill);
	hc->spill_end_fileno = 0;
	hc->spill_end_offset = 0;
}

/* Starts a run at the end of the spill file; returns its descriptor. */
static HcRun
begin_run(HashCollector *hc)
{
	HcRun		run;

	if (hc->spill == NULL)
		open_spill_file(hc);
	if (BufFileSeek(hc->spill, hc->spill_end_fileno, hc->spill_end_offset, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in hash collector temporary file")));
	run.file = hc->spill;
	run.fileno = hc->spill_end_fileno;
	run.offset = hc->spill_end_offset;
	run.nrecs = 0;
	return run;
}

static void
write_to_run(HashCollector *hc, HcRun *run, const uint64 *recs, Size n)
{
	BufFileWrite(hc->spill, (void *) recs, n * record_bytes(hc));
	run->nrecs += n;
}

static void
end_run(HashCollector *hc, HcRun *run)
{
	BufFileTell(hc->spill, &hc->spill_end_fileno, &hc->spill_end_offset);
	if (run->nrecs > 0)
		remember_run(hc, run);
}

/*
 * Writes n sorted, distinct records as a new run; first merges the runs
 * into one when there are as many as a merge may read at once.
 */
static void
add_run(HashCollector *hc, const uint64 *recs, Size n)
{
	HcRun		run;

	if (hc->nruns >= HC_MAX_RUNS)
		hc_compact_runs(hc, false);
	run = begin_run(hc);
	write_to_run(hc, &run, recs, n);
	end_run(hc, &run);
}

/* Writes the (sorted, distinct) buffer as a run and empties it. */
static void
hc_spill_buffer(HashCollector *hc)
{
	add_run(hc, hc->buf, hc->nbuf);
	hc->nbuf = 0;
	hc->nsorted = 0;
	hc->generation++;
}

/* ---------------------------------------------------------------------
 * Merging the buffer and the runs
 * --------------------------------------------------------------------- */

/* A reader of one sorted source: a run in a file or the sorted buffer. */
typedef struct RunCursor
{
	BufFile    *file;			/* NULL for the in-memory buffer */
	int			fileno;
	off_t		offset;			/* next unread byte of the run */
	uint64		remaining;		/* records not yet read into block */
	uint64	   *block;			/* records read, or the buffer itself */
	Size		nblock;
	Size		pos;
} RunCursor;

static const uint64 *
cursor_current(const HashCollector *hc, const RunCursor *c)
{
	return c->pos < c->nblock ? c->block + c->pos * hc->width : NULL;
}

static void
cursor_refill(const HashCollector *hc, RunCursor *c)
{
	Size		rb = record_bytes(hc);
	Size		n = Min((uint64) (HC_READ_BYTES / rb), c->remaining);
	size_t		got;

	c->pos = 0;
	c->nblock = 0;
	if (n == 0)
		return;
	if (BufFileSeek(c->file, c->fileno, c->offset, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in hash collector temporary file")));
	got = BufFileRead(c->file, c->block, n * rb);
	if (got != n * rb)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read hash collector temporary file: read only %zu of %zu bytes",
						got, n * rb)));
	c->offset += n * rb;
	c->remaining -= n;
	c->nblock = n;
}

/* Moves a cursor to its next record; false when it is exhausted. */
static inline bool
cursor_advance(const HashCollector *hc, RunCursor *c)
{
	if (++c->pos < c->nblock)
		return true;
	if (c->file == NULL)
		return false;
	cursor_refill(hc, c);
	return c->nblock > 0;
}

/*
 * Merges the runs (and the buffer, if with_buffer) and calls visit once per
 * distinct record.  Works in a temporary context, so repeated calls leak
 * nothing into the aggregate's memory.
 */
static void
merge_sources(HashCollector *hc, bool with_buffer, hc_visit_fn visit, void *arg)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "hash collector merge",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int			nsources = hc->nruns + (with_buffer ? 1 : 0);
	RunCursor  *cursors = palloc0(sizeof(RunCursor) * Max(nsources, 1));
	BfMergeHeap heap;
	uint64		last[BF_RECORD_MAX_WIDTH];
	bool		have_last = false;
	int			width = hc->width;

	heap.width = width;
	heap.n = 0;
	heap.heap = palloc(sizeof(int) * Max(nsources, 1));
	heap.cur = palloc(sizeof(uint64 *) * Max(nsources, 1));

	for (int i = 0; i < nsources; i++)
	{
		RunCursor  *c = &cursors[i];

		if (i < hc->nruns)
		{
			c->file = hc->runs[i].file;
			c->fileno = hc->runs[i].fileno;
			c->offset = hc->runs[i].offset;
			c->remaining = hc->runs[i].nrecs;
			c->block = palloc(HC_READ_BYTES);
			cursor_refill(hc, c);
		}
		else
		{
			sort_buffer(hc);
			c->block = hc->buf;
			c->nblock = hc->nbuf;
		}
		heap.cur[i] = cursor_current(hc, c);
		if (heap.cur[i] != NULL)
			heap.heap[heap.n++] = i;
	}
	bf_merge_heap_build(&heap);

	while (heap.n > 0)
	{
		int			top = bf_merge_heap_top(&heap);
		RunCursor  *c = &cursors[top];
		const uint64 *rec = heap.cur[top];

		if (!have_last || bf_record_cmp(rec, last, width) != 0)
		{
			memcpy(last, rec, sizeof(uint64) * width);
			have_last = true;
			visit(last, arg);
		}
		heap.cur[top] = cursor_advance(hc, c) ? cursor_current(hc, c) : NULL;
		bf_merge_heap_top_advanced(&heap);
		CHECK_FOR_INTERRUPTS();
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}

/* Writes merged records to a run, buffering them. */
typedef struct RunWriter
{
	HashCollector *hc;
	HcRun		run;
	uint64	   *pending;
	Size		npending;
	Size		maxpending;
} RunWriter;

static void
run_writer_visit(const uint64 *rec, void *arg)
{
	RunWriter  *w = (RunWriter *) arg;

	memcpy(w->pending + w->npending * w->hc->width, rec, record_bytes(w->hc));
	if (++w->npending == w->maxpending)
	{
		write_to_run(w->hc, &w->run, w->pending, w->npending);
		w->npending = 0;
	}
}

/*
 * Merges every run (and the buffer, if with_buffer, which is then empty)
 * into one, in a new file; closes the old files.
 */
static void
hc_compact_runs(HashCollector *hc, bool with_buffer)
{
	BufFile   **old_files = hc->files;
	int			old_nfiles = hc->nfiles;
	RunWriter	w;

	/* the new file is not among the old ones */
	hc->files = NULL;
	hc->nfiles = 0;
	hc->maxfiles = 0;
	open_spill_file(hc);

	w.hc = hc;
	w.run = begin_run(hc);
	w.maxpending = Max(HC_READ_BYTES / record_bytes(hc), 1);
	w.pending = MemoryContextAlloc(hc->cxt, w.maxpending * record_bytes(hc));
	w.npending = 0;
	merge_sources(hc, with_buffer, run_writer_visit, &w);
	if (w.npending > 0)
		write_to_run(hc, &w.run, w.pending, w.npending);
	pfree(w.pending);
	if (with_buffer)
	{
		hc->nbuf = 0;
		hc->nsorted = 0;
	}

	hc->nruns = 0;
	end_run(hc, &w.run);
	for (int i = 0; i < old_nfiles; i++)
		BufFileClose(old_files[i]);
	if (old_files)
		pfree(old_files);
	hc->generation++;
}

/* ---------------------------------------------------------------------
 * Counting, iterating, merging
 * --------------------------------------------------------------------- */

uint64
hc_count(HashCollector *hc)
{
	uint64		count = 0;

	if (hc->cached_count >= 0 && hc->count_generation == hc->generation &&
		hc->count_nbuf == hc->nbuf)
		return (uint64) hc->cached_count;

	if (hc->nruns == 0)
	{
		sort_buffer_to_read(hc);
		count = hc->nbuf;
	}
	else
	{
		/*
		 * The one merge that counts also writes the set as a single run
		 * (distinct records): hc_iterate, which follows in a final
		 * function, then reads it straight through instead of merging
		 * every run and the buffer again.
		 */
		hc_compact_runs(hc, true);
		for (int i = 0; i < hc->nruns; i++)
			count += hc->runs[i].nrecs;
	}
	hc->cached_count = (int64) count;
	hc->count_generation = hc->generation;
	hc->count_nbuf = hc->nbuf;
	return count;
}

void
hc_iterate(HashCollector *hc, hc_visit_fn visit, void *arg)
{
	if (hc->nruns == 0)
	{
		sort_buffer_to_read(hc);
		for (Size i = 0; i < hc->nbuf; i++)
			visit(hc->buf + i * hc->width, arg);
	}
	else
		merge_sources(hc, true, visit, arg);
}

/*
 * True if nrecs more records may be kept in memory: within the collector's
 * limit, and (past the smallest buffer) within what its context may hold.
 */
static bool
fits_in_memory(const HashCollector *hc, Size nrecs)
{
	return nrecs < HC_MIN_CAPACITY ||
		(nrecs <= hc->max_capacity &&
		 MemoryContextMemAllocated(hc->cxt, true) + nrecs * record_bytes(hc) <= hc->mem_limit);
}

/* Records the buffer must grow by to hold nrecs. */
static Size
buffer_growth(const HashCollector *hc, Size nrecs)
{
	return nrecs > hc->capacity ? nrecs - hc->capacity : 0;
}

/*
 * dst's buffer becomes the sorted, duplicate-free union of both sorted
 * buffers, merged in place from the back: dst's buffer grows to hold both,
 * and no third buffer is needed.  Writing at out - 1 never overtakes the
 * dst record still to read at i - 1, since out >= i + j throughout.
 */
static void
merge_buffers(HashCollector *dst, const HashCollector *src)
{
	int			w = dst->width;
	Size		rb = record_bytes(dst);
	Size		need = dst->nbuf + src->nbuf;
	Size		i = dst->nbuf,
				j = src->nbuf,
				out = need;

	if (dst->capacity < need)
	{
		dst->buf = repalloc(dst->buf, need * rb);
		dst->capacity = need;
	}
	while (j > 0)
	{
		int			c = i == 0 ? -1 : bf_record_cmp(dst->buf + (i - 1) * w, src->buf + (j - 1) * w, w);

		out--;
		if (c >= 0)
		{
			i--;
			if (out != i)
				memcpy(dst->buf + out * w, dst->buf + i * w, rb);
			if (c == 0)
				j--;			/* the same record in both: keep one */
		}
		else
			memcpy(dst->buf + out * w, src->buf + (--j) * w, rb);
	}
	/* dst[0, i) stays; duplicates left a gap before dst[out, need) */
	if (out > i)
		memmove(dst->buf + i * w, dst->buf + out * w, (need - out) * rb);
	dst->nbuf = dst->nsorted = i + (need - out);
}

/* dst (empty) takes src's buffer, and src dst's small one. */
static void
swap_buffers(HashCollector *dst, HashCollector *src)
{
	uint64	   *buf = dst->buf;
	Size		capacity = dst->capacity;

	dst->buf = src->buf;
	dst->capacity = src->capacity;
	dst->nbuf = dst->nsorted = src->nbuf;
	src->buf = buf;
	src->capacity = capacity;
	src->nbuf = src->nsorted = 0;
}

/* Gives back a big buffer that holds nothing: src of a merge is done with. */
static void
shrink_empty_buffer(HashCollector *hc)
{
	Size		initial = Max(HC_INITIAL_BYTES / record_bytes(hc), 1);

	if (hc->nbuf > 0 || hc->capacity <= initial)
		return;
	pfree(hc->buf);
	hc->buf = MemoryContextAlloc(hc->cxt, initial * record_bytes(hc));
	hc->capacity = initial;
}

void
hc_merge(HashCollector *dst, HashCollector *src)
{
	if (dst->width != src->width)
		elog(ERROR, "cannot merge hash collectors of record widths %d and %d",
			 dst->width, src->width);

	/* the runs move with their files; dst then closes them */
	if (src->nruns > 0)
	{
		register_cleanup(dst);
		for (int i = 0; i < src->nruns; i++)
			remember_run(dst, &src->runs[i]);
		for (int i = 0; i < src->nfiles; i++)
			remember_file(dst, src->files[i]);
		src->nruns = 0;
		src->nfiles = 0;
		src->spill = NULL;
		if (dst->nruns > HC_MAX_RUNS)
			hc_compact_runs(dst, false);
	}
	if (src->nbuf > 0)
	{
		/* both buffers sorted: src's becomes dst's, one merge, or a run */
		sort_buffer(dst);
		sort_buffer(src);
		if (dst->nbuf == 0 && src->capacity <= dst->max_capacity)
			swap_buffers(dst, src);
		else if (dst->nbuf + src->nbuf <= dst->max_capacity &&
				 fits_in_memory(dst, buffer_growth(dst, dst->nbuf + src->nbuf)))
			merge_buffers(dst, src);
		else
			add_run(dst, src->buf, src->nbuf);
	}
	src->nbuf = 0;
	src->nsorted = 0;
	shrink_empty_buffer(src);
	src->generation++;
	dst->generation++;
}

/* ---------------------------------------------------------------------
 * Serialization
 *
 * A set travels as a header and its records in the packed form of
 * hash_records.h (about 5.4 bytes per 64-bit hash instead of 8), written
 * straight from the merge of the buffer and the runs, and read back
 * straight into the buffer or, past the memory limit, into a run.
 * --------------------------------------------------------------------- */

typedef struct SerialHeader
{
	uint32		magic;
	uint32		width;
	uint64		count;			/* records */
	uint64		nbytes;			/* packed bytes that follow */
} SerialHeader;

static void
corrupted_state(const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid serialized %s state", what),
			 errdetail("%s", detail)));
}

static void
pack_visit(const uint64 *rec, void *arg)
{
	bf_pack_add((BfPackWriter *) arg, rec);
}

/*
 * At least as many records as the set holds, without merging: the runs
 * may share records, the sorted buffer holds distinct ones.
 */
static uint64
count_upper_bound(HashCollector *hc)
{
	uint64		n;

	sort_buffer_to_read(hc);
	n = hc->nbuf;
	for (int i = 0; i < hc->nruns; i++)
		n += hc->runs[i].nrecs;
	return n;
}

static void
state_too_large(uint64 count)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("partial aggregate state of " UINT64_FORMAT " distinct values exceeds 1 GB",
					count),
			 errhint("Disable parallel aggregation for this query (max_parallel_workers_per_gather = 0) or give a capacity.")));
}

bytea *
hc_state_serialize(Size lead, const char head[4], uint64 rows, HashCollector *hc)
{
	const Size	prefix = VARHDRSZ + lead + 4 + sizeof(uint64) + sizeof(SerialHeader);
	char	   *state;
	uint64		count = count_upper_bound(hc);
	size_t		cap = bf_pack_bound(count, hc->width);
	SerialHeader hdr;
	BfPackWriter w;
	uint64	   *block;
	char	   *result;

	/*
	 * One pass: room for the upper bound (only the bytes written are ever
	 * touched), unless that is beyond 1 GB; then count exactly first.
	 */
	if (cap > MaxAllocSize - prefix)
	{
		count = hc_count(hc);
		cap = bf_pack_bound(count, hc->width);
		if (cap > MaxAllocHugeSize - prefix)
			state_too_large(count);
	}
	result = MemoryContextAllocHuge(CurrentMemoryContext, prefix + cap);
	block = palloc(sizeof(uint64) * BF_PACK_BLOCK * hc->width);
	bf_pack_init(&w, hc->width, block, (uint8 *) result + prefix, cap);
	hc_iterate(hc, pack_visit, &w);
	if (!bf_pack_finish(&w))
		elog(ERROR, "hash collector: could not pack its records");
	pfree(block);
	if (w.len > MaxAllocSize - prefix)
		state_too_large(w.count);

	/* the caller's lead bytes, zeroed, then the state */
	memset(result + VARHDRSZ, 0, lead);
	state = result + VARHDRSZ + lead;
	memcpy(state, head, 4);
	/* rows at offset 8, as before the records were packed */
	memcpy(state + 4, &rows, sizeof(uint64));
	hdr.magic = HC_SERIAL_MAGIC;
	hdr.width = (uint32) hc->width;
	hdr.count = w.count;
	hdr.nbytes = w.len;
	memcpy(state + 4 + sizeof(uint64), &hdr, sizeof(hdr));
	/* give back what the upper bound reserved beyond the packed bytes */
	if (cap - w.len > 64 * 1024)
		result = repalloc(result, prefix + w.len);
	SET_VARSIZE(result, prefix + w.len);
	return (bytea *) result;
}

/*
 * Unpacks count records into hc, which is empty: into its buffer when they
 * fit in memory, else chunk by chunk into one run (they come sorted and
 * distinct).  False if the packed bytes are damaged.
 */
static bool
unpack_into(HashCollector *hc, const uint8 *in, size_t len, uint64 count)
{
	BfPackReader r;

	bf_unpack_init(&r, in, len, hc->width, count);
	if (count <= hc->max_capacity && fits_in_memory(hc, buffer_growth(hc, (Size) count)))
	{
		if (count > hc->capacity)
		{
			hc->buf = repalloc(hc->buf, count * record_bytes(hc));
			hc->capacity = count;
		}
		if (bf_unpack(&r, hc->buf, count) != (int64) count)
			return false;
		hc->nbuf = hc->nsorted = count;
	}
	else
	{
		Size		chunk = Max(HC_READ_BYTES / record_bytes(hc), 1);
		uint64	   *recs = palloc(chunk * record_bytes(hc));
		HcRun		run = begin_run(hc);
		int64		n;

		while ((n = bf_unpack(&r, recs, chunk)) > 0)
		{
			write_to_run(hc, &run, recs, n);
			CHECK_FOR_INTERRUPTS();
		}
		end_run(hc, &run);
		pfree(recs);
		if (n < 0)
			return false;
	}
	hc->generation++;
	return bf_unpack_done(&r);
}

HashCollector *
hc_state_deserialize(const bytea *b, Size lead, const char *agg, char head[4], uint64 *rows,
					 MemoryContext cxt, FunctionCallInfo fcinfo)
{
	const Size	prefix = 4 + sizeof(uint64) + sizeof(SerialHeader);
	const char *state = VARDATA(b) + lead;
	Size		len = VARSIZE(b) - VARHDRSZ;
	SerialHeader hdr;
	HashCollector *hc;

	if (len < lead || len - lead < prefix)
		corrupted_state(agg, "too short for its header");
	len -= lead;
	memcpy(head, state, 4);
	memcpy(rows, state + 4, sizeof(uint64));
	memcpy(&hdr, state + 4 + sizeof(uint64), sizeof(hdr));
	if (hdr.magic != HC_SERIAL_MAGIC || hdr.width < 1 || hdr.width > BF_RECORD_MAX_WIDTH)
		corrupted_state(agg, "bad header");
	if (hdr.nbytes != len - prefix)
		corrupted_state(agg, "the packed records are not the rest of the state");
	/* each record takes at least one bit, and its other words 64 each */
	if (hdr.count > hdr.nbytes * 8 / (1 + 64 * (hdr.width - 1)))
		corrupted_state(agg, "record count exceeds the data");

	hc = hc_create(cxt, (int) hdr.width, hc_work_mem_limit(), fcinfo);
	if (!unpack_into(hc, (const uint8 *) state + prefix, hdr.nbytes, hdr.count))
		corrupted_state(agg, "records damaged, or not sorted and distinct");
	return hc;
}

void
hc_free(HashCollector *hc)
{
	for (int i = 0; i < hc->nfiles; i++)
		BufFileClose(hc->files[i]);
	hc->nfiles = 0;
	hc->nruns = 0;
	hc->spill = NULL;
	if (hc->files)
		pfree(hc->files);
	if (hc->runs)
		pfree(hc->runs);
	pfree(hc->buf);
	hc->files = NULL;
	hc->runs = NULL;
	hc->buf = NULL;
	hc->nbuf = hc->capacity = 0;
	/* a registered shutdown callback still points here: keep the struct */
	if (!hc->cleanup_registered)
		pfree(hc);
}

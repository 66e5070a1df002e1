/*
 * test_summary_protocol.c
 *	  An exhaustive model of the shared buffer's protocol (doc/summaries.md,
 *	  "The shared buffer's invariant"; src/summaries/summary_buffer.c).
 *
 *	  Actors, each a short sequence of atomic steps:
 *	  - writers: begin (an xid, a row), append at pre-commit (a marker row
 *	    first when the slot has no committed marker), commit in clog, leave
 *	    the proc array (only then visible to new snapshots);
 *	  - a merge: under the partition's lock, take the hashes (settle the
 *	    slot, copy, take a snapshot and delete the markers it sees, record
 *	    the take), write the filter united with them; commit; leave;
 *	  - a refresh: under the lock, a snapshot; take as a merge does and
 *	    write the filter of the rows that snapshot sees united with the
 *	    hashes; commit; leave;
 *	  - readers: a snapshot (REPEATABLE READ: held), later a read: every
 *	    writer its snapshot sees must be found in the filter version, or
 *	    through a marker it sees and the buffer as it is now;
 *	  - a settle: any backend, at any moment, drops the hashes of a merge
 *	    that committed once the slot's rule allows it, and forgets the
 *	    take of one that rolled back.
 *	  The merge and the refresh may roll back instead of committing.
 *	  Commits become visible in any order.  Every interleaving is explored
 *	  (depth first, with the states seen remembered), and at every end
 *	  state a fresh snapshot reads every key.
 *
 *	  Two rules are modelled: today's (before issue 34: the take's horizon
 *	  the latest completed xid, a take copying only hashes no committed
 *	  merge took) and the new ones (the horizon the next xid at the take,
 *	  every hash still buffered copied).  Today's must show the
 *	  counterexamples of issue 34's cases 3 and 4; the new ones none.
 */
#include "unit.h"

#include <stdint.h>

#define NW			2			/* writers */
#define NR			2			/* readers */
#define TX_M		NW			/* the merge's transaction */
#define TX_F		(NW + 1)	/* the refresh's */
#define NTX			(NW + 2)
#define NVER		3			/* filter versions: setup, merge, refresh */
#define NONE		0xFF

typedef struct Snap
{
	uint8_t		taken;
	uint8_t		vis;			/* transactions that had left the proc array */
	uint8_t		xmin;
} Snap;

typedef struct State
{
	uint8_t		wpc[NW];		/* 0 idle, 1 begun, 2 appended, 3 clog, 4 done */
	uint8_t		mpc;			/* 0 idle, 1 took, 2 clog, 3 done */
	uint8_t		fpc;			/* 0 idle, 1 snapshot, 2 took, 3 clog, 4 done */
	uint8_t		rpc[NR];		/* 0 idle, 1 snapshot, 2 read */
	uint8_t		xid[NTX];		/* 0: none yet */
	uint8_t		aborted;		/* the merge's or refresh's transaction rolled back */
	uint8_t		next_xid;
	uint8_t		latest_completed;
	Snap		rsnap[NR];
	Snap		fsnap;
	/* the slot */
	uint8_t		seq[NW];		/* the writer's hash's sequence number; 0: none */
	uint8_t		last_seq;
	uint8_t		base_seq;		/* hashes up to here have left */
	uint8_t		take_tx;
	uint8_t		take_committed;
	uint8_t		take_seq;
	uint8_t		take_horizon;
	uint8_t		marker_tx;
	uint8_t		marker_committed;
	/* the catalog */
	uint8_t		marker_of[NW];	/* 1: the writer inserted a marker */
	uint8_t		marker_del[NW]; /* the transaction that deleted it, or NONE */
	uint8_t		nver;
	uint8_t		ver_tx[NVER];	/* creator (NONE: setup) */
	uint8_t		ver_keys[NVER]; /* writers whose keys the version holds */
	/* for the labels of counterexamples */
	uint8_t		taken_in_flight;	/* writers still committing when taken,
									 * with an xid above the take's horizon */
} State;

enum
{
	LABEL_CASE3,				/* a snapshot sees the writer, not the merge */
	LABEL_CASE4_HORIZON,		/* the same, the writer in flight at the take */
	LABEL_CASE4_REFRESH,		/* the key in no filter or marker, for good */
	NLABELS
};

static const char *const label_names[NLABELS] = {
	"case 3 (a snapshot sees the writer, not the merge, after the settle)",
	"case 4 (writer in flight at the take; the horizon)",
	"case 4 (writer in flight at the take; a refresh that does not see it: the key is in no filter or marker)",
};

/* ---- the exploration's bookkeeping ---- */

static int	new_rules;
static long states_seen;
static long end_states;
static long reads_checked;
static long violations[NLABELS];
static int	printed[NLABELS];

#define MAXDEPTH 64
static char trace[MAXDEPTH][96];
static int	depth;

/* the states seen: open addressing, grown as needed */
static State *table;
static uint8_t *used;
static size_t table_size;
static size_t table_count;

static uint64_t
state_hash(const State *s)
{
	const uint8_t *p = (const uint8_t *) s;
	uint64_t	h = 1469598103934665603ULL;

	for (size_t i = 0; i < sizeof(State); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static void table_insert(const State *s);

static void
table_grow(void)
{
	State	   *old = table;
	uint8_t    *old_used = used;
	size_t		old_size = table_size;

	table_size = old_size ? old_size * 2 : 1 << 16;
	table = calloc(table_size, sizeof(State));
	used = calloc(table_size, 1);
	if (table == NULL || used == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	table_count = 0;
	for (size_t i = 0; i < old_size; i++)
		if (old_used[i])
			table_insert(&old[i]);
	free(old);
	free(old_used);
}

static void
table_insert(const State *s)
{
	size_t		i;

	if ((table_count + 1) * 2 > table_size)
		table_grow();
	for (i = state_hash(s) & (table_size - 1); used[i]; i = (i + 1) & (table_size - 1))
		;
	used[i] = 1;
	table[i] = *s;
	table_count++;
}

/* True if s was seen before; otherwise remembers it. */
static int
seen(const State *s)
{
	if (table_size > 0)
		for (size_t i = state_hash(s) & (table_size - 1); used[i]; i = (i + 1) & (table_size - 1))
			if (memcmp(&table[i], s, sizeof(State)) == 0)
				return 1;
	table_insert(s);
	return 0;
}

static void
table_reset(void)
{
	free(table);
	free(used);
	table = NULL;
	used = NULL;
	table_size = table_count = 0;
}

/* ---- transactions ---- */

/* in the proc array: begun (has an xid), committed in clog or not */
static int
tx_running(const State *s, int tx)
{
	if (tx < NW)
		return s->wpc[tx] >= 1 && s->wpc[tx] <= 3;
	if (tx == TX_M)
		return s->mpc == 1 || s->mpc == 2;
	return s->fpc == 2 || s->fpc == 3;
}

static int
tx_done(const State *s, int tx)
{
	if (tx < NW)
		return s->wpc[tx] == 4;
	if (tx == TX_M)
		return s->mpc == 3 && s->xid[TX_M] != 0;
	return s->fpc == 4;
}

static int
tx_committed(const State *s, int tx)
{
	return tx_done(s, tx) && !(s->aborted & (1 << tx));
}

static uint8_t
assign_xid(State *s, int tx)
{
	s->xid[tx] = s->next_xid++;
	return s->xid[tx];
}

static void
leave_proc_array(State *s, int tx)
{
	if (s->xid[tx] > s->latest_completed)
		s->latest_completed = s->xid[tx];
}

static Snap
snapshot(const State *s)
{
	Snap		snap = {1, 0, s->next_xid};

	for (int tx = 0; tx < NTX; tx++)
	{
		if (tx_committed(s, tx))
			snap.vis |= 1 << tx;
		if (tx_running(s, tx) && s->xid[tx] < snap.xmin)
			snap.xmin = s->xid[tx];
	}
	return snap;
}

/* The oldest xid any snapshot or running transaction still needs. */
static uint8_t
horizon(const State *s)
{
	uint8_t		h = s->next_xid;

	for (int tx = 0; tx < NTX; tx++)
		if (tx_running(s, tx) && s->xid[tx] < h)
			h = s->xid[tx];
	for (int r = 0; r < NR; r++)
		if (s->rpc[r] == 1 && s->rsnap[r].xmin < h)
			h = s->rsnap[r].xmin;
	if ((s->fpc == 1 || s->fpc == 2 || s->fpc == 3) && s->fsnap.xmin < h)
		h = s->fsnap.xmin;
	return h;
}

/* ---- the slot (summary_buffer.c) ---- */

/* slot_settle: returns whether anything changed */
static int
settle(State *s)
{
	int			tx = s->take_tx;
	int			allowed;

	if (tx == NONE)
		return 0;
	if (!s->take_committed)
	{
		if (!tx_done(s, tx))
			return 0;			/* running, or committed and still in the proc array */
		if (s->aborted & (1 << tx))
		{
			/* nothing was merged: every hash is due again */
			s->take_tx = NONE;
			s->take_seq = s->base_seq;
			return 1;
		}
		s->take_committed = 1;
	}
	if (new_rules)
		allowed = s->take_horizon <= horizon(s);	/* horizon - 1 precedes it */
	else
		allowed = s->take_horizon < horizon(s);	/* the latest completed xid */
	if (!allowed)
		return 1;
	s->base_seq = s->take_seq;
	s->take_tx = NONE;
	s->take_committed = 0;
	return 1;
}

static int
marker_committed(State *s)
{
	if (s->marker_tx == NONE)
		return 0;
	if (!s->marker_committed && tx_done(s, s->marker_tx))
		s->marker_committed = 1;
	return s->marker_committed;
}

static int
buffer_holds(const State *s, int w)
{
	return s->seq[w] != 0 && s->seq[w] > s->base_seq;
}

/*
 * A take (summary_buffer_take, by a merge or a refresh): the writers whose
 * hashes are copied; the markers the take's snapshot sees are deleted.
 */
static uint8_t
take(State *s, int tx)
{
	uint8_t		copied = 0;
	uint8_t		from;
	Snap		retire;

	settle(s);
	from = (!new_rules && s->take_tx != NONE && s->take_committed) ? s->take_seq : 0;
	for (int w = 0; w < NW; w++)
		if (buffer_holds(s, w) && s->seq[w] > from)
			copied |= 1 << w;
	retire = snapshot(s);
	for (int w = 0; w < NW; w++)
		if (s->marker_of[w] && (retire.vis & (1 << w)) &&
			(s->marker_del[w] == NONE || (s->aborted & (1 << s->marker_del[w]))))
			s->marker_del[w] = tx;
	s->take_tx = tx;
	s->take_committed = 0;
	s->take_seq = s->last_seq;
	s->take_horizon = new_rules ? s->next_xid : s->latest_completed;
	for (int w = 0; w < NW; w++)
		if ((copied & (1 << w)) && !tx_done(s, w) && s->xid[w] >= s->take_horizon)
			s->taken_in_flight |= 1 << w;
	s->marker_tx = NONE;
	s->marker_committed = 0;
	return copied;
}

/* ---- readers ---- */

static int
visible(const Snap *snap, uint8_t tx)
{
	return tx == NONE || (snap->vis & (1 << tx)) != 0;
}

/* Whether a reader under snap would skip the partition for writer w's key. */
static int
skips(const State *s, const Snap *snap, int w)
{
	int			v = 0;
	int			marker = 0;

	for (int i = 0; i < s->nver; i++)
		if (visible(snap, s->ver_tx[i]))
			v = i;
	if (s->ver_keys[v] & (1 << w))
		return 0;
	for (int m = 0; m < NW; m++)
		if (s->marker_of[m] && visible(snap, m) &&
			!(s->marker_del[m] != NONE && visible(snap, s->marker_del[m])))
			marker = 1;
	return !(marker && buffer_holds(s, w));
}

static void
report(int label)
{
	violations[label]++;
	if (printed[label])
		return;
	printed[label] = 1;
	fprintf(stderr, "counterexample, %s rules%s: %s\n", new_rules ? "new" : "today's",
			new_rules ? "" : " (expected)",
			label_names[label]);
	for (int i = 0; i < depth; i++)
		fprintf(stderr, "  %2d. %s\n", i + 1, trace[i]);
}

/* Whether the filter version snap sees is the refresh's. */
static int
refresh_seen(const State *s, const Snap *snap)
{
	return s->ver_tx[s->nver - 1] == TX_F && visible(snap, TX_F);
}

/* A read under snap; reader: its number, 0 for a snapshot taken at the end. */
static void
check_read(const State *s, const Snap *snap, int reader)
{
	reads_checked++;
	for (int w = 0; w < NW; w++)
		if (visible(snap, w) && skips(s, snap, w))
		{
			int			label = reader == 0 || refresh_seen(s, snap) ? LABEL_CASE4_REFRESH :
				(s->taken_in_flight & (1 << w)) ? LABEL_CASE4_HORIZON : LABEL_CASE3;

			if (reader == 0)
				snprintf(trace[depth], sizeof(trace[depth]),
						 "a new snapshot reads: W%d's row is visible, its key is skipped", w + 1);
			else
				snprintf(trace[depth], sizeof(trace[depth]),
						 "R%d reads: W%d's row is visible, its key is skipped", reader, w + 1);
			depth++;
			report(label);
			depth--;
		}
}

/* ---- the exploration ---- */

static void explore(const State *s);

static void
step(State *next, const char *what)
{
	if (depth >= MAXDEPTH)
	{
		fprintf(stderr, "trace too deep\n");
		exit(1);
	}
	snprintf(trace[depth], sizeof(trace[depth]), "%s", what);
	depth++;
	explore(next);
	depth--;
}

/* The keys of the newest committed version: what a merge's UPDATE reads. */
static uint8_t
newest_keys(const State *s)
{
	uint8_t		keys = 0;

	for (int i = 0; i < s->nver; i++)
		if (s->ver_tx[i] == NONE || tx_committed(s, s->ver_tx[i]))
			keys = s->ver_keys[i];
	return keys;
}

/* A rollback of the merge or the refresh: it leaves the proc array. */
static void
abort_step(const State *s, int tx)
{
	State		n = *s;

	n.aborted |= 1 << tx;
	leave_proc_array(&n, tx);
	if (tx == TX_M)
		n.mpc = 3;
	else
		n.fpc = 4;
	step(&n, tx == TX_M ? "M rolls back" : "F rolls back");
}

/* A new version of the partition's filter, written by tx. */
static void
add_version(State *n, int tx, uint8_t keys)
{
	n->ver_tx[n->nver] = tx;
	n->ver_keys[n->nver] = keys;
	n->nver++;
}

/* A transaction's commit: recorded in clog, then out of the proc array. */
static void
commit_step(State *n, int tx, int leave, const char *name, char *what, size_t size)
{
	if (leave)
	{
		leave_proc_array(n, tx);
		snprintf(what, size, "%s leaves the proc array: visible", name);
	}
	else
		snprintf(what, size, "%s commits in clog (still in the proc array)", name);
}

static void
explore_writer(const State *s, int w)
{
	State		n = *s;
	char		what[96];

	switch (s->wpc[w])
	{
		case 0:
			snprintf(what, sizeof(what), "W%d begins, xid %d, writes its row", w + 1, n.xid[w] = n.next_xid++);
			break;
		case 1:
			if (!marker_committed(&n))
			{
				n.marker_of[w] = 1;
				n.marker_tx = w;
				n.marker_committed = 0;
				snprintf(what, sizeof(what), "W%d writes a marker, appends its hash (seq %d)", w + 1, n.last_seq + 1);
			}
			else
				snprintf(what, sizeof(what), "W%d appends its hash (seq %d), relying on W%d's marker",
						 w + 1, n.last_seq + 1, n.marker_tx + 1);
			n.seq[w] = ++n.last_seq;
			break;
		case 2:
		case 3:
			{
				char		name[8];

				snprintf(name, sizeof(name), "W%d", w + 1);
				commit_step(&n, w, s->wpc[w] == 3, name, what, sizeof(what));
				break;
			}
		default:
			return;
	}
	n.wpc[w]++;
	step(&n, what);
}

static void
explore_merge(const State *s)
{
	State		n = *s;
	char		what[96];

	switch (s->mpc)
	{
		case 0:
			{
				Snap		now = snapshot(s);
				int			marker = 0;
				uint8_t		copied;

				if (s->fpc >= 1 && s->fpc <= 3)
					return;		/* the refresh holds the lock: wait */
				for (int w = 0; w < NW; w++)
					marker |= s->marker_of[w] && visible(&now, w) &&
						!(s->marker_del[w] != NONE && visible(&now, s->marker_del[w]));
				if (!marker)
				{
					/* nothing to merge: no row to update, no take */
					n.mpc = 3;
					step(&n, "M finds no marker: nothing to merge");
					return;
				}
				assign_xid(&n, TX_M);
				copied = take(&n, TX_M);
				add_version(&n, TX_M, newest_keys(&n) | copied);
				snprintf(what, sizeof(what), "M (xid %d) takes hashes {W:%d%d}, retires markers, horizon %d",
						 n.xid[TX_M], copied & 1, (copied >> 1) & 1, n.take_horizon);
				break;
			}
		case 1:
			abort_step(s, TX_M);
			/* FALLTHROUGH */
		case 2:
			commit_step(&n, TX_M, s->mpc == 2, "M", what, sizeof(what));
			break;
		default:
			return;
	}
	n.mpc++;
	step(&n, what);
}

static void
explore_refresh(const State *s)
{
	State		n = *s;
	char		what[96];

	switch (s->fpc)
	{
		case 0:
			if (s->mpc == 1 || s->mpc == 2)
				return;			/* the merge holds the lock */
			n.fsnap = snapshot(s);
			snprintf(what, sizeof(what), "F locks, takes its snapshot (xmin %d)", n.fsnap.xmin);
			break;
		case 1:
			{
				uint8_t		rows = 0;
				uint8_t		copied;

				for (int w = 0; w < NW; w++)
					if (visible(&s->fsnap, w))
						rows |= 1 << w;
				assign_xid(&n, TX_F);
				copied = take(&n, TX_F);
				add_version(&n, TX_F, rows | copied);
				snprintf(what, sizeof(what), "F (xid %d) rows {W:%d%d} + hashes {W:%d%d}, retires markers",
						 n.xid[TX_F], rows & 1, (rows >> 1) & 1, copied & 1, (copied >> 1) & 1);
				break;
			}
		case 2:
			abort_step(s, TX_F);
			/* FALLTHROUGH */
		case 3:
			commit_step(&n, TX_F, s->fpc == 3, "F", what, sizeof(what));
			break;
		default:
			return;
	}
	n.fpc++;
	step(&n, what);
}

static void
explore_reader(const State *s, int r)
{
	State		n = *s;
	char		what[96];

	if (s->rpc[r] == 0)
	{
		n.rsnap[r] = snapshot(s);
		snprintf(what, sizeof(what), "R%d takes a REPEATABLE READ snapshot (sees W:%d%d M:%d F:%d)",
				 r + 1, n.rsnap[r].vis & 1, (n.rsnap[r].vis >> 1) & 1,
				 (n.rsnap[r].vis >> TX_M) & 1, (n.rsnap[r].vis >> TX_F) & 1);
	}
	else if (s->rpc[r] == 1)
	{
		check_read(s, &s->rsnap[r], r + 1);
		snprintf(what, sizeof(what), "R%d reads: nothing skipped", r + 1);
	}
	else
		return;
	n.rpc[r]++;
	step(&n, what);
}

static void
explore(const State *s)
{
	State		n;
	int			moved = 0;

	if (seen(s))
		return;
	states_seen++;
	/* the refresh last: the first counterexample of each kind is the shortest */
	for (int w = 0; w < NW; w++)
		if (s->wpc[w] < 4)
		{
			explore_writer(s, w);
			moved = 1;
		}
	if (s->mpc < 3)
	{
		explore_merge(s);
		moved = 1;
	}
	for (int r = 0; r < NR; r++)
		if (s->rpc[r] < 2)
		{
			explore_reader(s, r);
			moved = 1;
		}
	n = *s;
	if (settle(&n) && memcmp(&n, s, sizeof(State)) != 0)
	{
		step(&n, n.take_tx == NONE ? "a backend settles the slot: the taken hashes leave" :
			 "a backend settles the slot: the take committed, its hashes stay");
		moved = 1;
	}
	if (s->fpc < 4)
	{
		explore_refresh(s);
		moved = 1;
	}
	if (!moved)
	{
		/* everything ended: a snapshot taken now sees every writer */
		Snap		now = snapshot(s);

		end_states++;
		check_read(s, &now, 0);
	}
}

static void
run_model(int rules)
{
	State		s;

	memset(&s, 0, sizeof(s));
	s.next_xid = 1;
	s.take_tx = NONE;
	s.marker_tx = NONE;
	memset(s.marker_del, NONE, sizeof(s.marker_del));
	s.nver = 1;
	s.ver_tx[0] = NONE;
	new_rules = rules;
	states_seen = end_states = reads_checked = 0;
	memset(violations, 0, sizeof(violations));
	memset(printed, 0, sizeof(printed));
	depth = 0;
	table_reset();
	explore(&s);
	fprintf(stderr, "%s rules: %ld states, %ld end states, %ld reads checked; "
			"violations: case 3 %ld, case 4 horizon %ld, case 4 refresh %ld\n",
			rules ? "new" : "today's", states_seen, end_states, reads_checked,
			violations[LABEL_CASE3], violations[LABEL_CASE4_HORIZON],
			violations[LABEL_CASE4_REFRESH]);
}

static void
test_todays_rules_lose_keys(void)
{
	run_model(0);
	CHECK(states_seen > 1000);
	CHECK(violations[LABEL_CASE3] > 0);
	CHECK(violations[LABEL_CASE4_HORIZON] > 0);
	CHECK(violations[LABEL_CASE4_REFRESH] > 0);
}

static void
test_new_rules_keep_the_invariant(void)
{
	run_model(1);
	CHECK(states_seen > 1000);
	CHECK(reads_checked > 1000);
	CHECK_EQ_U64(violations[LABEL_CASE3], 0);
	CHECK_EQ_U64(violations[LABEL_CASE4_HORIZON], 0);
	CHECK_EQ_U64(violations[LABEL_CASE4_REFRESH], 0);
}

int
main(void)
{
	RUN(test_todays_rules_lose_keys);
	RUN(test_new_rules_keep_the_invariant);
	table_reset();
	return unit_report("summary_protocol");
}

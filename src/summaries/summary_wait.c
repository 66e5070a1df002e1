/*
 * summary_wait.c
 *	  Test-only wait points of the shared buffer's protocol (doc/developer.md,
 *	  "Isolation specs").  With bloomfilter.test_wait_point set to a point's
 *	  name, a backend that reaches the point waits for the advisory lock
 *	  pg_advisory_lock(3400 + the point's number) in share mode and lets go
 *	  of it at once.  A session of an isolation spec that holds that lock
 *	  keeps the backend there (the isolation tester sees it blocked on a
 *	  lock), which is how a spec holds a writer's commit in flight after it
 *	  appended to the shared buffer, or a merge between taking the hashes
 *	  and writing the filter.  Off (the default) it costs one comparison.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/guc.h"

#include "summaries/summary_wait.h"

/* the advisory lock of point p: pg_advisory_lock(TEST_WAIT_LOCK_BASE + p) */
#define TEST_WAIT_LOCK_BASE 3400

static int	test_wait_point = TEST_WAIT_NONE;

static const struct config_enum_entry wait_point_options[] = {
	{"none", TEST_WAIT_NONE, false},
	{"buffer_append_after", TEST_WAIT_BUFFER_APPEND_AFTER, false},
	{"merge_take_after", TEST_WAIT_MERGE_TAKE_AFTER, false},
	{NULL, 0, false}
};

void
summary_wait_init(void)
{
	DefineCustomEnumVariable("bloomfilter.test_wait_point",
							 "Test only: the point of the shared buffer's protocol at which this backend waits for an advisory lock.",
							 "See doc/developer.md; none in production.",
							 &test_wait_point, TEST_WAIT_NONE, wait_point_options,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);
}

void
test_wait_at(SummaryWaitPoint point)
{
	LOCKTAG		tag;
	uint64		key = TEST_WAIT_LOCK_BASE + (uint64) point;

	if (test_wait_point != (int) point || point == TEST_WAIT_NONE)
		return;
	/* the tag pg_advisory_lock(bigint) takes */
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (key >> 32), (uint32) key, 1);
	(void) LockAcquire(&tag, ShareLock, false, false);
	LockRelease(&tag, ShareLock, false);
}

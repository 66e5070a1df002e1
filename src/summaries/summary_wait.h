/*
 * summary_wait.h
 *	  Test-only wait points of the shared buffer's protocol
 *	  (summary_wait.c): isolation specs hold a backend between two steps
 *	  of a writer or a merge by holding an advisory lock.
 */
#ifndef BLOOMFILTER_SUMMARY_WAIT_H
#define BLOOMFILTER_SUMMARY_WAIT_H

typedef enum SummaryWaitPoint
{
	TEST_WAIT_NONE = 0,
	TEST_WAIT_BUFFER_APPEND_AFTER,	/* a writer, its hashes appended, before it commits */
	TEST_WAIT_MERGE_TAKE_AFTER	/* a merge, the hashes taken, before it writes the filter */
} SummaryWaitPoint;

/* Defines bloomfilter.test_wait_point.  From summary_buffer_init. */
extern void summary_wait_init(void);

/*
 * When bloomfilter.test_wait_point names point: waits until the advisory
 * lock of that point (doc/developer.md) is free.
 */
extern void test_wait_at(SummaryWaitPoint point);

#endif

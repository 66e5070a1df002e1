/*
 * unit.h
 *	  A minimal unit-test harness: CHECK macros that count and report
 *	  failures with file and line, and a closing "N passed, N failed" line.
 */
#ifndef UNIT_H
#define UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int	unit_passed,
			unit_failed;

#define CHECK(cond) \
	do { \
		if (cond) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
	} while (0)

#define CHECK_EQ_U64(a, b) \
	do { \
		unsigned long long a_ = (unsigned long long) (a), b_ = (unsigned long long) (b); \
		if (a_ == b_) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: %s == %s (%llu != %llu)\n", \
									  __FILE__, __LINE__, #a, #b, a_, b_); } \
	} while (0)

#define CHECK_NEAR(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (fabs(a_ - b_) <= (tol)) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: %s ~ %s (%g vs %g, tolerance %g)\n", \
									  __FILE__, __LINE__, #a, #b, a_, b_, (double) (tol)); } \
	} while (0)

#define CHECK_STR(a, b) \
	do { \
		if (strcmp((a), (b)) == 0) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: \"%s\" == \"%s\"\n", __FILE__, __LINE__, (a), (b)); } \
	} while (0)

#define SKIP(why) fprintf(stderr, "%s:%d: skipped: %s\n", __FILE__, __LINE__, why)

#define RUN(test) \
	do { int f_ = unit_failed; test(); \
		 fprintf(stderr, "%-28s %s\n", #test, unit_failed == f_ ? "ok" : "FAILED"); } while (0)

/* Prints the closing line and returns the exit status. */
static inline int
unit_report(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, unit_passed, unit_failed);
	return unit_failed == 0 ? 0 : 1;
}

#endif

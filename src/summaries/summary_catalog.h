/*
 * summary_catalog.h
 *	  The tables of the managed summaries' catalog
 *	  (extension/install/65_managed_summaries.sql) as the C code reads
 *	  them: their names and the numbers of the columns it reads or writes
 *	  by position.  The one source of both for the writers
 *	  (summary_writer.c, summary_merge.c) and the readers
 *	  (summaries/summary_prune_catalog.c): a column added to a table is
 *	  added here.
 */
#ifndef BLOOMFILTER_SUMMARY_CATALOG_H
#define BLOOMFILTER_SUMMARY_CATALOG_H

/* bloom_summary_def: one row per summary */
#define SUMMARY_DEF_TABLE				"bloom_summary_def"
#define SUMMARY_DEF_SUMMARY_ID			1
#define SUMMARY_DEF_PARENT				2
#define SUMMARY_DEF_KEY_COLUMNS			3

/* bloom_summary_part: the filter of each leaf partition */
#define SUMMARY_PART_TABLE				"bloom_summary_part"
#define SUMMARY_PART_SUMMARY_ID			1
#define SUMMARY_PART_PARTITION			2
#define SUMMARY_PART_FILTER				3
#define SUMMARY_PART_MFILTER			4
#define SUMMARY_PART_TRUSTED			5

/*
 * bloom_summary_delta: the keys written since the partition's last merge.
 * Its first four columns are numbered as the part table's (the readers
 * read a row of either with the same numbers).
 */
#define SUMMARY_DELTA_TABLE				"bloom_summary_delta"
#define SUMMARY_DELTA_SUMMARY_ID		1
#define SUMMARY_DELTA_PARTITION			2
#define SUMMARY_DELTA_FILTER			3
#define SUMMARY_DELTA_MFILTER			4
#define SUMMARY_DELTA_NKEYS				5
#define SUMMARY_DELTA_ADDED_AT			6
#define SUMMARY_DELTA_BUFFER_EPOCH		7	/* a marker's epoch */
#define SUMMARY_DELTA_NATTS				7

#endif							/* BLOOMFILTER_SUMMARY_CATALOG_H */

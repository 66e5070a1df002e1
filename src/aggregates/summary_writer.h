/*
 * summary_writer.h
 *	  The write path of managed summaries: the row trigger
 *	  bloom_summary_collect and the flush of its buffers into delta rows
 *	  before commit (summary_writer.c).
 */
#ifndef BLOOMFILTER_SUMMARY_WRITER_H
#define BLOOMFILTER_SUMMARY_WRITER_H

/* Defines the settings and registers the transaction callback; from _PG_init. */
extern void bloom_summary_writer_init(void);

#endif

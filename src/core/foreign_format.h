/*-------------------------------------------------------------------------
 *
 * foreign_format.h
 *	  The former name of interop_format.h, for the one file that still
 *	  includes it (src/planner/batch_scan_exec.c): the header and the names
 *	  it used, mapped onto the interop names.  Delete this file once that
 *	  file includes core/interop_format.h and says bf_layout_interop,
 *	  bf_interop_query and bf_interop_query_batch.
 *
 *-------------------------------------------------------------------------
 */
#ifndef BF_FOREIGN_FORMAT_H
#define BF_FOREIGN_FORMAT_H

#include "interop_format.h"

#define bf_layout_foreign		bf_layout_interop
#define bf_foreign_query		bf_interop_query
#define bf_foreign_query_batch	bf_interop_query_batch

#endif							/* BF_FOREIGN_FORMAT_H */

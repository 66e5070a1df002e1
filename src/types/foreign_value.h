/*-------------------------------------------------------------------------
 *
 * foreign_value.h
 *	  The former name of interop_value.h, for the one file that still
 *	  includes it (src/planner/batch_scan_exec.c): the header and the names
 *	  it used, mapped onto the interop names.  Delete this file once that
 *	  file includes types/interop_value.h and says InteropEncoder,
 *	  bloom_interop_encoder_prepare and bloom_interop_hash.
 *
 *-------------------------------------------------------------------------
 */
#ifndef BLOOMFILTER_FOREIGN_VALUE_H
#define BLOOMFILTER_FOREIGN_VALUE_H

#include "types/interop_value.h"

#define ForeignEncoder					InteropEncoder
#define bloom_foreign_encoder_prepare	bloom_interop_encoder_prepare
#define bloom_foreign_hash				bloom_interop_hash

#endif							/* BLOOMFILTER_FOREIGN_VALUE_H */

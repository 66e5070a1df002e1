/*
 * module.c
 *	  The library's entry: PG_MODULE_MAGIC and _PG_init, which registers the
 *	  hooks and settings of the planner and executor integrations once, when
 *	  the library is loaded.  It sits above every wing of src/ and nothing
 *	  includes or calls it, so no lower file reaches up to it.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "pg_compat.h"
#include "summaries/summary_buffer.h"
#include "summaries/summary_writer.h"
#include "scan/batch_scan.h"
#include "citus/citus_agg_rewrite.h"
#include "citus/citus_repartition.h"
#include "helpers/extension_objects.h"
#include "semijoin/semijoin.h"
#include "summaries/summary_prune.h"
#include "joinfilter/joinfilter.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	extension_objects_init();
	bloom_semijoin_init();
	bloom_scan_init();
	bloom_distributed_agg_init();
	bloom_summary_writer_init();
	summary_buffer_init();
	summary_prune_init();
	bloom_citus_repartition_init();
	bloom_join_filter_init();

	/*
	 * Only once every setting is defined: reserving the prefix drops the
	 * placeholders of settings not defined yet, such as a value of
	 * bloomfilter.enable_batch_scan set before the library was loaded.
	 */
	MarkGUCPrefixReserved("bloomfilter");
}

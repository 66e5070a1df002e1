/*
 * bloom_interop.c
 *	  Filters other systems write, and filters for them: bloom_import and
 *	  bloom_export of Parquet split-block, Guava and Spark filters, bit for
 *	  bit, and bloom_empty in an interop layout with its options.  The formats
 *	  are the core's (core/interop_format.h); how values become interop
 *	  bytes, types/interop_value.h.  Documentation: doc/interop.md.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"

#include "core/interop_format.h"
#include "types/bloomfilter.h"
#include "types/interop_value.h"

PG_FUNCTION_INFO_V1(bloom_import);
PG_FUNCTION_INFO_V1(bloom_export);
PG_FUNCTION_INFO_V1(bloom_empty_options);

static int
format_from_text(text *t)
{
	char	   *name = text_to_cstring(t);
	int			format = bf_interop_format_from_name(name);

	if (format < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown foreign filter format \"%s\"", name),
				 errhint("Valid formats are \"parquet\", \"parquet_header\", \"guava\" and \"spark\".")));
	return format;
}

/* bloom_import(data bytea, format text, options text): the filter, probed as its writer probes. */
Datum
bloom_import(PG_FUNCTION_ARGS)
{
	bytea	   *data = PG_GETARG_BYTEA_PP(0);
	int			format = format_from_text(PG_GETARG_TEXT_PP(1));
	char	   *options = text_to_cstring(PG_GETARG_TEXT_PP(2));
	const uint8 *buf = (const uint8 *) VARDATA_ANY(data);
	BfInteropImport in;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	int			layout;
	uint64		word;
	BloomFilter *f;

	if (!bf_interop_parse(buf, VARSIZE_ANY_EXHDR(data), format, &in, errbuf))
	{
		const char *hint = bf_interop_parse_hint(buf, VARSIZE_ANY_EXHDR(data), format);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid %s filter", bf_interop_format_name(format)),
				 errdetail("%s", errbuf),
				 hint ? errhint("%s", hint) : 0));
	}
	layout = in.shape.layout;
	word = bloom_interop_options(options, &layout, false);
	f = bloom_alloc(&in.shape);
	bf_interop_fill(buf, &in, word, f);
	PG_RETURN_BLOOM(f);
}

/* bloom_export(f bloom, format text): the bytes the other system reads. */
Datum
bloom_export(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = PG_GETARG_BLOOM(0);
	int			format = format_from_text(PG_GETARG_TEXT_PP(1));
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64		bytes = bf_interop_export_bytes(f, format, errbuf);
	bytea	   *out;

	if (bytes == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot export this filter as %s", bf_interop_format_name(format)),
				 errdetail("%s.", errbuf),
				 errhint("Build the filter in the format's layout: bloom_empty(capacity, fpp, layout) or bloom_agg(value, capacity, fpp, layout) with layout \"parquet\", \"guava\", \"guava32\", \"spark\" or \"spark2\", or import it.")));
	if (bytes > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the exported filter would take " UINT64_FORMAT " bytes, more than a bytea holds",
						bytes)));
	out = (bytea *) palloc(VARHDRSZ + (Size) bytes);
	SET_VARSIZE(out, VARHDRSZ + bytes);
	bf_interop_export(f, format, (uint8 *) VARDATA(out));
	PG_RETURN_BYTEA_P(out);
}

/* bloom_empty(capacity, fpp, layout, options) */
Datum
bloom_empty_options(PG_FUNCTION_ARGS)
{
	BloomShape	shape;
	uint64		word = bloom_interop_shape(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
										   text_to_cstring(PG_GETARG_TEXT_PP(2)),
										   text_to_cstring(PG_GETARG_TEXT_PP(3)), &shape);
	BloomFilter *f = bloom_alloc(&shape);

	if (bf_layout_interop(f->layout))
		f->seed = word;
	PG_RETURN_BLOOM(f);
}

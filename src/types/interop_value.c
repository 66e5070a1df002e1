/*
 * interop_value.c
 *	  SQL values as another system's bytes (see interop_value.h and
 *	  doc/interop.md): Parquet's plain encoding of a physical type, Guava's
 *	  funnels, the input of Spark SQL's xxhash64 or of Spark's putLong and
 *	  putBinary; the options that choose among them; and the interop hash
 *	  of the bytes (core/interop_format.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "core/interop_format.h"
#include "types/bloomfilter.h"
#include "types/interop_value.h"

/* What bytes a value becomes. */
typedef enum EncodeKind
{
	EK_INT32,					/* 4 little-endian bytes */
	EK_INT64,					/* 8 little-endian bytes */
	EK_FLOAT,					/* IEEE single, little-endian */
	EK_DOUBLE,					/* IEEE double, little-endian */
	EK_FLOAT_SPARK,				/* the same, -0.0 as 0.0 (Spark SQL's hash) */
	EK_DOUBLE_SPARK,
	EK_BYTES,					/* the bytes (text: its UTF-8) */
	EK_UTF16,					/* text as UTF-16LE code units (unencoded chars) */
	EK_LONG_RAW					/* Spark putLong of the integer itself */
} EncodeKind;

/* How the Datum is read. */
typedef enum SourceKind
{
	SRC_INT,					/* int2, int4, int8: an integer */
	SRC_DATE,					/* days since 1970-01-01 */
	SRC_TIMESTAMP,				/* timestamp, timestamptz: since 1970 in the unit */
	SRC_FLOAT4,
	SRC_FLOAT8,
	SRC_TEXT,					/* text, varchar, bpchar: in UTF-8 */
	SRC_CSTRING,				/* an untyped literal: as text */
	SRC_BYTEA,
	SRC_UUID					/* its 16 bytes */
} SourceKind;

/* ---------------------------------------------------------------------
 * Options
 * --------------------------------------------------------------------- */

static const char *const encoding_names[] = {
	[BF_ENC_INT32] = "int32", [BF_ENC_INT64] = "int64", [BF_ENC_FLOAT] = "float",
	[BF_ENC_DOUBLE] = "double", [BF_ENC_BYTE_ARRAY] = "byte_array",
	[BF_ENC_FIXED_LEN_BYTE_ARRAY] = "fixed_len_byte_array",
	[BF_ENC_LONG] = "long", [BF_ENC_INTEGER] = "integer", [BF_ENC_STRING] = "string",
	[BF_ENC_UNENCODED_CHARS] = "unencoded_chars", [BF_ENC_BYTES] = "bytes",
};

static const char *
family_of(int layout)
{
	switch (layout)
	{
		case BLOOM_LAYOUT_PARQUET:
			return "parquet";
		case BLOOM_LAYOUT_GUAVA:
		case BLOOM_LAYOUT_GUAVA32:
			return "guava";
		default:
			return "spark";
	}
}

static pg_noreturn void
bad_option(const char *key, const char *value, const char *valid)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value \"%s\" for option \"%s\"", value, key),
			 errhint("Valid values are %s.", valid)));
}

/* The encoding named value among first .. last, or an ERROR. */
static unsigned
encoding_option(const char *key, const char *value, int first, int last, const char *valid)
{
	for (int e = first; e <= last; e++)
		if (strcmp(value, encoding_names[e]) == 0)
			return (unsigned) e;
	bad_option(key, value, valid);
}

static char *
trim(char *s)
{
	char	   *end;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		*--end = '\0';
	return s;
}

/* One key=value for a filter of *layout; returns the bits it sets. */
static uint64
one_option(char *key, char *value, int *layout, bool building)
{
	const char *family = family_of(*layout);
	bool		parquet = *layout == BLOOM_LAYOUT_PARQUET;
	bool		guava = strcmp(family, "guava") == 0;
	bool		spark = !parquet && !guava;
	bool		applies;

	if (strcmp(key, "funnel") == 0)
		applies = guava;
	else if (strcmp(key, "type") == 0 || strcmp(key, "timestamp_unit") == 0)
		applies = parquet;
	else if (strcmp(key, "hash") == 0 || strcmp(key, "version") == 0 || strcmp(key, "seed") == 0)
		applies = spark;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown option \"%s\"", key),
				 errhint("Options are funnel (guava), type and timestamp_unit (parquet), hash, version and seed (spark).")));
	if (!applies)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" does not apply to %s filters", key, family)));

	if (strcmp(key, "funnel") == 0)
		return (uint64) encoding_option(key, value, BF_ENC_LONG, BF_ENC_BYTES,
										"long, integer, string, unencoded_chars and bytes")
			<< BF_INTEROP_ENC_SHIFT;
	if (strcmp(key, "type") == 0)
		return (uint64) encoding_option(key, value, BF_ENC_INT32, BF_ENC_FIXED_LEN_BYTE_ARRAY,
										"int32, int64, float, double, byte_array and fixed_len_byte_array")
			<< BF_INTEROP_ENC_SHIFT;
	if (strcmp(key, "timestamp_unit") == 0)
	{
		if (strcmp(value, "micros") == 0)
			return (uint64) BF_TSUNIT_MICROS << BF_INTEROP_TSUNIT_SHIFT;
		if (strcmp(value, "millis") == 0)
			return (uint64) BF_TSUNIT_MILLIS << BF_INTEROP_TSUNIT_SHIFT;
		if (strcmp(value, "nanos") == 0)
			return (uint64) BF_TSUNIT_NANOS << BF_INTEROP_TSUNIT_SHIFT;
		bad_option(key, value, "micros, millis and nanos");
	}
	if (strcmp(key, "hash") == 0)
	{
		if (strcmp(value, "xxhash64") == 0)
			return 0;
		if (strcmp(value, "none") == 0)
			return BF_INTEROP_RAW_LONGS;
		bad_option(key, value, "xxhash64 and none");
	}
	if (!building)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" applies only when building a filter", key),
				 errdetail("An imported Spark filter's version and seed are read from its bytes.")));
	if (strcmp(key, "version") == 0)
	{
		if (strcmp(value, "1") == 0)
			*layout = BLOOM_LAYOUT_SPARK;
		else if (strcmp(value, "2") == 0)
			*layout = BLOOM_LAYOUT_SPARK2;
		else
			bad_option(key, value, "1 and 2");
		return 0;
	}
	/* seed: Spark version 2's, a 32-bit integer */
	{
		char	   *end;
		long long	v;

		errno = 0;
		v = strtoll(value, &end, 10);
		if (errno != 0 || *end != '\0' || end == value || v < PG_INT32_MIN || v > PG_INT32_MAX)
			bad_option(key, value, "integers from -2147483648 to 2147483647");
		return (uint64) (uint32) (int32) v;
	}
}

uint64
bloom_interop_options(const char *options, int *layout, bool building)
{
	char	   *copy = pstrdup(options);
	char	   *item;
	char	   *save = NULL;
	uint64		word = 0;
	uint64		seed = 0;
	bool		seen_enc = false;

	for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save))
	{
		char	   *eq = strchr(item, '=');
		char	   *key,
				   *value;
		uint64		bits;

		if (trim(item)[0] == '\0')
			continue;
		if (eq == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" has no value", trim(item)),
					 errhint("Options are written key=value, separated by commas.")));
		*eq = '\0';
		key = trim(item);
		value = trim(eq + 1);
		if (strcmp(key, "funnel") == 0 || strcmp(key, "type") == 0)
		{
			if (seen_enc)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"%s\" is given twice", key)));
			seen_enc = true;
		}
		bits = one_option(key, value, layout, building);
		if (strcmp(key, "seed") == 0)
			seed = bits;
		else
			word |= bits;
	}
	if (seed != 0 && *layout != BLOOM_LAYOUT_SPARK2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"seed\" applies only to Spark filters of version 2")));
	pfree(copy);
	return word | seed;
}

/*
 * The shape and interop hashing word of bloom_empty(capacity, fpp, layout,
 * options) and bloom_agg with options: an interop layout, the options its
 * format takes (Spark's version may change the layout).
 */
uint64
bloom_interop_shape(int64 capacity, double fpp, const char *layout_name, const char *options,
					BloomShape *shape)
{
	int			layout = bloom_layout_from_name(layout_name);
	uint64		word = 0;

	if (!bf_layout_interop(layout))
	{
		if (options[0] != '\0')
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options apply only to the foreign layouts, not to \"%s\"", layout_name),
					 errhint("Foreign layouts are \"parquet\", \"guava\", \"guava32\", \"spark\" and \"spark2\".")));
	}
	else
		word = bloom_interop_options(options, &layout, true);
	bloom_shape_for_capacity(capacity, fpp, layout, shape);
	return word;
}

int
bloom_interop_layout_from_name(const char *name)
{
	int			layout = bf_layout_from_name(name);

	return layout >= 0 && bf_layout_interop(layout) ? layout : -1;
}

/* ---------------------------------------------------------------------
 * Encoders: which bytes for which type
 * --------------------------------------------------------------------- */

static bool
source_of(Oid typid, int *source)
{
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			*source = SRC_INT;
			return true;
		case DATEOID:
			*source = SRC_DATE;
			return true;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*source = SRC_TIMESTAMP;
			return true;
		case FLOAT4OID:
			*source = SRC_FLOAT4;
			return true;
		case FLOAT8OID:
			*source = SRC_FLOAT8;
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			*source = SRC_TEXT;
			return true;
		case UNKNOWNOID:
			*source = SRC_CSTRING;
			return true;
		case BYTEAOID:
			*source = SRC_BYTEA;
			return true;
		case UUIDOID:
			*source = SRC_UUID;
			return true;
		default:
			return false;
	}
}

static bool
is_integer_source(int src, Oid typid)
{
	return src == SRC_INT || src == SRC_DATE || src == SRC_TIMESTAMP;
}

static bool
is_string_source(int src)
{
	return src == SRC_TEXT || src == SRC_CSTRING;
}

/* Parquet: the physical type (given or by the SQL type), and its bytes. */
static bool
parquet_kind(unsigned enc, int src, Oid typid, int *kind)
{
	if (enc == BF_ENC_DEFAULT)
	{
		if (typid == INT8OID || src == SRC_TIMESTAMP)
			enc = BF_ENC_INT64;
		else if (src == SRC_INT || src == SRC_DATE)
			enc = BF_ENC_INT32;
		else if (src == SRC_FLOAT4)
			enc = BF_ENC_FLOAT;
		else if (src == SRC_FLOAT8)
			enc = BF_ENC_DOUBLE;
		else if (src == SRC_UUID)
			enc = BF_ENC_FIXED_LEN_BYTE_ARRAY;
		else
			enc = BF_ENC_BYTE_ARRAY;
	}
	switch (enc)
	{
		case BF_ENC_INT32:
		case BF_ENC_INT64:
			*kind = enc == BF_ENC_INT32 ? EK_INT32 : EK_INT64;
			return is_integer_source(src, typid);
		case BF_ENC_FLOAT:
		case BF_ENC_DOUBLE:
			*kind = enc == BF_ENC_FLOAT ? EK_FLOAT : EK_DOUBLE;
			return src == SRC_FLOAT4 || src == SRC_FLOAT8;
		default:
			*kind = EK_BYTES;
			return is_string_source(src) || src == SRC_BYTEA || src == SRC_UUID;
	}
}

/* Guava: the funnel (given or by the SQL type). */
static bool
guava_kind(unsigned enc, int src, Oid typid, int *kind)
{
	if (enc == BF_ENC_DEFAULT)
		enc = typid == INT8OID ? BF_ENC_LONG
			: src == SRC_INT ? BF_ENC_INTEGER
			: is_string_source(src) ? BF_ENC_STRING : BF_ENC_BYTES;
	switch (enc)
	{
		case BF_ENC_LONG:
		case BF_ENC_INTEGER:
			*kind = enc == BF_ENC_LONG ? EK_INT64 : EK_INT32;
			return src == SRC_INT;
		case BF_ENC_STRING:
			*kind = EK_BYTES;
			return is_string_source(src);
		case BF_ENC_UNENCODED_CHARS:
			*kind = EK_UTF16;
			return is_string_source(src);
		default:
			*kind = EK_BYTES;
			return is_string_source(src) || src == SRC_BYTEA || src == SRC_UUID;
	}
}

/* Spark: what Spark SQL's xxhash64 reads, or what putLong / putBinary take. */
static bool
spark_kind(bool raw, int src, Oid typid, int *kind)
{
	if (raw)
	{
		*kind = src == SRC_INT ? EK_LONG_RAW : EK_BYTES;
		return src == SRC_INT || is_string_source(src) || src == SRC_BYTEA;
	}
	switch (src)
	{
		case SRC_INT:
			*kind = typid == INT8OID ? EK_INT64 : EK_INT32;
			return true;
		case SRC_DATE:
			*kind = EK_INT32;
			return true;
		case SRC_TIMESTAMP:
			*kind = EK_INT64;
			return true;
		case SRC_FLOAT4:
			*kind = EK_FLOAT_SPARK;
			return true;
		case SRC_FLOAT8:
			*kind = EK_DOUBLE_SPARK;
			return true;
		case SRC_UUID:
			return false;
		default:
			*kind = EK_BYTES;
			return true;
	}
}

void
bloom_interop_encoder_prepare(InteropEncoder *enc, const BloomFilter *f, Oid typid)
{
	unsigned	option = bf_interop_encoding(f->seed);
	int			src = 0,
				kind = 0;
	bool		ok;

	if (!source_of(typid, &src))
		ok = false;
	else if (f->layout == BLOOM_LAYOUT_PARQUET)
		ok = parquet_kind(option, src, typid, &kind);
	else if (f->layout == BLOOM_LAYOUT_GUAVA || f->layout == BLOOM_LAYOUT_GUAVA32)
		ok = guava_kind(option, src, typid, &kind);
	else
		ok = spark_kind(bf_interop_raw_longs(f), src, typid, &kind);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("values of type %s cannot be probed in a %s filter%s%s",
						format_type_be(typid), bf_layout_name(f->layout),
						option ? " with encoding " : "", option ? encoding_names[option] : ""),
				 errhint("Cast the value to a type doc/interop.md maps to the filter's encoding, or name another with the import options.")));
	enc->typid = typid;
	enc->layout = f->layout;
	enc->seed = f->seed;
	enc->nbits = f->nbits;
	enc->mod = bf_modulus(f->nbits);
	enc->kind = kind;
	enc->source = src;
}

InteropEncoder *
bloom_interop_encoder_for_arg(FunctionCallInfo fcinfo, void **slot, const BloomFilter *f,
							  int argno)
{
	InteropEncoder *enc = (InteropEncoder *) *slot;

	if (likely(enc != NULL && enc->layout == f->layout && enc->seed == f->seed &&
			   enc->nbits == f->nbits))
		return enc;
	if (enc == NULL)
	{
		enc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(InteropEncoder));
		enc->typid = get_fn_expr_argtype(fcinfo->flinfo, argno);
		*slot = enc;
	}
	bloom_interop_encoder_prepare(enc, f, enc->typid);
	return enc;
}

/* ---------------------------------------------------------------------
 * Values as bytes
 * --------------------------------------------------------------------- */

/* Days and microseconds between 1970-01-01 and PostgreSQL's 2000-01-01. */
#define EPOCH_DAYS		((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE))
#define EPOCH_MICROS	(EPOCH_DAYS * USECS_PER_DAY)

static pg_noreturn void
out_of_range(const char *what, const char *target)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s has no %s encoding", what, target)));
}

/* The integer a Datum of an integer source stands for. */
static int64
integer_value(const InteropEncoder *enc, const BloomFilter *f, Datum value)
{
	switch (enc->source)
	{
		case SRC_DATE:
			{
				DateADT		d = DatumGetDateADT(value);

				if (DATE_NOT_FINITE(d))
					out_of_range("an infinite date", "foreign");
				return (int64) d + EPOCH_DAYS;
			}
		case SRC_TIMESTAMP:
			{
				Timestamp	t = DatumGetTimestamp(value);
				int64		us;

				if (TIMESTAMP_NOT_FINITE(t))
					out_of_range("an infinite timestamp", "foreign");
				us = t + EPOCH_MICROS;	/* finite timestamps are far from overflow */
				if (f->layout != BLOOM_LAYOUT_PARQUET)
					return us;
				switch (bf_interop_tsunit(f->seed))
				{
					case BF_TSUNIT_MILLIS:
						return us >= 0 ? us / 1000 : -((-us + 999) / 1000);
					case BF_TSUNIT_NANOS:
						if (us > PG_INT64_MAX / 1000 || us < PG_INT64_MIN / 1000)
							out_of_range("a timestamp beyond 1677..2262", "nanosecond");
						return us * 1000;
					default:
						return us;
				}
			}
		default:
			switch (enc->typid)
			{
				case INT2OID:
					return DatumGetInt16(value);
				case INT4OID:
					return DatumGetInt32(value);
				default:
					return DatumGetInt64(value);
			}
	}
}

/* Text in UTF-8: its bytes, converted from the server's encoding if need be. */
static const char *
utf8_of(const InteropEncoder *enc, Datum value, int *len)
{
	const char *s;

	if (enc->source == SRC_CSTRING)
	{
		s = DatumGetCString(value);
		*len = strlen(s);
	}
	else
	{
		text	   *t = DatumGetTextPP(value);

		s = VARDATA_ANY(t);
		*len = VARSIZE_ANY_EXHDR(t);
		if (enc->typid == BPCHAROID)
			*len = bpchartruelen((char *) s, *len);
	}
	if (GetDatabaseEncoding() != PG_UTF8)
	{
		s = pg_server_to_any(s, *len, PG_UTF8);
		*len = strlen(s);
	}
	return s;
}

/* UTF-8 as UTF-16LE code units (Java's chars), into out (2 * len bytes). */
static size_t
utf16_of(const unsigned char *s, int len, uint8 *out)
{
	size_t		n = 0;

	for (int i = 0; i < len;)
	{
		int			l = pg_utf_mblen(s + i);
		pg_wchar	c;

		if (i + l > len)
			l = len - i;
		c = utf8_to_unicode(s + i);
		i += l;
		if (c >= 0x10000)
		{
			uint32		v = c - 0x10000;
			uint16		hi = (uint16) (0xd800 + (v >> 10)),
						lo = (uint16) (0xdc00 + (v & 0x3ff));

			out[n++] = hi & 0xff;
			out[n++] = hi >> 8;
			out[n++] = lo & 0xff;
			out[n++] = lo >> 8;
		}
		else
		{
			out[n++] = c & 0xff;
			out[n++] = (c >> 8) & 0xff;
		}
	}
	return n;
}

static void
put_le(uint8 *p, uint64 v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8) (v >> (8 * i));
}

/* A float or double's bits; Spark SQL hashes -0.0 as 0.0. */
static uint64
float_bits(const InteropEncoder *enc, Datum value, bool single)
{
	double		d = enc->source == SRC_FLOAT4 ? DatumGetFloat4(value) : DatumGetFloat8(value);

	if ((enc->kind == EK_FLOAT_SPARK || enc->kind == EK_DOUBLE_SPARK) && d == 0.0)
		d = 0.0;
	if (single)
	{
		float4		x = (float4) d;
		uint32		u;

		memcpy(&u, &x, 4);
		return u;
	}
	else
	{
		uint64		u;

		memcpy(&u, &d, 8);
		return u;
	}
}

BloomHash
bloom_interop_hash(const InteropEncoder *enc, const BloomFilter *f, Datum value)
{
	uint8		buf[16];

	switch (enc->kind)
	{
		case EK_INT32:
			{
				int64		v = integer_value(enc, f, value);

				if (v < PG_INT32_MIN || v > PG_INT32_MAX)
					out_of_range(psprintf("integer " INT64_FORMAT, v), "32-bit");
				return bf_interop_hash_int(f, (uint32) v, 4);
			}
		case EK_INT64:
			return bf_interop_hash_int(f, (uint64) integer_value(enc, f, value), 8);
		case EK_LONG_RAW:
			return bf_interop_hash_long(f, (uint64) integer_value(enc, f, value));
		case EK_FLOAT:
		case EK_FLOAT_SPARK:
			put_le(buf, float_bits(enc, value, true), 4);
			return bf_interop_hash_bytes(f, buf, 4);
		case EK_DOUBLE:
		case EK_DOUBLE_SPARK:
			put_le(buf, float_bits(enc, value, false), 8);
			return bf_interop_hash_bytes(f, buf, 8);
		case EK_UTF16:
			{
				int			len;
				const char *s = utf8_of(enc, value, &len);
				uint8	   *out = palloc(2 * (Size) len + 1);
				size_t		n = utf16_of((const unsigned char *) s, len, out);
				BloomHash	h = bf_interop_hash_bytes(f, out, n);

				pfree(out);
				return h;
			}
		default:
			break;
	}
	/* EK_BYTES */
	switch (enc->source)
	{
		case SRC_UUID:
			return bf_interop_hash_bytes(f, DatumGetUUIDP(value)->data, UUID_LEN);
		case SRC_BYTEA:
			{
				bytea	   *b = DatumGetByteaPP(value);

				return bf_interop_hash_bytes(f, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
			}
		default:
			{
				int			len;
				const char *s = utf8_of(enc, value, &len);

				return bf_interop_hash_bytes(f, s, len);
			}
	}
}

bool
bloom_interop_contains(const InteropEncoder *enc, const BloomFilter *f, Datum value)
{
	return bf_interop_query(f, &enc->mod, bloom_interop_hash(enc, f, value));
}

/*
 * test_text7.c
 *	  The seven-bit text form (core/text7.h): known texts, round trips of
 *	  random and sparse bytes, its density, and every malformed text
 *	  refused.
 */
#include "unit.h"

#include "core/text7.h"

/* bytes -> text (NUL-terminated, in a new buffer) */
static char *
encode(const uint8_t *bytes, size_t len)
{
	uint64_t	n = bf_text7_encoded_len(bytes, len);
	char	   *out = malloc(n + 1);

	bf_text7_encode(bytes, len, out);
	out[n] = 0;
	return out;
}

/* true if text decodes to exactly the len bytes at expect */
static bool
decodes_to(const char *text, const uint8_t *expect, size_t len)
{
	uint64_t	n;
	char		err[BLOOM_ERRBUF_SIZE];
	uint8_t    *back;
	bool		same;

	if (!bf_text7_decoded_len(text, strlen(text), &n, err) || n != len)
		return false;
	back = malloc(n + 1);
	bf_text7_decode(text, strlen(text), back);
	same = memcmp(back, expect, len) == 0;
	free(back);
	return same;
}

static void
test_known(void)
{
	static const uint8_t zeros[7] = {0};
	static const uint8_t one[] = {0x80};
	static const uint8_t ff[] = {0xFF};
	const struct
	{
		const uint8_t *bytes;
		size_t		len;
		const char *text;
	}			cases[] = {
		/* 1000000 (0x40), then a padding group of 0: a run of one */
		{one, 1, "@\x7f\x01"},
		/* 1111111 (127, escaped), then 1 and six padding bits */
		{ff, 1, "\x7f\x7f@"},
		/* 7 zero bytes: 8 zero groups, one run */
		{zeros, 7, "\x7f\x08"},
		{zeros, 0, ""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *t = encode(cases[i].bytes, cases[i].len);

		CHECK_STR(t, cases[i].text);
		CHECK(decodes_to(t, cases[i].bytes, cases[i].len));
		free(t);
	}
}

static void
test_round_trips(void)
{
	uint64_t	x = 88172645463325252ULL;

	for (size_t len = 0; len < 300; len++)
	{
		uint8_t    *bytes = malloc(len + 1);
		char	   *t;

		for (int sparse = 0; sparse < 2; sparse++)
		{
			for (size_t i = 0; i < len; i++)
			{
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				bytes[i] = sparse ? ((x % 97) == 0 ? (uint8_t) x : 0) : (uint8_t) x;
			}
			t = encode(bytes, len);
			CHECK(decodes_to(t, bytes, len));
			for (size_t i = 0; t[i]; i++)
				CHECK((unsigned char) t[i] >= 1 && (unsigned char) t[i] <= 0x7F);
			free(t);
		}
		free(bytes);
	}
}

/* Random bits: about 8/7 * (1 + 2/128) characters a byte; zeros: few. */
static void
test_density(void)
{
	size_t		len = 1 << 20;
	uint8_t    *bytes = malloc(len);
	uint64_t	x = 1234567;
	double		ratio;

	for (size_t i = 0; i < len; i++)
	{
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		bytes[i] = (uint8_t) (x >> 56);
	}
	ratio = (double) bf_text7_encoded_len(bytes, len) / len;
	CHECK(ratio > 1.14 && ratio < 1.165);
	memset(bytes, 0, len);
	CHECK(bf_text7_encoded_len(bytes, len) < len / 50);
	free(bytes);
}

static void
test_refused(void)
{
	const char *bad[] = {
		"\x80",					/* not ASCII */
		"@\x7f",				/* a dangling escape */
		"@\x7f\x80",			/* an escape followed by a non-ASCII byte */
		"@",					/* 7 bits: no byte, and not padding */
		"A",					/* 7 bits with bits set */
		"@\x01",				/* 0x80 with a padding bit set */
		"\x7f\x03\x7f\x05",		/* a run split in two */
		"\x7f\x09",				/* 9 zero groups: 63 bits, a group of padding */
	};
	uint64_t	n;
	char		err[BLOOM_ERRBUF_SIZE];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		CHECK(!bf_text7_decoded_len(bad[i], strlen(bad[i]), &n, err));
		CHECK(err[0] != 0);
	}
	/* a run of 126 may be followed by another */
	{
		uint8_t		zeros[128] = {0};
		char	   *t = encode(zeros, 128);	/* 147 groups: 126 + 21 */

		CHECK_STR(t, "\x7f\x7e\x7f\x15");
		CHECK(decodes_to(t, zeros, 128));
		free(t);
	}
}

int
main(void)
{
	RUN(test_known);
	RUN(test_round_trips);
	RUN(test_density);
	RUN(test_refused);
	return unit_report("text7");
}

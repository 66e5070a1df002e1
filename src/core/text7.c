/*
 * text7.c
 *	  The seven-bit text form: see text7.h.
 */
#include "text7.h"

/* ---------------------------------------------------------------------
 * Encoding: one pass that counts, or writes when given a buffer
 * --------------------------------------------------------------------- */

typedef struct Text7Writer
{
	char	   *dst;			/* NULL: count only */
	uint64_t	len;			/* characters so far */
	unsigned	run;			/* zero groups not yet written */
} Text7Writer;

static inline void
put_char(Text7Writer *w, unsigned c)
{
	if (w->dst)
		w->dst[w->len] = (char) c;
	w->len++;
}

static inline void
flush_run(Text7Writer *w)
{
	if (w->run == 0)
		return;
	put_char(w, BF_TEXT7_ESC);
	put_char(w, w->run);
	w->run = 0;
}

static inline void
put_group(Text7Writer *w, unsigned v)
{
	if (v == 0)
	{
		if (++w->run == BF_TEXT7_MAX_RUN)
			flush_run(w);
		return;
	}
	flush_run(w);
	if (v == BF_TEXT7_ESC)
		put_char(w, BF_TEXT7_ESC);
	put_char(w, v);
}

static uint64_t
text7_write(const uint8_t *src, size_t len, char *dst)
{
	Text7Writer w = {dst, 0, 0};
	uint32_t	acc = 0;		/* the bits not yet in a group */
	int			nbits = 0;

	for (size_t i = 0; i < len; i++)
	{
		acc = (acc << 8) | src[i];
		nbits += 8;
		while (nbits >= 7)
		{
			nbits -= 7;
			put_group(&w, (acc >> nbits) & 0x7F);
		}
		acc &= (1u << nbits) - 1;
	}
	if (nbits > 0)
		put_group(&w, (acc << (7 - nbits)) & 0x7F);
	flush_run(&w);
	return w.len;
}

uint64_t
bf_text7_encoded_len(const uint8_t *src, size_t len)
{
	return text7_write(src, len, NULL);
}

void
bf_text7_encode(const uint8_t *src, size_t len, char *dst)
{
	text7_write(src, len, dst);
}

/* ---------------------------------------------------------------------
 * Decoding: one pass that checks and counts, or writes
 * --------------------------------------------------------------------- */

typedef struct Text7Reader
{
	uint8_t    *dst;			/* NULL: check and count only */
	uint64_t	nbytes;			/* bytes so far */
	uint32_t	acc;			/* bits not yet in a byte */
	int			nbits;
} Text7Reader;

static inline void
take_group(Text7Reader *r, unsigned v)
{
	r->acc = (r->acc << 7) | v;
	r->nbits += 7;
	if (r->nbits >= 8)
	{
		r->nbits -= 8;
		if (r->dst)
			r->dst[r->nbytes] = (uint8_t) (r->acc >> r->nbits);
		r->nbytes++;
	}
	r->acc &= (1u << r->nbits) - 1;
}

static bool
text7_read(const char *src, size_t len, uint8_t *dst, uint64_t *outlen, char *errbuf)
{
	Text7Reader r = {dst, 0, 0, 0};
	bool		after_short_run = false;

	for (size_t i = 0; i < len; i++)
	{
		unsigned	c = (unsigned char) src[i];
		unsigned	next;

		if (c == 0 || c > 0x7F)
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "character %zu (byte 0x%02x) is not one of 0x01 to 0x7f", i + 1, c);
			return false;
		}
		if (c != BF_TEXT7_ESC)
		{
			take_group(&r, c);
			after_short_run = false;
			continue;
		}
		if (++i == len || (next = (unsigned char) src[i]) == 0 || next > 0x7F)
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "the escape at character %zu is not followed by a count or 0x7f", i);
			return false;
		}
		if (next == BF_TEXT7_ESC)
		{
			take_group(&r, BF_TEXT7_ESC);
			after_short_run = false;
			continue;
		}
		if (after_short_run)
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "the run of zeros at character %zu continues a run shorter than %d",
					 i - 1, BF_TEXT7_MAX_RUN);
			return false;
		}
		for (unsigned k = 0; k < next; k++)
			take_group(&r, 0);
		after_short_run = next < BF_TEXT7_MAX_RUN;
	}
	/* a whole group of padding, or padding bits set: not the encoder's text */
	if (r.nbits >= 7 || r.acc != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "the text ends with %d bits that are not zero padding of its last byte", r.nbits);
		return false;
	}
	*outlen = r.nbytes;
	return true;
}

bool
bf_text7_decoded_len(const char *src, size_t len, uint64_t *outlen, char *errbuf)
{
	return text7_read(src, len, NULL, outlen, errbuf);
}

void
bf_text7_decode(const char *src, size_t len, uint8_t *dst)
{
	uint64_t	n;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	(void) text7_read(src, len, dst, &n, errbuf);
}

/*
 * text7.h
 *	  A dense text form of bytes: seven bits per character, every character
 *	  ASCII and none NUL, so the text is valid in every server encoding
 *	  (all are ASCII supersets) and passes a cstring unchanged.  It is the
 *	  text form of the aggregate states (aggregates/agg_state.c), which
 *	  Citus moves between nodes as their type's text output
 *	  (worker_partial_agg): about 1.16 characters per byte of random bits
 *	  against base64's 1.33, and runs of zero bits shrink.
 *
 *	  The bytes are read as one stream of bits, most significant bit of
 *	  each byte first, cut into groups of seven bits (the last group padded
 *	  with zero bits); n bytes make ceil(8n / 7) groups.  A group of value
 *	  v is the character v when 1 <= v <= 126; the others take two
 *	  characters, ESC (0x7F) and then:
 *		0x7F		one group of value 127
 *		c, 1..126	c groups of value 0 (a run, as long as it can be: a run
 *					shorter than 126 is never followed by another run)
 *	  One text per value: anything else (a character above 0x7F, a
 *	  dangling ESC, a run split in two, a group count no byte count gives,
 *	  padding bits not zero) is an error.
 */
#ifndef BF_TEXT7_H
#define BF_TEXT7_H

#include "bf_base.h"

#define BF_TEXT7_ESC	0x7F
#define BF_TEXT7_MAX_RUN 126

/* Length of the text for the len bytes at src (no terminator). */
extern uint64_t bf_text7_encoded_len(const uint8_t *src, size_t len);

/* Writes bf_text7_encoded_len(src, len) characters to dst (no terminator). */
extern void bf_text7_encode(const uint8_t *src, size_t len, char *dst);

/*
 * Checks the len characters at src and finds how many bytes they decode
 * to; false with a message (at most BLOOM_ERRBUF_SIZE bytes) if they are
 * not a text of this form.  The size can reach 55 times len (runs of zero
 * bits): check it before allocating.
 */
extern bool bf_text7_decoded_len(const char *src, size_t len, uint64_t *outlen,
								 char *errbuf);

/* Decodes a text bf_text7_decoded_len accepted into its *outlen bytes at dst. */
extern void bf_text7_decode(const char *src, size_t len, uint8_t *dst);

#endif							/* BF_TEXT7_H */

/*
 * base64.h
 *	  Strict, canonical base64 (RFC 4648, '=' padding, no whitespace, zero
 *	  pad bits), so that the text form of a value round-trips exactly: one
 *	  text per value, and any other text an error.
 *
 *	  Include this for the text form of bloom and multibloom (base64 of the
 *	  binary form of core/wire.h and core/multibloom.h).
 */
#ifndef BF_BASE64_H
#define BF_BASE64_H

#include "bf_base.h"

/* Length of the text for nbytes bytes (no terminator). */
extern uint64_t bf_base64_encoded_len(uint64_t nbytes);

/* Writes bf_base64_encoded_len(len) characters to dst (no terminator). */
extern void bf_base64_encode(const uint8_t *src, size_t len, char *dst);

/* Most bytes len characters decode to: the size of dst for bf_base64_decode. */
extern uint64_t bf_base64_decoded_max(size_t len);

/*
 * Decodes canonical base64; returns false with a message (at most
 * BLOOM_ERRBUF_SIZE bytes) on any other input.  *outlen receives the
 * decoded length.
 */
extern bool bf_base64_decode(const char *src, size_t len, uint8_t *dst,
							 size_t *outlen, char *errbuf);

#endif							/* BF_BASE64_H */

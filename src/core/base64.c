/*
 * base64.c
 *	  Strict base64 of the text forms: see base64.h.
 */
#include "base64.h"

static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

uint64_t
bf_base64_encoded_len(uint64_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

void
bf_base64_encode(const uint8_t *src, size_t len, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= len; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64_alphabet[v >> 18];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = b64_alphabet[(v >> 6) & 63];
		*dst++ = b64_alphabet[v & 63];
	}
	if (i < len)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t) src[i + 1] << 8;
		*dst++ = b64_alphabet[v >> 18];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = (i + 1 < len) ? b64_alphabet[(v >> 6) & 63] : '=';
		*dst++ = '=';
	}
}

uint64_t
bf_base64_decoded_max(size_t len)
{
	return (uint64_t) len / 4 * 3;
}

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

bool
bf_base64_decode(const char *src, size_t len, uint8_t *dst, size_t *outlen, char *errbuf)
{
	size_t		out = 0;

	if (len % 4 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "base64 text length %zu is not a multiple of 4", len);
		return false;
	}
	for (size_t i = 0; i < len; i += 4)
	{
		int			v[4];
		int			pad = 0;
		bool		last = (i + 4 == len);

		for (int j = 0; j < 4; j++)
		{
			unsigned char c = (unsigned char) src[i + j];

			if (c == '=' && last && j >= 2)
			{
				/* '=' only at the end, and "x=y=" is not allowed */
				if (j == 2 && src[i + 3] != '=')
				{
					snprintf(errbuf, BLOOM_ERRBUF_SIZE,
							 "invalid base64 padding at position %zu", i + 3);
					return false;
				}
				v[j] = 0;
				pad++;
				continue;
			}
			v[j] = b64_value(c);
			if (v[j] < 0 || pad > 0)
			{
				snprintf(errbuf, BLOOM_ERRBUF_SIZE,
						 "invalid base64 character at position %zu", i + j + 1);
				return false;
			}
		}
		/* the bits that padding discards must be zero (canonical form) */
		if ((pad == 1 && (v[2] & 3)) || (pad == 2 && (v[1] & 15)))
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "non-canonical base64 padding at position %zu", i + 1);
			return false;
		}
		dst[out++] = (uint8_t) ((v[0] << 2) | (v[1] >> 4));
		if (pad < 2)
			dst[out++] = (uint8_t) (((v[1] & 15) << 4) | (v[2] >> 2));
		if (pad < 1)
			dst[out++] = (uint8_t) (((v[2] & 3) << 6) | v[3]);
	}
	*outlen = out;
	return true;
}

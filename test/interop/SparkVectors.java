/*
 * SparkVectors: test vectors for the extension's 'spark' format, made by a
 * program written from the algorithm that Apache Spark's sketch module
 * (org.apache.spark.util.sketch.BloomFilter, BloomFilterImpl = version 1,
 * BloomFilterImplV2 = version 2, BitArray, Murmur3_x86_32) and Spark SQL's
 * xxhash64 publish, since no Spark runs here.  It shares no code with the
 * extension and none with Spark.
 *
 * Before writing anything it checks its hash functions against values that
 * Spark itself publishes:
 *   - XXH64: the known answers of Spark's XXH64Suite / XxHash64Suite (seeds
 *     0 and 2654435761 over prefixes of that suite's test buffer, hashInt and
 *     hashLong), and the documented example of the SQL function,
 *     xxhash64('Spark', array(123), 2) = 5602566077635097486 (seed 42);
 *   - Murmur3_x86_32 as Spark uses it (trailing bytes each mixed as a whole
 *     block): the documented example hash('Spark', array(123), 2) =
 *     -1321691492 (seed 42).
 * It exits non-zero if any differs.
 *
 *   java SparkVectors > spark_vectors.txt
 *
 * Output, tab-separated lines:
 *   xxh64  LENGTH  INPUT  EXPECTED  BITSET
 *       a known XXH64 (seed 0) of INPUT (hex), the first LENGTH bytes of the
 *       suite's buffer, and a one-block Parquet split-block bitset (hex) holding just
 *       that hash, so that a 'parquet' filter with type=byte_array must find
 *       those bytes
 *   filter  NAME  VERSION  SEED  TYPE  HASH  N  FPP  HEX  POSITIVES
 *       the bytes writeTo gives for a filter made as BloomFilter.create(
 *       VERSION, N, optimalNumOfBits(N, FPP), SEED), holding member(i) for
 *       i = 0..N-1, each put as Spark does: HASH=xxhash64 puts the long that
 *       Spark SQL's xxhash64(value) returns (what bloom_filter_agg stores),
 *       HASH=none puts the value itself (putLong of integers, putBinary of
 *       bytes, putString of text); POSITIVES: the indices j in 0..9999 of
 *       the non-members nonmember(j) for which mightContain answers true
 *       ('-' if none)
 * Members and non-members, by TYPE (non-members are never members):
 *   bigint   member(i) = (i - 500) * 7919 * 1000003
 *            nonmember(j) = (j - 5000) * 7919 * 1000003 + 1
 *   integer  member(i) = (i - 500) * 7919,  nonmember(j) = (j - 5000) * 7919 + 1
 *   text     member(i) = 'spark-' || i || 'é',  nonmember(j) = 'other-' || j
 *   bytea    the UTF-8 bytes of 'bin-' || i,  and of 'nob-' || j
 */
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class SparkVectors {

    /* ---- XXH64, from the xxHash specification ---- */
    static final long P1 = 0x9E3779B185EBCA87L, P2 = 0xC2B2AE3D27D4EB4FL,
            P3 = 0x165667B19E3779F9L, P4 = 0x85EBCA77C2B2AE63L, P5 = 0x27D4EB2F165667C5L;

    static long le64(byte[] b, int o) {
        long v = 0;
        for (int i = 7; i >= 0; i--)
            v = (v << 8) | (b[o + i] & 0xff);
        return v;
    }

    static long le32(byte[] b, int o) {
        long v = 0;
        for (int i = 3; i >= 0; i--)
            v = (v << 8) | (b[o + i] & 0xff);
        return v;
    }

    static long round(long acc, long lane) {
        return Long.rotateLeft(acc + lane * P2, 31) * P1;
    }

    static long xxh64(byte[] b, int len, long seed) {
        int p = 0;
        long h;
        if (len >= 32) {
            long v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
            for (; p + 32 <= len; p += 32) {
                v1 = round(v1, le64(b, p));
                v2 = round(v2, le64(b, p + 8));
                v3 = round(v3, le64(b, p + 16));
                v4 = round(v4, le64(b, p + 24));
            }
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12)
                    + Long.rotateLeft(v4, 18);
            for (long v : new long[] {v1, v2, v3, v4})
                h = (h ^ round(0, v)) * P1 + P4;
        } else
            h = seed + P5;
        h += len;
        for (; p + 8 <= len; p += 8)
            h = Long.rotateLeft(h ^ round(0, le64(b, p)), 27) * P1 + P4;
        if (p + 4 <= len) {
            h = Long.rotateLeft(h ^ (le32(b, p) * P1), 23) * P2 + P3;
            p += 4;
        }
        for (; p < len; p++)
            h = Long.rotateLeft(h ^ ((b[p] & 0xff) * P5), 11) * P1;
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    static byte[] leBytes(long v, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++)
            b[i] = (byte) (v >>> (8 * i));
        return b;
    }

    /* Spark SQL's xxhash64 of one value of each type, with a seed. */
    static long sqlXxhash64(Object v, long seed) {
        if (v instanceof Integer)
            return xxh64(leBytes((Integer) v, 4), 4, seed);
        if (v instanceof Long)
            return xxh64(leBytes((Long) v, 8), 8, seed);
        byte[] b = v instanceof String ? ((String) v).getBytes(StandardCharsets.UTF_8) : (byte[]) v;
        return xxh64(b, b.length, seed);
    }

    /* ---- Murmur3_x86_32 as Spark's sketch module applies it ---- */
    static int mixK1(int k) {
        return Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
    }

    static int mixH1(int h, int k) {
        return Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64;
    }

    static int fmix(int h, int len) {
        h ^= len;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    static int murmurInt(int v, int seed) {
        return fmix(mixH1(seed, mixK1(v)), 4);
    }

    static int murmurLong(long v, int seed) {
        int h = mixH1(seed, mixK1((int) v));
        h = mixH1(h, mixK1((int) (v >>> 32)));
        return fmix(h, 8);
    }

    /* Whole 4-byte little-endian blocks, then each remaining byte (sign
     * extended) mixed as a block of its own: Spark's variant. */
    static int murmurBytes(byte[] b, int seed) {
        int aligned = b.length - b.length % 4, h = seed;
        for (int i = 0; i < aligned; i += 4)
            h = mixH1(h, mixK1((int) le32(b, i)));
        for (int i = aligned; i < b.length; i++)
            h = mixH1(h, mixK1(b[i]));
        return fmix(h, b.length);
    }

    /* ---- Spark's BloomFilter, versions 1 and 2 ---- */
    static final class Filter {
        final int version, k, seed;
        final long[] words;

        Filter(int version, long n, double fpp, int seed) {
            long bits = (long) (-n * Math.log(fpp) / (Math.log(2) * Math.log(2)));
            this.version = version;
            this.seed = version == 1 ? 0 : seed;
            this.k = Math.max(1, (int) Math.round((double) bits / n * Math.log(2)));
            this.words = new long[(int) Math.ceil(bits / 64.0)];
        }

        long bitSize() {
            return 64L * words.length;
        }

        /* The bit positions of one item whose two 32-bit hashes are h1, h2. */
        long[] positions(int h1, int h2) {
            long[] pos = new long[k];
            if (version == 1) {
                for (int i = 1; i <= k; i++) {
                    int c = h1 + i * h2;
                    if (c < 0)
                        c = ~c;
                    pos[i - 1] = c % bitSize();
                }
            } else {
                long c = (long) h1 * Integer.MAX_VALUE;
                for (int i = 0; i < k; i++) {
                    c += h2;
                    if (c < 0)
                        c = ~c;
                    pos[i] = c % bitSize();
                }
            }
            return pos;
        }

        long[] positionsLong(long v) {
            int h1 = murmurLong(v, seed);
            return positions(h1, murmurLong(v, h1));
        }

        long[] positionsBytes(byte[] b) {
            int h1 = murmurBytes(b, seed);
            return positions(h1, murmurBytes(b, h1));
        }

        void set(long[] pos) {
            for (long p : pos)
                words[(int) (p >>> 6)] |= 1L << (p & 63);
        }

        boolean test(long[] pos) {
            for (long p : pos)
                if ((words[(int) (p >>> 6)] & (1L << (p & 63))) == 0)
                    return false;
            return true;
        }

        byte[] serialize() throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(version);
            out.writeInt(k);
            if (version == 2)
                out.writeInt(seed);
            out.writeInt(words.length);
            for (long w : words)
                out.writeLong(w);
            return bytes.toByteArray();
        }
    }

    /* The positions of a value as put with the given hashing. */
    static long[] positions(Filter f, Object v, String hash) {
        if (hash.equals("xxhash64"))
            return f.positionsLong(sqlXxhash64(v, 42));
        if (v instanceof Integer)
            return f.positionsLong((Integer) v);
        if (v instanceof Long)
            return f.positionsLong((Long) v);
        if (v instanceof String)
            return f.positionsBytes(((String) v).getBytes(StandardCharsets.UTF_8));
        return f.positionsBytes((byte[]) v);
    }

    static Object member(String type, int i) {
        switch (type) {
            case "bigint": return (long) (i - 500) * 7919L * 1000003L;
            case "integer": return (i - 500) * 7919;
            case "text": return "spark-" + i + "\u00e9";
            default: return ("bin-" + i).getBytes(StandardCharsets.UTF_8);
        }
    }

    static Object nonmember(String type, int j) {
        switch (type) {
            case "bigint": return (long) (j - 5000) * 7919L * 1000003L + 1;
            case "integer": return (j - 5000) * 7919 + 1;
            case "text": return "other-" + j;
            default: return ("nob-" + j).getBytes(StandardCharsets.UTF_8);
        }
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b)
            sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    static void filterLine(String name, int version, int seed, String type, String hash, int n,
                           double fpp) throws IOException {
        Filter f = new Filter(version, n, fpp, seed);
        for (int i = 0; i < n; i++)
            f.set(positions(f, member(type, i), hash));
        for (int i = 0; i < n; i++)
            if (!f.test(positions(f, member(type, i), hash)))
                throw new IllegalStateException(name + ": member " + i + " not found");
        List<String> positives = new ArrayList<>();
        for (int j = 0; j < 10000; j++)
            if (f.test(positions(f, nonmember(type, j), hash)))
                positives.add(Integer.toString(j));
        System.out.println(String.join("\t", "filter", name, Integer.toString(version),
                Integer.toString(f.seed), type, hash, Integer.toString(n), Double.toString(fpp),
                hex(f.serialize()), positives.isEmpty() ? "-" : String.join(",", positives)));
    }

    /* ---- Parquet split-block bitset of one block holding one hash ---- */
    static final int[] SALT = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7,
            0x2df1424b, 0x9efc4947, 0x5c6bfb31};

    static String oneBlock(long hash) {
        int key = (int) hash;   /* one block: the block index is 0 */
        byte[] block = new byte[32];
        for (int i = 0; i < 8; i++) {
            int bit = (key * SALT[i]) >>> 27;
            int word = 1 << bit;
            for (int b = 0; b < 4; b++)
                block[4 * i + b] |= (byte) (word >>> (8 * b));
        }
        return hex(block);
    }

    /* ---- the checks against Spark's published values ---- */
    static int failures = 0;

    static void expect(String what, long got, long want) {
        if (got != want) {
            System.err.printf("MISMATCH %s: got %x, Spark says %x%n", what, got, want);
            failures++;
        }
    }

    public static void main(String[] args) throws IOException {
        final long prime = 2654435761L;
        byte[] buffer = new byte[101];
        long s = prime;
        for (int i = 0; i < buffer.length; i++) {
            buffer[i] = (byte) (s >> 24);
            s *= s;
        }
        int[] lengths = {0, 1, 4, 8, 14, 101};
        long[] seed0 = {0xEF46DB3751D8E999L, 0x4FCE394CC88952D8L, 0x9256E58AA397AEF1L,
                0xF74CB1451B32B8CFL, 0xCFFA8DB881BC3A3DL, 0x0EAB543384F878ADL};
        long[] seedPrime = {0xAC75FDA2929B17EFL, 0x739840CB819FA723L, 0x9D5FFDFB928AB4BL,
                0x9C44B77FBCC302C5L, 0x5B9611585EFCC9CBL, 0xCAA65939306F1E21L};
        for (int i = 0; i < lengths.length; i++) {
            expect("XXH64 seed 0, " + lengths[i] + " bytes", xxh64(buffer, lengths[i], 0), seed0[i]);
            expect("XXH64 seed prime, " + lengths[i] + " bytes", xxh64(buffer, lengths[i], prime),
                    seedPrime[i]);
        }
        expect("XXH64 hashInt(0x4B1FFF9E)", sqlXxhash64(0x4B1FFF9E, 0), 0x9256E58AA397AEF1L);
        expect("XXH64 hashLong(0xDD2F535E4B1FFF9E)", sqlXxhash64(0xDD2F535E4B1FFF9EL, 0),
                0xF74CB1451B32B8CFL);
        long h = sqlXxhash64("Spark", 42);
        h = sqlXxhash64(123, h);
        h = sqlXxhash64(2, h);
        expect("xxhash64('Spark', array(123), 2)", h, 5602566077635097486L);
        int m = murmurBytes("Spark".getBytes(StandardCharsets.UTF_8), 42);
        m = murmurInt(123, m);
        m = murmurInt(2, m);
        expect("hash('Spark', array(123), 2)", m, -1321691492);
        if (failures > 0)
            System.exit(1);

        for (int i = 0; i < lengths.length; i++)
            System.out.println(String.join("\t", "xxh64", Integer.toString(lengths[i]),
                    hex(Arrays.copyOf(buffer, lengths[i])), String.format("%016x", seed0[i]),
                    oneBlock(seed0[i])));
        for (int version = 1; version <= 2; version++)
            for (String hash : new String[] {"xxhash64", "none"})
                for (String type : new String[] {"bigint", "integer", "text", "bytea"})
                    filterLine("v" + version + "_" + type + "_" + hash, version, 0, type, hash,
                            1000, 0.03);
        filterLine("v2_seed7_bigint_xxhash64", 2, 7, "bigint", "xxhash64", 1000, 0.03);
        filterLine("v2_seed7_text_none", 2, 7, "text", "none", 1000, 0.03);
    }
}

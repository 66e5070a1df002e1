/*
 * GuavaFilters: writes and reads Bloom filters with Guava itself
 * (com.google.common.hash.BloomFilter), so that the extension's 'guava'
 * format is checked against the real library rather than against its
 * documentation.
 *
 *   java GuavaFilters write STRATEGY FUNNEL N FPP VALUES OUT
 *       builds BloomFilter.create(funnel, N, FPP) with the strategy
 *       MURMUR128_MITZ_32 or MURMUR128_MITZ_64, puts every line of the file
 *       VALUES, and writes the filter to OUT with writeTo
 *   java GuavaFilters read FUNNEL FILTER VALUES
 *       reads FILTER with BloomFilter.readFrom and prints one line: for each
 *       line of VALUES, '1' where mightContain answers true, else '0'
 *
 * FUNNEL is long, integer, string (UTF-8), unencoded_chars or bytes; a line
 * of VALUES is the decimal number, the text itself, or (bytes) hex digits.
 *
 * How each strategy is reached: the public BloomFilter.create uses
 * MURMUR128_MITZ_64 only.  MURMUR128_MITZ_32 is still a constant of the
 * package-private enum BloomFilterStrategies, and BloomFilter has a
 * package-private create(funnel, n, fpp, strategy) that the public one calls.
 * Both are reached here by reflection (setAccessible; the jar is on the
 * class path, in the unnamed module), for both strategies, and the bytes
 * written through it for MURMUR128_MITZ_64 are checked to equal those of the
 * public create, so that the reflective path is known to be Guava's own.
 */
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class GuavaFilters {

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Funnel<Object> funnel(String name) {
        switch (name) {
            case "long": return (Funnel) Funnels.longFunnel();
            case "integer": return (Funnel) Funnels.integerFunnel();
            case "string": return (Funnel) Funnels.stringFunnel(StandardCharsets.UTF_8);
            case "unencoded_chars": return (Funnel) Funnels.unencodedCharsFunnel();
            case "bytes": return (Funnel) Funnels.byteArrayFunnel();
            default: throw new IllegalArgumentException("unknown funnel " + name);
        }
    }

    static Object value(String funnel, String line) {
        switch (funnel) {
            case "long": return Long.parseLong(line);
            case "integer": return Integer.parseInt(line);
            case "bytes": return hex(line);
            default: return line;
        }
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static List<Object> values(String funnel, String file) throws IOException {
        List<Object> out = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8))
            out.add(value(funnel, line));
        return out;
    }

    /* BloomFilter.create(funnel, n, fpp, BloomFilterStrategies.<strategy>) */
    @SuppressWarnings("unchecked")
    static BloomFilter<Object> create(String strategy, Funnel<Object> f, long n, double fpp)
            throws Exception {
        Class<?> strategies = Class.forName("com.google.common.hash.BloomFilterStrategies");
        Class<?> strategyType = Class.forName("com.google.common.hash.BloomFilter$Strategy");
        Object s = null;
        for (Object c : strategies.getEnumConstants())
            if (((Enum<?>) c).name().equals("MURMUR128_" + strategy))
                s = c;
        if (s == null)
            throw new IllegalArgumentException("unknown strategy " + strategy);
        Method create = BloomFilter.class.getDeclaredMethod("create", Funnel.class, long.class,
                double.class, strategyType);
        create.setAccessible(true);
        return (BloomFilter<Object>) create.invoke(null, f, n, fpp, s);
    }

    static byte[] bytes(BloomFilter<Object> filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }

    static void write(String strategy, String funnelName, long n, double fpp, String valuesFile,
                      String outFile) throws Exception {
        Funnel<Object> f = funnel(funnelName);
        List<Object> vals = values(funnelName, valuesFile);
        BloomFilter<Object> filter = create(strategy, f, n, fpp);
        for (Object v : vals)
            filter.put(v);
        if (strategy.equals("MITZ_64")) {
            BloomFilter<Object> pub = BloomFilter.create(f, n, fpp);
            for (Object v : vals)
                pub.put(v);
            if (!Arrays.equals(bytes(pub), bytes(filter)))
                throw new IllegalStateException("reflective MITZ_64 differs from the public create");
        }
        try (OutputStream out = new FileOutputStream(outFile)) {
            filter.writeTo(out);
        }
    }

    static void read(String funnelName, String filterFile, String valuesFile) throws Exception {
        BloomFilter<Object> filter;
        try (InputStream in = new FileInputStream(filterFile)) {
            filter = BloomFilter.readFrom(in, funnel(funnelName));
        }
        StringBuilder sb = new StringBuilder();
        for (Object v : values(funnelName, valuesFile))
            sb.append(filter.mightContain(v) ? '1' : '0');
        System.out.println(sb);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 7 && args[0].equals("write"))
            write(args[1], args[2], Long.parseLong(args[3]), Double.parseDouble(args[4]), args[5],
                  args[6]);
        else if (args.length == 4 && args[0].equals("read"))
            read(args[1], args[2], args[3]);
        else {
            System.err.println("usage: GuavaFilters write STRATEGY FUNNEL N FPP VALUES OUT\n"
                    + "       GuavaFilters read FUNNEL FILTER VALUES");
            System.exit(2);
        }
    }
}

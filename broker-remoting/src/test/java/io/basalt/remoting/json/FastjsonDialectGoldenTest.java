package io.basalt.remoting.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.alibaba.fastjson.JSON;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FastjsonWriter} against fastjson 1.2.83 as RocketMQ 5.2.0 calls it
 * ({@code RemotingSerializable.encode}, i.e. {@code JSON.toJSONString(value, false)} then UTF-8): equal
 * bytes for equal trees; and {@link FastjsonParser} against fastjson's {@code JSON.parse}: equal values for
 * fastjson's output and for the lenient text fastjson accepts.
 */
class FastjsonDialectGoldenTest {

    /** What {@code RemotingSerializable} puts on the wire for a value. */
    private static byte[] fastjsonBytes(Object value) {
        return RemotingSerializable.encode(value);
    }

    private static void assertWrittenAsFastjson(Object value) {
        String expected = JSON.toJSONString(value, false);
        assertEquals(expected, FastjsonWriter.write(value));
        assertArrayEquals(fastjsonBytes(value), FastjsonWriter.encode(value), expected);
    }

    /**
     * A parse result, fastjson's or Basalt's, in the tree model of {@link FastjsonParser}, with number map
     * keys as their text: fastjson's untyped parse gives {@code {0:"a"}} a String key "0", Basalt keeps the
     * key a number; the typed readers of both turn either into the field's key type.
     */
    private static Object normalized(Object fastjsonValue) {
        if (fastjsonValue instanceof Map<?, ?> map) {
            Map<Object, Object> tree = new LinkedHashMap<>();
            map.forEach((k, v) -> tree.put(k instanceof Number ? k.toString() : normalized(k), normalized(v)));
            return tree;
        }
        if (fastjsonValue instanceof Collection<?> items) {
            List<Object> list = new ArrayList<>();
            items.forEach(item -> list.add(normalized(item)));
            return list;
        }
        if (fastjsonValue instanceof BigDecimal || fastjsonValue instanceof Double || fastjsonValue instanceof Float) {
            return ((Number) fastjsonValue).doubleValue();
        }
        if (fastjsonValue instanceof Integer || fastjsonValue instanceof Long) {
            return ((Number) fastjsonValue).longValue();
        }
        if (fastjsonValue instanceof BigInteger big) {
            return big.bitLength() < 64 ? (Object) big.longValue() : big;
        }
        return fastjsonValue;
    }

    private static void assertParsedAsFastjson(String text) {
        assertEquals(normalized(JSON.parse(text)), normalized(FastjsonParser.parse(text)), text);
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        assertEquals(normalized(JSON.parse(utf8)), normalized(FastjsonParser.parse(utf8)), text);
    }

    @Test
    void everyBmpCharacterIsEscapedAsFastjsonEscapesIt() {
        // one string per char: C0 controls, U+007F-U+009F, '"', '\\', '/', U+2028/U+2029, é, 中, and each
        // surrogate alone (a lone surrogate goes to the wire as '?' on both sides)
        for (int c = 0; c <= 0xFFFF; c++) {
            String text = String.valueOf((char) c);
            assertWrittenAsFastjson(text);
            assertWrittenAsFastjson("a" + text + "b");
        }
    }

    @Test
    void fastjsonsOutputOfEveryBmpCharacterReadsBackToIt() {
        for (int c = 0; c <= 0xFFFF; c++) {
            String text = "x" + (char) c + "y";
            String json = JSON.toJSONString(text);
            assertEquals(text, FastjsonParser.parse(json), () -> json);
            // from the wire bytes both read the same (a lone surrogate arrives as '?')
            assertEquals(JSON.parse(fastjsonBytes(text)), FastjsonParser.parse(fastjsonBytes(text)), () -> json);
        }
    }

    @Test
    void supplementaryCharactersAndSurrogateMisuseMatch() {
        StringBuilder pairs = new StringBuilder();
        for (int codePoint = 0x10000; codePoint <= Character.MAX_CODE_POINT; codePoint += 97) {
            pairs.appendCodePoint(codePoint);
        }
        pairs.appendCodePoint(Character.MAX_CODE_POINT).append("\ud83d\ude00");
        for (String text : List.of(pairs.toString(), "\ud83d\ude00", "\ude00\ud83d", "\ud800", "\udfff",
            "a\ud800b\udc00c", "\ud800\ud800\udc00", "\ud83d\ude00\ud83d")) {
            assertWrittenAsFastjson(text);
            assertEquals(text, FastjsonParser.parse(JSON.toJSONString(text)));
            assertEquals(JSON.parse(fastjsonBytes(text)), FastjsonParser.parse(fastjsonBytes(text)));
        }
    }

    @Test
    void allAwkwardCharactersInOneStringMatch() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            all.append(c);
        }
        all.append("\u007f\u0080\u009f\u00a0\"\\/\u2028\u2029é中\ud83d\ude00'<>() ");
        String text = all.toString();
        assertWrittenAsFastjson(text);
        assertWrittenAsFastjson("");
        assertWrittenAsFastjson(Map.of(text, text));
        assertWrittenAsFastjson(List.of(text, "", text));
        assertEquals(text, FastjsonParser.parse(JSON.toJSONString(text)));
        assertEquals(Map.of(text, text), FastjsonParser.parse(JSON.toJSONString(Map.of(text, text))));
        assertEquals("", FastjsonParser.parse(JSON.toJSONString("")));
    }

    @Test
    void integersAreWrittenAsFastjsonWritesThem() {
        for (long value : new long[] {0, 1, -1, 9, 10, -10, 127, -128, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, 1_700_000_000_000L, -1_700_000_000_000L,
            9_007_199_254_740_993L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1}) {
            assertWrittenAsFastjson(value);
            assertWrittenAsFastjson(Map.of("v", value));
            assertEquals(value, FastjsonParser.parse(JSON.toJSONString(value)));
            if (value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) {
                assertWrittenAsFastjson((int) value);
            }
        }
        assertWrittenAsFastjson((short) -7);
        assertWrittenAsFastjson((byte) 5);
        for (String big : List.of("92233720368547758070", "-92233720368547758080", "9223372036854775808")) {
            assertWrittenAsFastjson(new BigInteger(big));
            assertEquals(new BigInteger(big), FastjsonParser.parse(JSON.toJSONString(new BigInteger(big))));
        }
    }

    @Test
    void decimalsAreWrittenAsFastjsonWritesThem() {
        for (double value : new double[] {0.0, -0.0, 0.1, -0.1, 1.0, 100.0, 12.5, -12.5, 1.0 / 3, 0.001, 9.999e-4,
            1e7, 9_999_999.0, 1e-7, 1.5e300, 2e23, 1e23, 4.9e-324, Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE}) {
            assertWrittenAsFastjson(value);
            assertEquals(value, FastjsonParser.parse(JSON.toJSONString(value)));
        }
        SplittableRandom random = new SplittableRandom(20240501);
        for (int i = 0; i < 20_000; i++) {
            double value = Double.longBitsToDouble(random.nextLong());
            if (Double.isFinite(value)) {
                assertWrittenAsFastjson(value);
                assertEquals(value, FastjsonParser.parse(JSON.toJSONString(value)));
            }
            float single = Float.intBitsToFloat(random.nextInt());
            if (Float.isFinite(single)) {
                assertWrittenAsFastjson(single);
            }
        }
        for (double nonFinite : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertWrittenAsFastjson(nonFinite);
            assertWrittenAsFastjson((float) nonFinite);
        }
        for (String decimal : List.of("1.50", "-0.000001", "1E+3", "123456789012345678901234567890.5")) {
            assertWrittenAsFastjson(new BigDecimal(decimal));
        }
    }

    @Test
    void bodyShapedTreesAreWrittenAsFastjsonWritesThem() {
        Map<String, Object> queue = new LinkedHashMap<>();
        queue.put("brokerName", "broker-a");
        queue.put("queueId", 3);
        queue.put("topic", "T\u0001é");
        Map<Object, Object> offsets = new LinkedHashMap<>();
        offsets.put(queue, Map.of("maxOffset", 10L));
        // distinct empty maps: fastjson writes a second reference to one object as {"$ref":...}
        offsets.put(new LinkedHashMap<>(), new LinkedHashMap<>());
        Map<Object, Object> brokerAddrs = new LinkedHashMap<>();
        brokerAddrs.put(0L, "127.0.0.1:10911");
        brokerAddrs.put(-1, "x");
        brokerAddrs.put(Long.MAX_VALUE, "y");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("offsetTable", offsets);
        body.put("brokerAddrs", brokerAddrs);
        body.put("empty", new LinkedHashMap<>());
        body.put("emptyList", List.of());
        body.put("nested", List.of(List.of(), List.of(1, List.of("a", Map.of("k", List.of())))));
        body.put("withNulls", Arrays.asList(null, "a", null));
        body.put("nullValue", null);
        body.put("flags", List.of(true, false));
        body.put("unit", TimeUnit.SECONDS);
        body.put("tps", 12.5);
        body.put("", "");
        assertWrittenAsFastjson(body);
        String json = JSON.toJSONString(body);
        assertEquals(normalized(JSON.parse(json)), normalized(FastjsonParser.parse(json)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{'a':'\\x41\\v\\0\\7\\F\\/\\'\\\"',b:1}",
        "{\"s\":\"\\u001f\\u001F\\u00e9\\u4E2D\\uD83D\\uDE00\\ud800\\b\\t\\n\\f\\r\\\\\\/\"}",
        "{a:[1,-2,9223372036854775807,-9223372036854775808,92233720368547758070],b:{0:'x',12:'y'}}",
        "[true,false,null,\"\",'',\"'\",'\"']",
        "{\"raw\":\"tab\there\u0001\u001f\u007f\u2028\"}",
        " { \"a\" : 1 , \"b\" : [ ] , \"c\" : { } }\n",
        "{\"d\":1.5E3,\"e\":-2.5,\"f\":0.1,\"g\":-12,\"h\":1e-7}",
        "{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"t\"}:{\"maxOffset\":10},{\"topic\":\"u\"}:{}}",
        "{$key:1,_key:2,k9:3}",
        "\"only a string\"",
        "-42"
    })
    void textFastjsonAcceptsIsReadToTheSameValues(String text) {
        assertParsedAsFastjson(text);
    }
}

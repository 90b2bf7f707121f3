package io.basalt.broker.protocol;

import io.basalt.remoting.json.FastjsonParser;
import io.basalt.remoting.json.FastjsonWriter;

/**
 * The bodies' entry to the fastjson dialect of {@link io.basalt.remoting.json}, the same writer, escaper
 * and parser the remoting headers use, so that a string in a body and in a header is written alike.
 *
 * <p>Tree: see {@link FastjsonWriter} (what is written) and {@link FastjsonParser} (what parsing gives).
 * Malformed text is an {@link io.basalt.remoting.json.JsonException}. Stateless; any thread.
 */
public final class Json {

    private Json() {
    }

    /** The tree as UTF-8 JSON bytes. */
    public static byte[] encode(Object tree) {
        return FastjsonWriter.encode(tree);
    }

    /** The tree as JSON text. */
    public static String write(Object tree) {
        return FastjsonWriter.write(tree);
    }

    /** Parses UTF-8 JSON text, including fastjson's unquoted object and number map keys. */
    public static Object parse(byte[] utf8) {
        return FastjsonParser.parse(utf8);
    }

    /** Parses JSON text, including fastjson's unquoted object and number map keys. */
    public static Object parse(String text) {
        return FastjsonParser.parse(text);
    }
}

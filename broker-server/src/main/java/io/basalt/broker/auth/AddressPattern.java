package io.basalt.broker.auth;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A remote-address rule of ACL 1.0's files ({@code globalWhiteRemoteAddresses}, an account's
 * {@code whiteRemoteAddress}), with RocketMQ's forms ({@code RemoteAddressStrategyFactory}) and one more:
 *
 * <ul>
 * <li>blank: matches nothing;</li>
 * <li>{@code *}, {@code *.*.*.*}, {@code *:*:*:*:*:*:*:*}: every address;</li>
 * <li>{@code 192.168.1.{1,2,3}}, {@code 2001:db8::{1,2}}: the listed addresses;</li>
 * <li>{@code 10.0.0.1,10.0.0.2}: the listed addresses;</li>
 * <li>{@code 192.168.*.*}, {@code 192.168.1-10.*}, {@code 10.1.2.100-200} (IPv6 alike, in hex groups): the first
 *     literal part must be equal, and so must every part up to the first {@code *} or {@code a-b} after it, which
 *     decides; the parts after that one are ignored, as RocketMQ ignores them;</li>
 * <li>one IPv4 or IPv6 literal: that address (IPv6 compared fully expanded);</li>
 * <li>Basalt's own: a CIDR block, {@code 10.0.0.0/8} or {@code 2001:db8::/32} (RocketMQ refuses the form, so a file
 *     using it loads in Basalt only).</li>
 * </ul>
 *
 * Host names are not accepted (no lookup is ever made), nor {@code ;}-separated lists: both fail the parse with the
 * reason, where RocketMQ fails the file with an unrelated-looking error (apache/rocketmq#2891, #8529). Immutable.
 */
public final class AddressPattern {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]+");

    private interface Matcher {
        boolean matches(String address);
    }

    private final String text;
    private final Matcher matcher;

    private AddressPattern(String text, Matcher matcher) {
        this.text = text;
        this.matcher = matcher;
    }

    /** The rule that matches nothing (an account without {@code whiteRemoteAddress}). */
    public static final AddressPattern NONE = new AddressPattern("", address -> false);

    /**
     * Parses one rule.
     *
     * @throws IllegalArgumentException a rule of none of the forms, saying why
     */
    public static AddressPattern parse(String rule) {
        String text = rule == null ? "" : rule.trim();
        if (text.isEmpty()) {
            return NONE;
        }
        if (text.equals("*") || text.equals("*.*.*.*") || text.equals("*:*:*:*:*:*:*:*")) {
            return new AddressPattern(text, address -> true);
        }
        if (text.contains(";")) {
            throw new IllegalArgumentException("address rule '" + text + "': ';' does not separate addresses (use ','"
                + " or one rule per list entry)");
        }
        if (text.endsWith("}")) {
            int open = text.indexOf('{');
            if (open < 0) {
                throw new IllegalArgumentException("address rule '" + text + "' ends with '}' but has no '{'");
            }
            String prefix = text.substring(0, open);
            List<String> members = new ArrayList<>();
            for (String last : text.substring(open + 1, text.length() - 1).split(",")) {
                members.add(prefix + last.trim());
            }
            return exactSet(text, members);
        }
        if (text.contains(",")) {
            return exactSet(text, List.of(text.split(",")));
        }
        if (text.contains("/")) {
            return cidr(text);
        }
        if (text.contains("*") || text.contains("-")) {
            return range(text);
        }
        String exact = canonical(text, text);
        return new AddressPattern(text, address -> exact.equals(canonicalOrNull(address)));
    }

    /** Whether the client at {@code address} (an IP literal, as the connection gives it) matches. */
    public boolean matches(String address) {
        return address != null && matcher.matches(address);
    }

    @Override
    public String toString() {
        return text;
    }

    /** Rules are equal when written alike. */
    @Override
    public boolean equals(Object other) {
        return other instanceof AddressPattern p && p.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    private static AddressPattern exactSet(String text, List<String> members) {
        Set<String> set = members.stream().map(m -> canonical(m.trim(), text)).collect(Collectors.toUnmodifiableSet());
        return new AddressPattern(text, address -> set.contains(canonicalOrNull(address)));
    }

    private static AddressPattern range(String text) {
        boolean v6 = text.contains(":");
        List<String> parts = v6 ? expandV6Pattern(text) : List.of(text.split("\\.", -1));
        if (v6 ? parts.size() != 8 : parts.size() != 4) {
            throw new IllegalArgumentException("address rule '" + text + "' is not " + (v6 ? "8 IPv6 groups" : "4 IPv4 parts"));
        }
        int radix = v6 ? 16 : 10;
        int max = v6 ? 0xffff : 255;
        long first = literalPart(parts.get(0), radix, max, text);
        List<long[]> bounds = new ArrayList<>();
        bounds.add(new long[] {first, first});
        for (int i = 1; i < parts.size(); i++) {
            String p = parts.get(i);
            if (p.equals("*")) {
                bounds.add(new long[] {0, max});
                break;
            }
            int dash = p.indexOf('-');
            if (dash >= 0) {
                long from = literalPart(p.substring(0, dash), radix, max, text);
                long to = literalPart(p.substring(dash + 1), radix, max, text);
                if (from > to) {
                    throw new IllegalArgumentException("address rule '" + text + "': range " + p + " is empty");
                }
                bounds.add(new long[] {from, to});
                break;
            }
            long value = literalPart(p, radix, max, text);
            bounds.add(new long[] {value, value});
        }
        List<long[]> decided = List.copyOf(bounds);
        return new AddressPattern(text, address -> {
            String canonical = canonicalOrNull(address);
            if (canonical == null || canonical.contains(":") != v6) {
                return false;
            }
            String[] actual = canonical.split(v6 ? ":" : "\\.");
            for (int i = 0; i < decided.size(); i++) {
                long value = Long.parseLong(actual[i], radix);
                if (value < decided.get(i)[0] || value > decided.get(i)[1]) {
                    return false;
                }
            }
            return true;
        });
    }

    private static AddressPattern cidr(String text) {
        int slash = text.indexOf('/');
        byte[] network = bytes(text.substring(0, slash), text);
        int bits;
        try {
            bits = Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address rule '" + text + "': the prefix length is not a number");
        }
        if (bits < 0 || bits > network.length * 8) {
            throw new IllegalArgumentException("address rule '" + text + "': prefix length " + bits + " out of 0.."
                + network.length * 8);
        }
        return new AddressPattern(text, address -> {
            byte[] actual = bytesOrNull(address);
            if (actual == null || actual.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < bits; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((actual[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        });
    }

    private static long literalPart(String part, int radix, int max, String rule) {
        try {
            long value = Long.parseLong(part, radix);
            if (value >= 0 && value <= max && !part.isEmpty()) {
                return value;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("address rule '" + rule + "': '" + part + "' is not a number from 0 to "
            + (radix == 16 ? "ffff" : "255"));
    }

    /** An IPv6 range pattern's eight groups, a "::" filled with zero groups. */
    private static List<String> expandV6Pattern(String text) {
        int gap = text.indexOf("::");
        List<String> groups = new ArrayList<>();
        if (gap < 0) {
            groups.addAll(List.of(text.split(":", -1)));
            return groups;
        }
        List<String> head = text.substring(0, gap).isEmpty() ? List.of() : List.of(text.substring(0, gap).split(":", -1));
        List<String> tail = text.substring(gap + 2).isEmpty() ? List.of() : List.of(text.substring(gap + 2).split(":", -1));
        groups.addAll(head);
        for (int i = head.size() + tail.size(); i < 8; i++) {
            groups.add("0");
        }
        groups.addAll(tail);
        return groups;
    }

    /** The canonical text of an IP literal (IPv4 dotted, IPv6 as eight lower-case hex groups). */
    private static String canonical(String literal, String rule) {
        String c = canonicalOrNull(literal);
        if (c == null) {
            throw new IllegalArgumentException("address rule '" + rule + "': '" + literal + "' is not an IPv4 or IPv6"
                + " address (host names are not accepted)");
        }
        return c;
    }

    private static String canonicalOrNull(String literal) {
        byte[] b = bytesOrNull(literal);
        if (b == null) {
            return null;
        }
        if (b.length == 4) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                s.append(':');
            }
            s.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff)));
        }
        return s.toString();
    }

    private static byte[] bytes(String literal, String rule) {
        byte[] b = bytesOrNull(literal);
        if (b == null) {
            throw new IllegalArgumentException("address rule '" + rule + "': '" + literal + "' is not an IPv4 or IPv6"
                + " address");
        }
        return b;
    }

    /** The address's bytes when {@code literal} is an IP literal (brackets and a zone allowed), else null. No lookup. */
    private static byte[] bytesOrNull(String literal) {
        String t = literal.trim();
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        int zone = t.indexOf('%');
        if (zone >= 0) {
            t = t.substring(0, zone);
        }
        java.util.regex.Matcher v4 = IPV4.matcher(t);
        if (v4.matches()) {
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(v4.group(i + 1));
                if (octet > 255) {
                    return null;
                }
                b[i] = (byte) octet;
            }
            return b;
        }
        if (!t.contains(":") || !IPV6_CHARS.matcher(t).matches()) {
            return null;
        }
        try {
            // a literal with ':' is parsed, never looked up
            byte[] b = InetAddress.getByName(t.toLowerCase(Locale.ROOT)).getAddress();
            return b.length == 16 ? b : b.length == 4 ? v4Mapped(b) : null;
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Java reads "::ffff:1.2.3.4" as the IPv4 address; kept as IPv6 here so that families compare apart. */
    private static byte[] v4Mapped(byte[] v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(v4, 0, b, 12, 4);
        return b;
    }
}

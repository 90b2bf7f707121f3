package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** RocketMQ's address rules ({@code RemoteAddressStrategyFactory}) and Basalt's CIDR, with their failures. */
class AddressPatternTest {
    @Test
    void blankMatchesNothingAndStarsMatchEverything() {
        assertFalse(AddressPattern.parse("").matches("10.0.0.1"));
        assertFalse(AddressPattern.parse(null).matches("10.0.0.1"));
        for (String all : new String[] {"*", "*.*.*.*", "*:*:*:*:*:*:*:*"}) {
            assertTrue(AddressPattern.parse(all).matches("10.0.0.1"), all);
            assertTrue(AddressPattern.parse(all).matches("2001:db8::1"), all);
        }
    }

    @Test
    void exactAddressesIPv4AndIPv6() {
        assertTrue(AddressPattern.parse("192.168.1.7").matches("192.168.1.7"));
        assertFalse(AddressPattern.parse("192.168.1.7").matches("192.168.1.8"));
        assertTrue(AddressPattern.parse("2001:DB8::1").matches("2001:db8:0:0:0:0:0:1"), "compared expanded, any case");
        assertTrue(AddressPattern.parse("::1").matches("0:0:0:0:0:0:0:1"));
    }

    @Test
    void bracesAndCommaLists() {
        AddressPattern braces = AddressPattern.parse("192.168.1.{1,2,3}");
        assertTrue(braces.matches("192.168.1.2"));
        assertFalse(braces.matches("192.168.1.4"));
        AddressPattern v6 = AddressPattern.parse("2001:db8::{1,2}");
        assertTrue(v6.matches("2001:db8::2"));
        assertFalse(v6.matches("2001:db8::3"));
        AddressPattern list = AddressPattern.parse("10.0.0.1,10.0.0.2");
        assertTrue(list.matches("10.0.0.2"));
        assertFalse(list.matches("10.0.0.3"));
    }

    @Test
    void rangesDecideAtTheFirstStarOrDashAndIgnoreTheRest() {
        AddressPattern star = AddressPattern.parse("192.168.*.*");
        assertTrue(star.matches("192.168.200.9"));
        assertFalse(star.matches("192.169.0.1"));
        AddressPattern dash = AddressPattern.parse("192.168.1-10.*");
        assertTrue(dash.matches("192.168.10.250"));
        assertFalse(dash.matches("192.168.11.1"));
        AddressPattern last = AddressPattern.parse("10.1.2.100-200");
        assertTrue(last.matches("10.1.2.150"));
        assertFalse(last.matches("10.1.2.99"));
        // RocketMQ ignores what follows the deciding part: 192.168.1-10.5 lets 192.168.3.77 in
        assertTrue(AddressPattern.parse("192.168.1-10.5").matches("192.168.3.77"));
        AddressPattern v6 = AddressPattern.parse("2001:db8::1-ff:*");
        assertTrue(v6.matches("2001:db8::a0:1"));
        assertFalse(v6.matches("2001:db8::100:1"));
        assertFalse(AddressPattern.parse("10.*.*.*").matches("2001:db8::1"), "another family never matches a range");
    }

    @Test
    void cidrBlocks() {
        AddressPattern v4 = AddressPattern.parse("10.0.0.0/8");
        assertTrue(v4.matches("10.255.1.2"));
        assertFalse(v4.matches("11.0.0.1"));
        AddressPattern v6 = AddressPattern.parse("2001:db8::/32");
        assertTrue(v6.matches("2001:db8:ffff::1"));
        assertFalse(v6.matches("2001:db9::1"));
        assertTrue(AddressPattern.parse("192.168.1.7/32").matches("192.168.1.7"));
        assertFalse(AddressPattern.parse("192.168.1.7/32").matches("192.168.1.6"));
    }

    @Test
    void clientAddressesWithBracketsOrZonesAreRead() {
        assertTrue(AddressPattern.parse("::1").matches("[::1]"));
        assertTrue(AddressPattern.parse("fe80::1").matches("fe80::1%eth0"));
    }

    @Test
    void badRulesSayWhy() {
        assertThrows(IllegalArgumentException.class, () -> AddressPattern.parse("broker.example.com"), "host names");
        assertThrows(IllegalArgumentException.class, () -> AddressPattern.parse("10.0.0.1;10.0.0.2"), "';' lists");
        assertThrows(IllegalArgumentException.class, () -> AddressPattern.parse("10.0.0.300"));
        assertThrows(IllegalArgumentException.class, () -> AddressPattern.parse("10.0.10-2.*"), "an empty range");
        assertThrows(IllegalArgumentException.class, () -> AddressPattern.parse("10.0.0.0/40"));
        assertThrows(IllegalArgumentException.class, () -> AddressPattern.parse("*.168.1.1"), "the first part is literal");
        assertFalse(AddressPattern.parse("10.0.0.1").matches("not-an-address"));
    }
}

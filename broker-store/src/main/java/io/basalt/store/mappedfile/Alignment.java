package io.basalt.store.mappedfile;

/**
 * Rounding of file positions to a unit (a page, a folio, an allocation step): mlock, madvise and fallocate ranges
 * start and end on such boundaries.
 */
public final class Alignment {
    private Alignment() {
    }

    /** {@code value} rounded down to a multiple of {@code unit} (both non-negative, unit positive). */
    public static long down(long value, int unit) {
        return value - value % unit;
    }

    /** {@code value} rounded up to a multiple of {@code unit} (both non-negative, unit positive). */
    public static long up(long value, int unit) {
        return down(value + unit - 1, unit);
    }
}

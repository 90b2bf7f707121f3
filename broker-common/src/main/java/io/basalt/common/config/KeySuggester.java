package io.basalt.common.config;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Finds the valid key an unknown key was probably meant to be, by edit distance
 * ({@code flushDiskTyp} → {@code flushDiskType}). Basalt's own keys win ties over RocketMQ-only ones,
 * since those are the keys that do something.
 */
public final class KeySuggester {

    private KeySuggester() {
    }

    /** The closest of {@code preferred} then {@code others}, if close enough to be a plausible typo. */
    public static Optional<String> closest(String unknown, Collection<String> preferred, Collection<String> others) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Collection<String> candidates : List.of(preferred, others)) {
            for (String candidate : candidates) {
                int distance = distance(unknown, candidate);
                if (distance < bestDistance) {
                    best = candidate;
                    bestDistance = distance;
                }
            }
        }
        return best != null && bestDistance <= maxTypoDistance(unknown) ? Optional.of(best) : Optional.empty();
    }

    /** A third of the name, at least 2: "brokerNam" matches, "foo" does not become "aclEnable". */
    static int maxTypoDistance(String unknown) {
        return Math.max(2, unknown.length() / 3);
    }

    /** Levenshtein distance; a letter in the wrong case is one edit ({@code ListenPort} → {@code listenPort}). */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}

package io.basalt.tools.bench.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class LatenessTest {
    private static final long DUE = 1_700_000_005_000L;

    @Test
    void brokerAndConsumerLatenessAreMeasuredFromTheDueTime() {
        Lateness l = new Lateness(3);
        l.record(0, DUE, DUE + 10, DUE + 30);
        l.record(1, DUE, DUE + 20, DUE + 50);
        l.record(2, DUE, DUE + 900, DUE + 1200);

        Lateness.Report r = l.report();

        assertThat(r.received()).isEqualTo(3);
        assertThat(r.missing()).isZero();
        assertThat(r.broker().min()).isEqualTo(10);
        assertThat(r.broker().p50()).isEqualTo(20);
        assertThat(r.broker().max()).isEqualTo(900);
        assertThat(r.consumer().p50()).isEqualTo(50);
        assertThat(r.consumer().max()).isEqualTo(1200);
        assertThat(r.lastStoredAfterDueMs()).isEqualTo(900);
        assertThat(r.lastReceivedAfterDueMs()).isEqualTo(1200);
        assertThat(l.complete()).isTrue();
    }

    @Test
    void aRepeatedSequenceIsADuplicateNotASecondDelivery() {
        Lateness l = new Lateness(2);
        l.record(0, DUE, DUE + 5, DUE + 5);
        l.record(0, DUE, DUE + 5000, DUE + 9000);

        Lateness.Report r = l.report();

        assertThat(r.received()).isEqualTo(1);
        assertThat(r.duplicates()).isEqualTo(1);
        assertThat(r.consumer().max()).isEqualTo(5);
        assertThat(l.complete()).isFalse();
    }

    @Test
    void earlyDeliveriesAreCountedAndRecordedAsZeroLateness() {
        Lateness l = new Lateness(2);
        l.record(0, DUE, DUE - 300, DUE - 100);
        l.record(1, DUE, DUE + 40, DUE - 1);

        Lateness.Report r = l.report();

        assertThat(r.brokerEarly()).isEqualTo(1);
        assertThat(r.consumerEarly()).isEqualTo(2);
        assertThat(r.broker().p50()).isZero();
        assertThat(r.consumer().max()).isZero();
    }

    @Test
    void missingMessagesAreCensoredAtTheirLowerBound() {
        Lateness l = new Lateness(4);
        l.record(0, DUE, DUE + 10, DUE + 10);
        l.record(2, DUE, DUE + 10, DUE + 10);
        List<Long> missing = new ArrayList<>();
        l.forEachMissing(missing::add);

        l.censorMissing(DUE + 60_000, s -> DUE + s * 1000);
        Lateness.Report r = l.report();

        assertThat(missing).containsExactly(1L, 3L);
        assertThat(r.missing()).isEqualTo(2);
        assertThat(r.censored()).isEqualTo(2);
        // sequence 1 due at DUE+1000, 3 at DUE+3000: at least 59 s and 57 s late
        assertThat(r.consumer().max()).isBetween(58_990L, 59_010L);
        assertThat(r.broker().max()).isEqualTo(10);
    }

    @Test
    void deliveryRateSpansTheStoreTimesAndPeakCountsOneWallClockSecond() {
        Lateness l = new Lateness(6);
        long base = 1_700_000_000_000L;
        for (int i = 0; i < 4; i++) {
            l.record(i, base, base + i * 10, base + 2000);   // 4 stored within second 0
        }
        l.record(4, base, base + 1500, base + 2000);
        l.record(5, base, base + 2000, base + 2000);

        Lateness.Report r = l.report();

        assertThat(r.peakStoredPerS()).isEqualTo(4);
        assertThat(r.storeRatePerS()).isEqualTo(3.0);   // 6 deliveries over 2.000 s of store time
    }

    @Test
    void theLineCarriesEveryFigureAsKeyValue() {
        Lateness l = new Lateness(1);
        l.record(0, DUE, DUE + 7, DUE + 9);

        String line = l.report().line("basalt timer-burst");

        assertThat(line).startsWith("basalt timer-burst expected=1 received=1 missing=0 unsent=0 dup=0")
            .contains(" broker_late_ms_min=7 p50=7 ", " consumer_late_ms_min=9 p50=9 ", " last_received_after_due_ms=9 ");
    }

    @Test
    void anEmptyRunReportsNoPercentiles() {
        Lateness.Report r = new Lateness(5).report();

        assertThat(r.received()).isZero();
        assertThat(r.missing()).isEqualTo(5);
        assertThat(r.consumer().p99()).isEqualTo(-1);
        assertThat(r.storeRatePerS()).isZero();
    }

    @Test
    void aFailedSendIsUnsentNotMissingAndCompletesTheRun() {
        Lateness l = new Lateness(3);
        l.record(0, DUE, DUE + 5, DUE + 5);
        l.markUnsent(1);
        l.record(2, DUE, DUE + 5, DUE + 5);

        Lateness.Report r = l.report();

        assertThat(l.complete()).isTrue();
        assertThat(r.missing()).isZero();
        assertThat(r.unsent()).isEqualTo(1);
        assertThat(r.received()).isEqualTo(2);
    }

    @Test
    void aSequenceOutsideTheRunIsRefused() {
        Lateness l = new Lateness(2);

        assertThatThrownBy(() -> l.record(2, DUE, DUE, DUE)).isInstanceOf(IllegalArgumentException.class);
    }
}

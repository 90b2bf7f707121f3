package io.basalt.tools.bench.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransactionBenchPartsTest {
    @Test
    void cpuTicksAreUtimePlusStimeEvenWithSpacesInTheCommandName() {
        String stat = "4242 (java main) S 1 4242 4242 0 -1 4194560 123 0 0 0 1500 250 0 0 20 0 60 0 100 0 0";
        assertThat(ProcessCpu.ticks(stat)).isEqualTo(1750);
    }

    @Test
    void theCheckLogCountsChecksPerTransactionAndChecksTooCloseTogether() {
        CheckLog log = new CheckLog();
        log.record("a", 1_000);
        log.record("b", 1_500);
        log.record("b", 11_500);
        log.record("c", 2_000);
        log.record("c", 2_100); // a storm: twice within a tenth of the interval
        CheckLog.Summary s = log.summary(10_000);
        assertThat(s.transactions()).isEqualTo(3);
        assertThat(s.checks()).isEqualTo(5);
        assertThat(s.maxPerTx()).isEqualTo(2);
        assertThat(s.checkedTwice()).isEqualTo(2);
        assertThat(s.minGapMs()).isEqualTo(100);
        assertThat(s.tooClose()).isEqualTo(1);
        assertThat(s.firstMs()).isEqualTo(1_000);
        assertThat(s.lastFirstMs()).isEqualTo(2_000);
        assertThat(s.lastMs()).isEqualTo(11_500);
    }

    @Test
    void deliveriesCountEachSequenceOnceAndTheRepeats() {
        Deliveries d = new Deliveries();
        d.record(0, 10);
        d.record(1, 20);
        d.record(1, 30);
        assertThat(d.unique()).isEqualTo(2);
        assertThat(d.duplicates()).isEqualTo(1);
        assertThat(d.lastNewMs()).isEqualTo(20);
    }
}

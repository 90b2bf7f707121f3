package io.basalt.tools.bench.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The parsers and encodings the benchmark's figures depend on. */
class DelayBenchPartsTest {
    @Test
    void rocketMqsDefaultLevelsParseToTheirDelays() {
        DelayLevels l = DelayLevels.parse(DelayLevels.ROCKETMQ_DEFAULT);

        assertThat(l.maxLevel()).isEqualTo(18);
        assertThat(l.delayMs(1)).isEqualTo(1_000);
        assertThat(l.delayMs(5)).isEqualTo(60_000);
        assertThat(l.delayMs(17)).isEqualTo(3_600_000);
        assertThat(l.delayMs(18)).isEqualTo(7_200_000);
        assertThat(l.delayMs(40)).as("clamped to the last level, as the broker does").isEqualTo(7_200_000);
        assertThat(DelayLevels.parse("1s 2d").delayMs(2)).isEqualTo(172_800_000);
    }

    @Test
    void malformedLevelsAreRefused() {
        assertThatThrownBy(() -> DelayLevels.parse("1s  2s")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DelayLevels.parse("1s 2w")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DelayLevels.parse("1s").delayMs(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void probeBodyRoundTripsAndPadsToTheRequestedSize() {
        byte[] body = new ProbeBody(42, 1_700_000_005_000L).encode(128);

        assertThat(body).hasSize(128);
        assertThat(ProbeBody.decode(body)).isEqualTo(new ProbeBody(42, 1_700_000_005_000L));
        assertThat(new ProbeBody(1, 2).encode(4)).hasSize(ProbeBody.MIN_SIZE);
        assertThatThrownBy(() -> ProbeBody.decode(new byte[3])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void heapUsedIsReadFromJcmdHeapInfo() {
        String g1 = """
            8277:
             garbage-first heap   total 2097152K, used 123456K [0x0000000080000000, 0x0000000100000000)
              region size 16384K, 3 young (49152K), 0 survivors (0K)
             Metaspace       used 45678K, committed 46080K, reserved 1089536K
            """;

        assertThat(BrokerProbe.parseHeapUsedKb(g1)).isEqualTo(123456);
        assertThatThrownBy(() -> BrokerProbe.parseHeapUsedKb("8277:\nAttachNotSupportedException"))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void procStatusAndIoFieldsAreRead() {
        String status = "Name:\tjava\nVmRSS:\t 2345678 kB\nRssAnon:\t 2100000 kB\nRssFile:\t  245678 kB\n";
        String io = "rchar: 1\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4096000\n";

        assertThat(BrokerProbe.statusKb(status, "VmRSS")).isEqualTo(2345678);
        assertThat(BrokerProbe.statusKb(status, "RssFile")).isEqualTo(245678);
        assertThat(BrokerProbe.ioField(io, "write_bytes")).isEqualTo(4096000);
        assertThatThrownBy(() -> BrokerProbe.statusKb(status, "VmSwap")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sampleLineReportsGrowthSinceTheFirstSample() {
        BrokerProbe.Sample before = new BrokerProbe.Sample(100 * 1024, 2000 * 1024, 1500 * 1024, 500 * 1024, 0);
        BrokerProbe.Sample after = new BrokerProbe.Sample(110 * 1024, 2600 * 1024, 1520 * 1024, 1080 * 1024, 300L << 20);

        assertThat(after.line("after", before)).contains("after_heap_mib=110.0", "heap_growth_mib=10.0",
            "rss_anon_growth_mib=20.0", "disk_written_mib=300.0");
    }
}

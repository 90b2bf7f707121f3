package io.basalt.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import java.util.Properties;

import org.junit.jupiter.api.Test;

class StoreConfigTest {

    @Test
    void defaultsAreRocketMqsExceptPrewarm() {
        StoreConfig c = StoreConfig.builder().storePathRootDir("/data/store").build();
        assertEquals(Paths.get("/data/store", "commitlog").toString(), c.storePathCommitLog());
        assertEquals(1024 * 1024 * 1024, c.mappedFileSizeCommitLog());
        assertEquals(6_000_000, c.mappedFileSizeConsumeQueue());
        assertEquals(FlushDiskType.ASYNC_FLUSH, c.flushDiskType());
        assertEquals(500, c.flushIntervalCommitLog());
        assertEquals(4, c.flushCommitLogLeastPages());
        assertEquals(10_000, c.flushCommitLogThoroughInterval());
        assertTrue(c.flushCommitLogTimed());
        assertEquals(200, c.commitIntervalCommitLog());
        assertEquals(4, c.commitCommitLogLeastPages());
        assertEquals(200, c.commitCommitLogThoroughInterval());
        assertEquals(5_000, c.syncFlushTimeout());
        assertEquals(4 * 1024 * 1024, c.maxMessageSize());
        assertEquals(1_000, c.osPageCacheBusyTimeOutMills());
        assertFalse(c.transientStorePoolEnable());
        assertEquals(5, c.transientStorePoolSize());
        assertTrue(c.warmMapedFileEnable());
        assertEquals(4096, c.flushLeastPagesWhenWarmMapedFile());
        assertEquals(72, c.fileReservedTime());
        assertEquals("04", c.deleteWhen());
        assertEquals(75, c.diskMaxUsedSpaceRatio());
    }

    @Test
    void readsBrokerConfKeysAndIgnoresOthers() {
        Properties p = new Properties();
        p.setProperty("storePathRootDir", "/tmp/s");
        p.setProperty("storePathCommitLog", "/tmp/cl");
        p.setProperty("flushDiskType", "SYNC_FLUSH");
        p.setProperty("mappedFileSizeCommitLog", "1048576");
        p.setProperty("transientStorePoolEnable", "true");
        p.setProperty("warmMapedFileEnable", "false");
        p.setProperty("brokerName", "broker-a");
        StoreConfig c = StoreConfig.fromProperties(p);
        assertEquals("/tmp/cl", c.storePathCommitLog());
        assertEquals(FlushDiskType.SYNC_FLUSH, c.flushDiskType());
        assertEquals(1048576, c.mappedFileSizeCommitLog());
        assertTrue(c.transientStorePoolEnable());
        assertFalse(c.warmMapedFileEnable());
        assertEquals(c.storePathCommitLog(), c.toBuilder().build().storePathCommitLog());
    }

    @Test
    void badValuesAreRefusedNamingKeyAndValue() {
        Properties p = new Properties();
        p.setProperty("flushDiskType", "SOMETIMES");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreConfig.fromProperties(p));
        assertTrue(e.getMessage().contains("flushDiskType=SOMETIMES"), e.getMessage());

        IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.builder().mappedFileSizeCommitLog(100).build());
        assertTrue(size.getMessage().contains("mappedFileSizeCommitLog=100"), size.getMessage());

        Properties q = new Properties();
        q.setProperty("syncFlushTimeout", "5s");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StoreConfig.fromProperties(q))
            .getMessage().contains("syncFlushTimeout=5s"));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().deleteWhen("25").build());
    }
}

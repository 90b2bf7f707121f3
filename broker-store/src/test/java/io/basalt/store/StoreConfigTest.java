package io.basalt.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigReader;
import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues;
import io.basalt.common.config.ConfigValues.Source;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class StoreConfigTest {

    @Test
    void defaultsAreRocketMqsExceptPrewarm() {
        StoreConfig c = StoreConfig.builder().storePathRootDir("/data/store").build();
        assertEquals(Paths.get("/data/store", "commitlog").toString(), c.commitLogDir().toString());
        assertEquals(1024 * 1024 * 1024, c.mappedFileSizeCommitLog());
        assertEquals(6_000_000, c.mappedFileSizeConsumeQueue());
        assertEquals(FlushDiskType.ASYNC_FLUSH, c.flushDiskType());
        assertEquals(500, c.flushIntervalCommitLog());
        assertEquals(4, c.flushCommitLogLeastPages());
        assertEquals(10_000, c.flushCommitLogThoroughInterval());
        assertTrue(c.flushCommitLogTimed());
        assertEquals(1_000, c.flushIntervalConsumeQueue());
        assertEquals(2, c.flushConsumeQueueLeastPages());
        assertEquals(60_000, c.flushConsumeQueueThoroughInterval());
        assertEquals(200, c.commitIntervalCommitLog());
        assertEquals(4, c.commitCommitLogLeastPages());
        assertEquals(200, c.commitCommitLogThoroughInterval());
        assertTrue(c.wakeCommitWhenPutMessage());
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
        assertEquals(10_000, c.cleanResourceInterval());
        assertEquals(100, c.deleteCommitLogFilesInterval());
        assertEquals(120_000, c.destroyMapedFileIntervalForcibly());
        assertTrue(c.messageIndexEnable());
        assertEquals(5_000_000, c.maxHashSlotNum());
        assertEquals(20_000_000, c.maxIndexNum());
        assertEquals(32, c.maxTransferCountOnMessageInMemory());
        assertEquals(262_144, c.maxTransferBytesOnMessageInMemory());
        assertEquals(8, c.maxTransferCountOnMessageInDisk());
        assertEquals(65_536, c.maxTransferBytesOnMessageInDisk());
        assertEquals(40, c.accessMessageInMemoryMaxRatio());
        assertEquals(85, c.diskSpaceCleanForciblyRatio());
        assertEquals(90, c.diskSpaceWarningLevelRatio());
        assertTrue(c.cleanFileForciblyEnable());
        assertEquals(64, c.maxMsgsNumBatch());
    }

    @Test
    void readsBrokerConfKeysThroughTheTable() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("storePathRootDir", "/tmp/s");
        p.put("storePathCommitLog", "/tmp/cl");
        p.put("flushDiskType", "SYNC_FLUSH");
        p.put("mappedFileSizeCommitLog", "1048576");
        p.put("transientStorePoolEnable", "true");
        p.put("warmMapedFileEnable", "false");
        p.put("messageIndexEnable", "false");
        p.put("maxHashSlotNum", "1000");
        p.put("maxTransferCountOnMessageInMemory", " 64 ");
        p.put("diskSpaceWarningLevelRatio", "80");
        p.put("deleteWhen", "16;4");
        StoreConfig c = StoreConfig.from(resolveOrThrow(p));
        assertEquals("/tmp/cl", c.commitLogDir().toString());
        assertEquals(FlushDiskType.SYNC_FLUSH, c.flushDiskType());
        assertEquals(1048576, c.mappedFileSizeCommitLog());
        assertTrue(c.transientStorePoolEnable());
        assertFalse(c.warmMapedFileEnable());
        assertFalse(c.messageIndexEnable());
        assertEquals(1000, c.maxHashSlotNum());
        assertEquals(64, c.maxTransferCountOnMessageInMemory());
        assertEquals(80, c.diskSpaceWarningLevelRatio());
        assertEquals("04;16", c.deleteWhen());
        assertEquals(c.commitLogDir().toString(), c.toBuilder().build().commitLogDir().toString());
        assertEquals(1000, c.toBuilder().build().maxHashSlotNum());
    }

    @Test
    void badValuesAreRefusedNamingKeyAndValue() {
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.from(resolveOrThrow(Map.of("flushDiskType", "SOMETIMES"))));
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.builder().mappedFileSizeCommitLog(100).build());
        assertTrue(size.getMessage().contains("mappedFileSizeCommitLog=100"), size.getMessage());
        IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.from(resolveOrThrow(Map.of("syncFlushTimeout", "5s"))));
        assertTrue(timeout.getMessage().contains("syncFlushTimeout=5s"), timeout.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().deleteWhen("25").build());
        IllegalArgumentException index = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.from(resolveOrThrow(Map.of("maxIndexNum", "lots"))));
        assertTrue(index.getMessage().contains("maxIndexNum=lots"), index.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().accessMessageInMemoryMaxRatio(140).build());
    }

    @Test
    void aConsumeQueueFileOfPartialEntriesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.builder().mappedFileSizeConsumeQueue(1000001).build());
        assertTrue(e.getMessage().contains("mappedFileSizeConsumeQueue=1000001"), e.getMessage());
    }

    private static ConfigValues resolveOrThrow(Map<String, String> properties) {
        Map<String, Setting> settings = new LinkedHashMap<>();
        properties.forEach((k, v) -> settings.put(k, new Setting(k, v, Source.PROPERTIES, "test")));
        ConfigReader reader = new ConfigReader(StoreKeys.TABLE, ConfigEnvironment.system());
        ConfigValues.Builder values = reader.read(settings);
        List<String> problems = reader.problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return values.build();
    }
}

package io.basalt.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class MessageStoreOptionsTest {
    @Test
    void brokerConfKeysOverrideRocketMqDefaults() {
        MessageStoreOptions d = MessageStoreOptions.fromProperties(new Properties());
        assertTrue(d.messageIndexEnable());
        assertEquals(5_000_000, d.maxHashSlotNum());
        assertEquals(20_000_000, d.maxIndexNum());
        assertEquals(32, d.readLimits().maxTransferCountOnMessageInMemory());
        assertEquals(262_144, d.readLimits().maxTransferBytesOnMessageInMemory());
        assertEquals(8, d.readLimits().maxTransferCountOnMessageInDisk());
        assertEquals(65_536, d.readLimits().maxTransferBytesOnMessageInDisk());
        assertEquals(40, d.readLimits().accessMessageInMemoryMaxRatio());
        assertEquals(85, d.diskSpaceCleanForciblyRatio());
        assertEquals(90, d.diskSpaceWarningLevelRatio());
        assertEquals(64, d.maxMsgsNumBatch());

        Properties p = new Properties();
        p.setProperty("messageIndexEnable", "false");
        p.setProperty("maxHashSlotNum", "1000");
        p.setProperty("maxTransferCountOnMessageInMemory", " 64 ");
        p.setProperty("diskSpaceWarningLevelRatio", "80");
        p.setProperty("someOtherKey", "ignored");
        MessageStoreOptions o = MessageStoreOptions.fromProperties(p);
        assertFalse(o.messageIndexEnable());
        assertEquals(1000, o.maxHashSlotNum());
        assertEquals(64, o.readLimits().maxTransferCountOnMessageInMemory());
        assertEquals(80, o.diskSpaceWarningLevelRatio());
    }

    @Test
    void aBadValueNamesTheKey() {
        Properties p = new Properties();
        p.setProperty("maxIndexNum", "lots");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MessageStoreOptions.fromProperties(p));
        assertTrue(e.getMessage().contains("maxIndexNum=lots"), e.getMessage());
        Properties q = new Properties();
        q.setProperty("accessMessageInMemoryMaxRatio", "140");
        assertThrows(IllegalArgumentException.class, () -> MessageStoreOptions.fromProperties(q));
    }
}

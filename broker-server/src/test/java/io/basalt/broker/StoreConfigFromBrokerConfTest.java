package io.basalt.broker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.store.StoreConfig;

/** broker.conf keys of the store reach the StoreConfig the broker opens its store with. */
class StoreConfigFromBrokerConfTest {
    @TempDir
    Path dir;

    private StoreConfig storeConfigOf(String confText) throws Exception {
        Path conf = Files.writeString(dir.resolve("broker.conf"), "storePathRootDir=" + dir.resolve("store") + "\n" + confText);
        return BrokerConfiguration.load(conf, Map.of()).store();
    }

    @Test
    void enabledAppendPropCrcIsOffByDefaultAsInRocketMq() throws Exception {
        assertFalse(storeConfigOf("").enabledAppendPropCRC());
    }

    @Test
    void enabledAppendPropCrcTurnsTheRecordCrcOn() throws Exception {
        StoreConfig config = storeConfigOf("enabledAppendPropCRC=true\ncheckCRCOnRecover=true\n");
        assertTrue(config.enabledAppendPropCRC());
        assertTrue(config.checkCRCOnRecover());
    }
}

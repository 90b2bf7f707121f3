package io.basalt.broker.config;

import io.basalt.ha.BrokerRole;

import io.basalt.broker.config.RocketMqKeyPolicy.KeyClass;
import io.basalt.broker.config.RocketMqKeyPolicy.Rule;
import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigReader;
import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues;
import io.basalt.common.config.KeySuggester;
import io.basalt.ha.HAConfig;
import io.basalt.ha.HAKeys;
import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreKeys;
import io.basalt.store.StoreConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the settings of a file and the command line into {@link ConfigValues}, in three passes:
 * sort each setting's key into Basalt's, RocketMQ-only or unknown (an error with the closest valid
 * name), where a RocketMQ-only key is warned about if it is a tuning key and refused if it is a
 * semantic key set to a value Basalt cannot honour ({@link RocketMqKeyPolicy}); read every key of
 * {@link ConfigKeys#TABLE} from its setting or its default; then check the rules that span keys.
 * Problems of all passes are collected and thrown together. One use per instance, on one thread.
 */
final class ConfigResolver {

    /** What resolution produced besides the values. */
    record Resolution(ConfigValues values, List<String> warnings, Set<String> ignoredKeys,
                      Map<String, String> rocketMqOnlyValues) {
    }

    private static final int CONSUME_QUEUE_UNIT_SIZE = 20;

    private final ConfigEnvironment environment;
    private final List<String> problems = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Set<String> ignoredKeys = new LinkedHashSet<>();
    private ConfigValues.Builder values;
    /** The RocketMQ-only settings that apply, by key. */
    private final Map<String, Setting> rocketMqOnly = new LinkedHashMap<>();

    ConfigResolver(ConfigEnvironment environment) {
        this.environment = environment;
    }

    /** @param settings in the order they apply: a later setting of a key wins */
    Resolution resolve(List<Setting> settings) throws ConfigException {
        Map<String, Setting> chosen = classify(settings);
        ConfigReader reader = new ConfigReader(ConfigKeys.TABLE, environment);
        values = reader.read(chosen);
        problems.addAll(reader.problems());
        checkDLedgerWithController(rocketMqOnly);
        checkRole();
        checkPorts();
        checkStore();
        checkHa();
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        Map<String, String> rocketMqOnlyValues = new LinkedHashMap<>();
        rocketMqOnly.forEach((key, setting) -> rocketMqOnlyValues.put(key, setting.value().strip()));
        return new Resolution(values.build(), List.copyOf(warnings), Collections.unmodifiableSet(ignoredKeys),
            Collections.unmodifiableMap(rocketMqOnlyValues));
    }

    private Map<String, Setting> classify(List<Setting> settings) {
        Map<String, Setting> chosen = new LinkedHashMap<>();
        for (Setting setting : settings) {
            if (ConfigKeys.TABLE.contains(setting.key())) {
                chosen.put(setting.key(), setting);
            } else if (RocketMqKeyNames.contains(setting.key())) {
                rocketMqOnly.put(setting.key(), setting);
            } else {
                problems.add(setting.origin() + ": unknown key '" + setting.key() + "'" + suggestion(setting.key()));
            }
        }
        rocketMqOnly.values().forEach(this::classifyRocketMqOnly);
        return chosen;
    }

    /** Only the setting that applies counts: a file's aclEnable=true overridden by --aclEnable=false starts. */
    private void classifyRocketMqOnly(Setting setting) {
        Rule rule = RocketMqKeyPolicy.rule(setting.key()).orElseThrow(() -> new IllegalStateException(
            setting.key() + " is a RocketMQ key missing from " + RocketMqKeyPolicy.RESOURCE));
        ignoredKeys.add(setting.key());
        if (rule.keyClass() == KeyClass.TUNING) {
            warnings.add(setting.origin() + ": " + setting.key() + " is a RocketMQ 5.2.0 broker setting that Basalt does"
                + " not implement; ignored (a tuning key: leaving it out changes no guarantee)");
        } else if (!rule.honours(setting.value())) {
            problems.add(setting.origin() + ": " + setting.key() + "=" + setting.value().strip()
                + " is a RocketMQ setting Basalt cannot honour: " + rule.instead()
                + " (accepted: " + accepted(rule) + ")");
        }
    }

    private static String accepted(Rule rule) {
        return rule.honoured().stream().map(value -> value.isEmpty() ? "empty" : value)
            .reduce((a, b) -> a + " or " + b).orElse("nothing");
    }

    private static String suggestion(String unknown) {
        return KeySuggester.closest(unknown, ConfigKeys.TABLE.names(), RocketMqKeyNames.all())
            .map(name -> "; did you mean " + name + "?")
            .orElse(" (neither a Basalt nor a RocketMQ 5.2.0 broker key)");
    }

    private void checkRole() {
        if (!values.has(ConfigKeys.BROKER_ROLE) || !values.has(ConfigKeys.BROKER_ID)) {
            return;
        }
        if (values.has(ConfigKeys.ENABLE_CONTROLLER_MODE) && values.get(ConfigKeys.ENABLE_CONTROLLER_MODE)) {
            checkControllerMode();
            return;
        }
        BrokerRole role = values.get(ConfigKeys.BROKER_ROLE);
        long brokerId = values.get(ConfigKeys.BROKER_ID);
        if (brokerId < 0) {
            problems.add("brokerId=" + brokerId + " means 'assigned by the controller' and needs enableControllerMode=true;"
                + " without a controller a master has brokerId 0 and a slave a positive id");
            return;
        }
        if (role == BrokerRole.SLAVE && brokerId == 0) {
            problems.add("brokerRole=SLAVE needs brokerId > 0 (brokerId=0 is the master's)");
        }
        if (role.isMaster() && brokerId != 0) {
            // RocketMQ's BrokerStartup forces a master's id to 0; Basalt does the same, but says so.
            warnings.add("brokerId=" + brokerId + " with brokerRole=" + role + ": a master's id is always 0; using 0");
            values.correct(ConfigKeys.BROKER_ID, 0L);
        }
        // A slave replicates from haMasterAddress, else, as RocketMQ's does, from the HA address the
        // NameServers return to its registration (haServerAddr); with neither it would never replicate.
        if (role == BrokerRole.SLAVE && values.has(ConfigKeys.HA_MASTER_ADDRESS)
            && values.get(ConfigKeys.HA_MASTER_ADDRESS).isEmpty()
            && values.has(ConfigKeys.NAMESRV_ADDR) && values.get(ConfigKeys.NAMESRV_ADDR).isEmpty()) {
            problems.add("brokerRole=SLAVE needs haMasterAddress (the master's host:haListenPort) or namesrvAddr"
                + " (the NameServers then name the master's HA address once the master registered)");
        }
    }

    /**
     * RocketMQ's controller mode: the controller assigns the id and the role, so brokerId (the samples say -1) and
     * brokerRole (SLAVE: "start as a replica") are not checked, and a slave finds its master through the controller
     * and the NameServers, not through haMasterAddress. DLedger's CommitLog elects on its own: the two exclude each
     * other (RocketMQ's BrokerStartup exits); enableDLegerCommitLog=true is refused by its own rule too.
     */
    private void checkControllerMode() {
        if (values.has(ConfigKeys.CONTROLLER_ADDR) && values.get(ConfigKeys.CONTROLLER_ADDR).isEmpty()) {
            problems.add("enableControllerMode=true needs controllerAddr (every controller node, host:port separated by ';')");
        }
        if (values.has(ConfigKeys.HA_MASTER_ADDRESS) && values.get(ConfigKeys.HA_MASTER_ADDRESS).isPresent()) {
            warnings.add("haMasterAddress is ignored with enableControllerMode=true: a slave replicates from the master"
                + " the controller names, at the HA address that master registered with the NameServers");
        }
    }

    /** RocketMQ's BrokerStartup refuses DLedger's CommitLog in controller mode; so does Basalt, by name. */
    private void checkDLedgerWithController(Map<String, Setting> rocketMqOnly) {
        Setting dledger = rocketMqOnly.get("enableDLegerCommitLog");
        if (dledger != null && dledger.value().strip().equalsIgnoreCase("true") && values.has(ConfigKeys.ENABLE_CONTROLLER_MODE)
            && values.get(ConfigKeys.ENABLE_CONTROLLER_MODE)) {
            problems.add("enableControllerMode=true and enableDLegerCommitLog=true exclude each other: the controller"
                + " elects the master of a broker set whose CommitLog is replicated master to slave");
        }
    }

    private void checkPorts() {
        List<io.basalt.common.config.ConfigKey<Integer>> ports = List.of(ConfigKeys.LISTEN_PORT, HAKeys.HA_LISTEN_PORT,
            ConfigKeys.METRICS_PORT);
        for (int i = 0; i < ports.size(); i++) {
            for (int j = i + 1; j < ports.size(); j++) {
                var a = ports.get(i);
                var b = ports.get(j);
                if (values.has(a) && values.has(b) && values.get(a) != 0 && values.get(a).equals(values.get(b))) {
                    problems.add(a.name() + "=" + values.get(a) + " and " + b.name() + "=" + values.get(b) + " must differ");
                }
            }
        }
    }

    private void checkStore() {
        checkMessageFitsFile();
        if (values.has(StoreKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE)) {
            int size = values.get(StoreKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE);
            int remainder = size % CONSUME_QUEUE_UNIT_SIZE;
            if (remainder != 0) {
                int rounded = size + CONSUME_QUEUE_UNIT_SIZE - remainder;
                warnings.add("mappedFileSizeConsumeQueue=" + size + " rounded up to " + rounded
                    + ", a multiple of the 20-byte ConsumeQueue entry (as RocketMQ does)");
                values.correct(StoreKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE, rounded);
            }
        }
        if (values.has(StoreKeys.TRANSIENT_STORE_POOL_ENABLE) && values.has(StoreKeys.FLUSH_DISK_TYPE)
            && values.has(ConfigKeys.BROKER_ROLE) && values.get(StoreKeys.TRANSIENT_STORE_POOL_ENABLE)) {
            FlushDiskType flushDiskType = values.get(StoreKeys.FLUSH_DISK_TYPE);
            BrokerRole role = values.get(ConfigKeys.BROKER_ROLE);
            if (flushDiskType != FlushDiskType.ASYNC_FLUSH || role == BrokerRole.SLAVE) {
                // RocketMQ silently ignores the flag in these cases; the effective value says what happens.
                warnings.add("transientStorePoolEnable=true has no effect with flushDiskType=" + flushDiskType
                    + " and brokerRole=" + role + " (it needs an ASYNC_FLUSH master); using false");
                values.correct(StoreKeys.TRANSIENT_STORE_POOL_ENABLE, false);
            }
        }
    }

    /**
     * A RocketMQ broker.conf may pair 4 MiB CommitLog files with the default 4 MiB maxMessageSize. It
     * starts; the files, not maxMessageSize, then bound a message, and a send over that bound gets
     * MESSAGE_ILLEGAL from the store.
     */
    private void checkMessageFitsFile() {
        if (!values.has(StoreKeys.MAX_MESSAGE_SIZE) || !values.has(StoreKeys.MAPPED_FILE_SIZE_COMMIT_LOG)) {
            return;
        }
        int maxMessageSize = values.get(StoreKeys.MAX_MESSAGE_SIZE);
        int fileSize = values.get(StoreKeys.MAPPED_FILE_SIZE_COMMIT_LOG);
        if (maxMessageSize >= fileSize) {
            warnings.add("maxMessageSize=" + maxMessageSize + " is not smaller than mappedFileSizeCommitLog=" + fileSize
                + ": a record must fit in one CommitLog file, so the effective limit is " + largestRecord(fileSize)
                + " bytes per record (body, properties and header); larger sends get MESSAGE_ILLEGAL");
        }
    }

    /** The largest record one CommitLog file holds. */
    static int largestRecord(int fileSize) {
        return StoreConfig.largestRecord(fileSize);
    }

    private void checkHa() {
        if (values.has(HAKeys.HA_HOUSEKEEPING_INTERVAL) && values.has(HAKeys.HA_SEND_HEARTBEAT_INTERVAL)) {
            int housekeeping = values.get(HAKeys.HA_HOUSEKEEPING_INTERVAL);
            int heartbeat = values.get(HAKeys.HA_SEND_HEARTBEAT_INTERVAL);
            if (housekeeping <= heartbeat) {
                problems.add(HAConfig.housekeepingProblem(housekeeping, heartbeat));
            }
        }
        // RocketMQ reads allAckInSyncStateSet, inSyncReplicas, minInSyncReplicas and asyncLearner only in
        // controller mode; a classic broker that was given one would silently not honour it
        if (!controllerMode()) {
            for (io.basalt.common.config.ConfigKey<?> key : HAKeys.CONTROLLER_MODE_ONLY) {
                if (values.has(key) && !String.valueOf(values.get(key)).equals(key.defaultText())) {
                    problems.add(HAKeys.controllerOnlyProblem(key, values.get(key)));
                }
            }
        }
    }

    private boolean controllerMode() {
        return ConfigKeys.TABLE.named("enableControllerMode").map(key -> values.has(key) && Boolean.TRUE.equals(values.get(key)))
            .orElse(false);
    }
}

package io.basalt.broker.controller;

import io.basalt.broker.controller.ControllerApi.BrokerHeartbeat;
import io.basalt.broker.controller.ControllerApi.ControllerMetadata;
import io.basalt.broker.controller.ControllerApi.ElectionResult;
import io.basalt.broker.controller.ControllerApi.ReplicaInfo;
import io.basalt.broker.controller.ControllerApi.SyncStateSet;
import io.basalt.remoting.json.FastjsonParser;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.protocol.CommandHeader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * RocketMQ 5.2.0's Controller headers and bodies, both directions. Header field names and types are those of
 * {@code org.apache.rocketmq.remoting.protocol.header.controller.*} (reflective headers: every non-null field
 * as its decimal or literal text); bodies are fastjson's output of {@code SyncStateSet} and
 * {@code ElectMasterResponseBody}, whose {@code brokerAddrs} map has unquoted integer keys.
 */
final class ControllerCodec {
    private ControllerCodec() {
    }

    /** A header written from an ordered field map: RocketMQ's reflective headers, merged into extFields. */
    record Fields(Map<String, String> values) implements CommandHeader {
        Fields {
            values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }

        @Override
        public void encode(FieldWriter out) {
            values.forEach(out::put);
        }

        @Override
        public boolean writtenAheadOfExtFields() {
            return false;
        }
    }

    private static final class Builder {
        private final LinkedHashMap<String, String> values = new LinkedHashMap<>();

        Builder put(String name, Object value) {
            if (value != null) {
                values.put(name, value.toString());
            }
            return this;
        }

        Fields build() {
            return new Fields(values);
        }
    }

    /** 1012 GetNextBrokerIdRequestHeader. */
    static Fields nextBrokerIdRequest(String clusterName, String brokerName) {
        return new Builder().put("clusterName", clusterName).put("brokerName", brokerName).build();
    }

    /** 1013 ApplyBrokerIdRequestHeader. */
    static Fields applyBrokerIdRequest(String clusterName, String brokerName, long brokerId, String registerCheckCode) {
        return new Builder().put("clusterName", clusterName).put("brokerName", brokerName)
            .put("appliedBrokerId", brokerId).put("registerCheckCode", registerCheckCode).build();
    }

    /** 1003 RegisterBrokerToControllerRequestHeader. */
    static Fields registerRequest(String clusterName, String brokerName, long brokerId, String brokerAddress,
        long invokeTime) {
        return new Builder().put("clusterName", clusterName).put("brokerName", brokerName).put("brokerId", brokerId)
            .put("brokerAddress", brokerAddress).put("invokeTime", invokeTime).build();
    }

    /** 1002 ElectMasterRequestHeader as a broker sends it ({@code designateElect=false}). */
    static Fields electMasterRequest(String clusterName, String brokerName, long brokerId, long invokeTime) {
        return new Builder().put("clusterName", clusterName).put("brokerName", brokerName).put("brokerId", brokerId)
            .put("designateElect", false).put("invokeTime", invokeTime).build();
    }

    /** 1004 GetReplicaInfoRequestHeader. */
    static Fields replicaInfoRequest(String brokerName) {
        return new Builder().put("brokerName", brokerName).build();
    }

    /** 1001 AlterSyncStateSetRequestHeader. */
    static Fields alterSyncStateSetRequest(String brokerName, long masterBrokerId, int masterEpoch, long invokeTime) {
        return new Builder().put("brokerName", brokerName).put("masterBrokerId", masterBrokerId)
            .put("masterEpoch", masterEpoch).put("invokeTime", invokeTime).build();
    }

    /** 904 BrokerHeartbeatRequestHeader. */
    static Fields heartbeatRequest(BrokerHeartbeat heartbeat) {
        return new Builder().put("clusterName", heartbeat.clusterName()).put("brokerAddr", heartbeat.brokerAddr())
            .put("brokerName", heartbeat.brokerName()).put("brokerId", heartbeat.brokerId())
            .put("epoch", heartbeat.epoch()).put("maxOffset", heartbeat.maxOffset())
            .put("confirmOffset", heartbeat.confirmOffset())
            .put("heartbeatTimeoutMills", heartbeat.heartbeatTimeoutMillis())
            .put("electionPriority", heartbeat.electionPriority()).build();
    }

    /** A SyncStateSet body as fastjson writes it: fields in name order, ids ascending. */
    static byte[] syncStateSetBody(SyncStateSet set) {
        StringBuilder json = new StringBuilder("{\"syncStateSet\":[");
        String separator = "";
        for (long id : new TreeSet<>(set.brokerIds())) {
            json.append(separator).append(id);
            separator = ",";
        }
        return json.append("],\"syncStateSetEpoch\":").append(set.epoch()).append('}').toString()
            .getBytes(StandardCharsets.UTF_8);
    }

    /** 1005's response header. */
    static ControllerMetadata metadata(Map<String, String> fields) {
        Map<String, String> f = fields == null ? Map.of() : fields;
        return new ControllerMetadata(f.getOrDefault("group", ""), f.getOrDefault("controllerLeaderId", ""),
            f.getOrDefault("controllerLeaderAddress", ""), Boolean.parseBoolean(f.get("isLeader")),
            f.getOrDefault("peers", ""));
    }

    /**
     * The master fields RocketMQ puts in the headers of 1003, 1004, 1002 and the 1008 push (absent when the set
     * has no master) and the SyncStateSet of the body; {@code syncStateSetEpoch} of the header wins over the
     * body's when both are present, the body alone is used otherwise.
     */
    static ReplicaInfo replicaInfo(Map<String, String> fields, byte[] body) throws ControllerException {
        Map<String, String> f = fields == null ? Map.of() : fields;
        Set<Long> ids = Set.of();
        Integer epoch = null;
        if (body != null && body.length > 0) {
            Map<?, ?> json = object(body, "SyncStateSet");
            ids = ids(json.get("syncStateSet"));
            epoch = json.get("syncStateSetEpoch") == null ? null : number(json.get("syncStateSetEpoch")).intValue();
        }
        Integer headerEpoch = int32(f, "syncStateSetEpoch");
        if (headerEpoch != null) {
            epoch = headerEpoch;
        }
        Long masterId = int64(f, "masterBrokerId");
        Integer masterEpoch = int32(f, "masterEpoch");
        return new ReplicaInfo(masterId == null ? -1 : masterId, f.getOrDefault("masterAddress", ""),
            masterEpoch == null ? 0 : masterEpoch, new SyncStateSet(ids, epoch == null ? 0 : epoch));
    }

    /**
     * 1002's response: header {@code masterBrokerId}, {@code masterAddress}, {@code masterEpoch},
     * {@code syncStateSetEpoch}; body ElectMasterResponseBody {@code {"brokerMemberGroup":{"brokerAddrs":{1:"…"},
     * …},"syncStateSet":[1]}}.
     */
    static ElectionResult electionResult(boolean elected, Map<String, String> fields, byte[] body)
        throws ControllerException {
        Map<String, String> f = fields == null ? Map.of() : fields;
        Set<Long> ids = Set.of();
        Map<Long, String> addresses = new HashMap<>();
        if (body != null && body.length > 0) {
            Map<?, ?> json = object(body, "ElectMasterResponseBody");
            ids = ids(json.get("syncStateSet"));
            if (json.get("brokerMemberGroup") instanceof Map<?, ?> group
                && group.get("brokerAddrs") instanceof Map<?, ?> addrs) {
                for (Map.Entry<?, ?> e : addrs.entrySet()) {
                    try {
                        addresses.put(Long.parseLong(String.valueOf(e.getKey())), String.valueOf(e.getValue()));
                    } catch (NumberFormatException bad) {
                        throw new ControllerException(ControllerResponseCode.INVALID_REQUEST,
                            "ElectMasterResponseBody has a broker id that is not a number: " + e.getKey());
                    }
                }
            }
        }
        Long masterId = int64(f, "masterBrokerId");
        Integer masterEpoch = int32(f, "masterEpoch");
        Integer setEpoch = int32(f, "syncStateSetEpoch");
        ReplicaInfo master = new ReplicaInfo(masterId == null ? -1 : masterId, f.getOrDefault("masterAddress", ""),
            masterEpoch == null ? 0 : masterEpoch, new SyncStateSet(ids, setEpoch == null ? 0 : setEpoch));
        return new ElectionResult(elected, master, addresses);
    }

    private static Map<?, ?> object(byte[] body, String what) throws ControllerException {
        Object tree;
        try {
            tree = FastjsonParser.parse(body);
        } catch (JsonException e) {
            throw new ControllerException(ControllerResponseCode.INVALID_REQUEST, what + " body is not JSON: "
                + e.getMessage(), e);
        }
        if (!(tree instanceof Map<?, ?> map)) {
            throw new ControllerException(ControllerResponseCode.INVALID_REQUEST, what + " body is not a JSON object: "
                + new String(body, StandardCharsets.UTF_8));
        }
        return map;
    }

    private static Set<Long> ids(Object list) throws ControllerException {
        if (list == null) {
            return Set.of();
        }
        if (!(list instanceof List<?> items)) {
            throw new ControllerException(ControllerResponseCode.INVALID_REQUEST, "syncStateSet is not an array: " + list);
        }
        Set<Long> ids = new TreeSet<>();
        for (Object item : items) {
            ids.add(number(item).longValue());
        }
        return ids;
    }

    private static Number number(Object value) throws ControllerException {
        if (value instanceof Number n) {
            return n;
        }
        throw new ControllerException(ControllerResponseCode.INVALID_REQUEST, "expected a number, got " + value);
    }

    static Long int64(Map<String, String> fields, String name) throws ControllerException {
        String value = fields.get(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new ControllerException(ControllerResponseCode.INVALID_REQUEST,
                "header field " + name + " is not a number: " + value);
        }
    }

    static Integer int32(Map<String, String> fields, String name) throws ControllerException {
        Long value = int64(fields, name);
        return value == null ? null : Math.toIntExact(value);
    }
}

package io.basalt.broker.protocol;

import java.util.List;
import java.util.Map;

/**
 * RocketMQ's {@code HARuntimeInfo}: the GET_BROKER_HA_STATUS (907) response body, with the properties fastjson
 * writes for it (those with getters): {@code master}, {@code masterCommitLogMaxOffset}, {@code inSyncSlaveNums},
 * {@code haConnectionInfo} (one per slave) and {@code haClientRuntimeInfo} (filled on a slave). RocketMQ's
 * {@code isActivated} has no getter and is never written.
 */
public record HaRuntimeInfo(boolean master, long masterCommitLogMaxOffset, int inSyncSlaveNums,
                            List<Connection> haConnectionInfo, Client haClientRuntimeInfo) {

    /** {@code HAConnectionRuntimeInfo}: one slave as the master sees it. */
    public record Connection(String addr, long slaveAckOffset, long diff, boolean inSync, long transferredByteInSecond,
                             long transferFromWhere) {
        Map<String, Object> toJson() {
            Map<String, Object> json = JsonObject.fields();
            json.put("addr", addr);
            json.put("slaveAckOffset", slaveAckOffset);
            json.put("diff", diff);
            json.put("inSync", inSync);
            json.put("transferredByteInSecond", transferredByteInSecond);
            json.put("transferFromWhere", transferFromWhere);
            return json;
        }
    }

    /** {@code HAClientRuntimeInfo}: a slave's HA client. */
    public record Client(String masterAddr, long transferredByteInSecond, long maxOffset, long lastReadTimestamp,
                         long lastWriteTimestamp, long masterFlushOffset) {
        /** What RocketMQ writes on a master: a client that never ran. */
        public static final Client NONE = new Client(null, 0, 0, 0, 0, 0);

        Map<String, Object> toJson() {
            Map<String, Object> json = JsonObject.fields();
            if (masterAddr != null) {
                json.put("masterAddr", masterAddr);
            }
            json.put("transferredByteInSecond", transferredByteInSecond);
            json.put("maxOffset", maxOffset);
            json.put("lastReadTimestamp", lastReadTimestamp);
            json.put("lastWriteTimestamp", lastWriteTimestamp);
            json.put("masterFlushOffset", masterFlushOffset);
            return json;
        }
    }

    public HaRuntimeInfo {
        haConnectionInfo = List.copyOf(haConnectionInfo);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("master", master);
        json.put("masterCommitLogMaxOffset", masterCommitLogMaxOffset);
        json.put("inSyncSlaveNums", inSyncSlaveNums);
        json.put("haConnectionInfo", haConnectionInfo.stream().map(Connection::toJson).toList());
        json.put("haClientRuntimeInfo", haClientRuntimeInfo.toJson());
        return Json.encode(json);
    }
}

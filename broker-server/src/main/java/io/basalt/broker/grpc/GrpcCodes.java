package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Status;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * The application status of a gRPC response ({@code apache.rocketmq.v2.Status}) and the conversion of the broker's
 * remoting response codes into it (RocketMQ's proxy table, with the send-path codes of its local mode). Business
 * errors travel in this status, never as a gRPC transport status.
 */
final class GrpcCodes {
    static final Status OK = status(Code.OK, "OK");

    private GrpcCodes() {
    }

    static Status status(Code code, String message) {
        return Status.newBuilder().setCode(code).setMessage(message == null ? "" : message).build();
    }

    /** The status of a remoting response: SUCCESS is OK, anything else keeps the broker's remark. */
    static Status fromRemoting(int responseCode, String remark) {
        Code code = codeOf(responseCode);
        return status(code, code == Code.OK ? "OK" : remark == null || remark.isEmpty() ? "broker response code "
            + responseCode : remark);
    }

    static Code codeOf(int responseCode) {
        return switch (responseCode) {
            case ResponseCode.SUCCESS -> Code.OK;
            case ResponseCode.FLUSH_DISK_TIMEOUT -> Code.MASTER_PERSISTENCE_TIMEOUT;
            case ResponseCode.FLUSH_SLAVE_TIMEOUT -> Code.SLAVE_PERSISTENCE_TIMEOUT;
            case ResponseCode.SLAVE_NOT_AVAILABLE -> Code.HA_NOT_AVAILABLE;
            case ResponseCode.SYSTEM_BUSY -> Code.TOO_MANY_REQUESTS;
            case ResponseCode.REQUEST_CODE_NOT_SUPPORTED -> Code.NOT_IMPLEMENTED;
            case ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST -> Code.CONSUMER_GROUP_NOT_FOUND;
            case ResponseCode.TOPIC_NOT_EXIST -> Code.TOPIC_NOT_FOUND;
            case ResponseCode.NO_PERMISSION -> Code.FORBIDDEN;
            default -> Code.INTERNAL_SERVER_ERROR;
        };
    }

    /**
     * The top-level status of a response with one entry per message: the common status when every entry has the
     * same code, else MULTIPLE_RESULTS.
     */
    static Status combined(java.util.List<Status> entries) {
        if (entries.isEmpty()) {
            return OK;
        }
        Status first = entries.get(0);
        for (Status s : entries) {
            if (s.getCode() != first.getCode()) {
                return status(Code.MULTIPLE_RESULTS, "the messages have different results: see each entry");
            }
        }
        return first;
    }
}

package io.basalt.remoting.protocol;

import java.util.Map;

/**
 * RocketMQ 5.2.0 request codes that Basalt knows but deliberately does not serve, each with the feature it belongs
 * to, so that the REQUEST_CODE_NOT_SUPPORTED answer tells an operator (and {@code mqadmin}, which prints the
 * remark) what is missing instead of only a number.
 */
public final class UnsupportedRequestCodes {
    private static final String STATIC_TOPICS = "static topics (logic queues mapped across brokers)";
    private static final String CONTAINER = "the broker container (several brokers in one process)";
    private static final String COLD_DATA = "cold data flow control (tiered storage)";

    private static final Map<Integer, String> FEATURES = Map.ofEntries(
        Map.entry(513, STATIC_TOPICS),                 // UPDATE_AND_CREATE_STATIC_TOPIC
        Map.entry(901, CONTAINER),                     // GET_BROKER_MEMBER_GROUP
        Map.entry(902, CONTAINER),                     // ADD_BROKER
        Map.entry(903, CONTAINER),                     // REMOVE_BROKER
        Map.entry(2001, COLD_DATA),                    // UPDATE_COLD_DATA_FLOW_CTR_CONFIG
        Map.entry(2002, COLD_DATA),                    // REMOVE_COLD_DATA_FLOW_CTR_CONFIG
        Map.entry(2003, COLD_DATA),                    // GET_COLD_DATA_FLOW_CTR_INFO
        Map.entry(301, "filter servers (removed in RocketMQ 5)"),   // REGISTER_FILTER_SERVER
        Map.entry(302, "filter servers (removed in RocketMQ 5)"));  // REGISTER_MESSAGE_FILTER_CLASS

    private UnsupportedRequestCodes() {
    }

    /** The remark of the REQUEST_CODE_NOT_SUPPORTED answer to {@code code}. */
    public static String remark(int code) {
        String feature = FEATURES.get(code);
        // RocketMQ's own wording first: clients and scripts match on " request type N not supported"
        return feature == null
            ? " request type " + code + " not supported"
            : " request type " + code + " not supported: Basalt does not implement " + feature;
    }
}

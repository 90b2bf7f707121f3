package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** RocketMQ's {@code TopicList}: topic names, e.g. the GET_ALL_TOPIC_LIST_FROM_NAMESERVER response body. */
public record TopicList(Set<String> topicList, String brokerAddr) {

    public TopicList {
        topicList = Set.copyOf(topicList);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("brokerAddr", brokerAddr);
        json.put("topicList", new TreeSet<>(topicList));
        return Json.encode(json);
    }

    public static TopicList decode(byte[] body) {
        JsonObject json = JsonObject.parse(body, "TopicList");
        return new TopicList(json.set("topicList", JsonObject::asString), json.string("brokerAddr", null));
    }
}

package io.basalt.broker.protocol;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** RocketMQ's {@code GroupList}: consumer group names, e.g. the QUERY_TOPIC_CONSUME_BY_WHO response body. */
public record GroupList(Set<String> groupList) {

    public GroupList {
        groupList = Set.copyOf(groupList);
    }

    public byte[] encode() {
        Map<String, Object> json = JsonObject.fields();
        json.put("groupList", new TreeSet<>(groupList));
        return Json.encode(json);
    }

    public static GroupList decode(byte[] body) {
        return new GroupList(JsonObject.parse(body, "GroupList").set("groupList", JsonObject::asString));
    }
}

package io.basalt.broker.protocol;

import java.util.Map;

/** RocketMQ's {@code Connection}: one client channel of a group ({@code language} is a LanguageCode name). */
public record Connection(String clientId, String clientAddr, String language, int version) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = JsonObject.fields();
        json.put("clientAddr", clientAddr);
        json.put("clientId", clientId);
        json.put("language", language);
        json.put("version", version);
        return json;
    }

    public static Connection fromJson(Object tree) {
        JsonObject json = JsonObject.of(tree, "Connection");
        return new Connection(json.string("clientId", null), json.string("clientAddr", null),
            json.string("language", null), json.intValue("version", 0));
    }
}

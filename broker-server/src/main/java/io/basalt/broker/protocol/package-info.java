/**
 * The JSON bodies of RocketMQ's remoting commands (route data, heartbeats, topic configs, admin
 * statistics), written and read the way the official clients' fastjson 1.x does.
 *
 * <p>fastjson is not plain JSON: a map whose keys are objects or numbers is written with those keys
 * unquoted ({@code {{"brokerName":"b","queueId":0,"topic":"t"}:{...}}}, {@code {0:"host:port"}}),
 * and the official client reads them back only in that form. {@link io.basalt.broker.protocol.Json}
 * writes and reads that dialect over a small tree (maps, lists, strings, numbers, booleans), through the
 * same writer, escaper and parser as the remoting headers ({@link io.basalt.remoting.json}); the
 * admin and registration bodies are immutable records that turn themselves into such a tree
 * ({@code toJson()}/{@code encode()}) and back ({@code fromJson(...)}/{@code decode(...)}), with
 * RocketMQ's property names. Properties are written in alphabetical order and {@code null} ones are
 * left out, as fastjson does. Every body goes this way; Jackson is left to the broker's own metadata
 * files ({@link io.basalt.broker.JsonConfigFile}).
 */
package io.basalt.broker.protocol;

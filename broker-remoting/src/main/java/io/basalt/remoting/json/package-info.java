/**
 * fastjson 1.2.x's JSON dialect: the one writer, escaper and parser of every JSON that crosses the
 * wire, remoting headers ({@code RemotingCommand} in {@link io.basalt.remoting.protocol}) and command
 * bodies (topic config, route data, offsets, stats in broker-server) alike.
 *
 * <p>RocketMQ clients and tools write both through {@code RemotingSerializable}, i.e.
 * {@code JSON.toJSONString(obj, false)} of fastjson 1.2.83 with its default features, and read both with
 * {@code JSON.parseObject}, so Basalt writes byte for byte what that writes and reads whatever it reads
 * (single quotes, unquoted and numeric or object map keys, {@code \x41} and {@code \v} escapes).
 *
 * <p>Why here: the dialect is part of the RocketMQ wire protocol, which is this module's job, and
 * broker-remoting is the lowest module that needs it; broker-server (the bodies) already depends on it.
 * broker-common stays free of protocol code, and broker-store, which depends on broker-common only,
 * does not get a JSON codec it has no use for. Pure Java; jackson-core only formats doubles (see
 * {@link io.basalt.remoting.json.FastjsonWriter}).
 */
package io.basalt.remoting.json;

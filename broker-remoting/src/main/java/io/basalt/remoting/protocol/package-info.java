/**
 * The RocketMQ remoting protocol in plain Java (no Netty types): {@link io.basalt.remoting.protocol.RemotingCommand}
 * and its two header serializations, request and response codes, and the typed headers of send and
 * pull with hand-written {@code extFields} mappings.
 */
package io.basalt.remoting.protocol;

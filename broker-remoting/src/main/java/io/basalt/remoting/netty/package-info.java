/**
 * The protocol on Netty: frame decoder and encoder, {@link io.basalt.remoting.netty.NettyRemotingServer}
 * and {@link io.basalt.remoting.netty.NettyRemotingClient}.
 */
package io.basalt.remoting.netty;

/** The RocketMQ wire protocol on Netty: command codec, server, client and request dispatch. */
package io.basalt.remoting;

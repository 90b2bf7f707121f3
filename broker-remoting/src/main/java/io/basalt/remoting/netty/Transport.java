package io.basalt.remoting.netty;

import io.basalt.common.concurrent.DaemonThreads;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ThreadFactory;

/** The socket transport: native epoll where the platform has it and it is wanted, NIO otherwise. */
enum Transport {
    EPOLL, NIO;

    static Transport choose(boolean epollWanted) {
        return epollWanted && Epoll.isAvailable() ? EPOLL : NIO;
    }

    EventLoopGroup newGroup(int threads, String threadNameFormat) {
        IoHandlerFactory handlers = this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, namedThreads(threadNameFormat, threads), handlers);
    }

    Class<? extends ServerChannel> serverChannelClass() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    Class<? extends SocketChannel> channelClass() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** Threads named as RocketMQ names them, e.g. {@code NettyServerEPOLLSelector_3_1}; the format gets (total, index). */
    static ThreadFactory namedThreads(String format, int total) {
        return DaemonThreads.factory(index -> String.format(format, total, index), FastThreadLocalThread::new);
    }
}

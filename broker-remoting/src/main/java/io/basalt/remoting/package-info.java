/**
 * The RocketMQ wire protocol on Netty: command codec, server, client and request dispatch.
 *
 * <p>A broker wires it up like this (processors and executors are the broker's; start them first,
 * shut the server down before them):
 * <pre>{@code
 * RequestExecutor sendExecutor = RequestExecutor.create("SendMessageThread_", 4, 10_000, 200);
 * NettyRemotingServer server = new NettyRemotingServer(NettyServerConfig.defaults(10911));
 * server.registerProcessor(RequestCode.SEND_MESSAGE_V2, (ctx, request) -> {
 *     SendMessageRequestHeader header = SendMessageRequestHeader.parse(request);
 *     return store.append(header, request.body())            // a CompletableFuture
 *         .thenApply(result -> RemotingCommand.response(ResponseCode.SUCCESS, null, toHeader(result)));
 * }, sendExecutor);
 * server.start();
 * ...
 * server.shutdown();                 // stop accepting, drain, close
 * sendExecutor.shutdown(5_000);
 * }</pre>
 */
package io.basalt.remoting;

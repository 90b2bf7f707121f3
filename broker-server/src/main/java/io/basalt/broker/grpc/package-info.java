/**
 * The RocketMQ 5.x SDKs' gRPC protocol ({@code apache.rocketmq.v2.MessagingService}) served by the broker process
 * itself: the endpoint ({@link io.basalt.broker.grpc.GrpcServer}, TLS and plaintext on one port), the client
 * metadata, routes and assignments naming this broker, the Telemetry settings handshake, sends and transactions run
 * through the broker's own send and end-transaction processors, and the transaction back-check delivered on the
 * producer's Telemetry stream, and consumption over POP (ReceiveMessage, AckMessage, ChangeInvisibleDuration,
 * ForwardMessageToDeadLetterQueue, auto-renew of push consumers' receipts); FIFO groups receive by order POP.
 * With ACL on, every request message is checked by the broker's access control before its handler runs ({@link io.basalt.broker.grpc.MetadataInterceptor}).
 */
package io.basalt.broker.grpc;

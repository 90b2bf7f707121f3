/**
 * Transactional messages (RocketMQ's {@code broker/transaction}): half messages parked in
 * {@code RMQ_SYS_TRANS_HALF_TOPIC}, END_TRANSACTION's commit (the message put into its real topic) and rollback,
 * the done ("op") markers in {@code RMQ_SYS_TRANS_OP_HALF_TOPIC} ({@link io.basalt.broker.transaction.OpMarkerBody}),
 * the back-check of undecided half messages (CHECK_TRANSACTION_STATE to a producer of the group), giving up into
 * {@code TRANS_CHECK_MAX_TIME_TOPIC} and resuming from it. Scan progress is kept as group {@code CID_RMQ_SYS_TRANS}
 * offsets in {@code consumerOffset.json}, so a store moves between RocketMQ and Basalt with its pending
 * transactions. Names and formats: {@link io.basalt.broker.transaction.TransactionalMessages}.
 */
package io.basalt.broker.transaction;

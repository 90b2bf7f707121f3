package io.basalt.broker.transaction;

import java.util.Map;

import io.basalt.broker.schedule.DelayLevelTransform;
import io.basalt.store.BrokerMessage;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform;

/**
 * The first put step: a transactional half message (sysFlag transaction bits PREPARED and {@code TRAN_MSG=true})
 * is parked in {@code RMQ_SYS_TRANS_HALF_TOPIC} queue 0 as RocketMQ's {@code parseHalfMessageInner} writes it:
 * {@code __transactionId__} = UNIQ_KEY, {@code REAL_TOPIC} / {@code REAL_QID} = where a commit puts it, the
 * transaction bits reset to 0 (so the half record is dispatched into the half topic's queue, where the check
 * scan reads it).
 *
 * <p>The stored properties string is RocketMQ's byte for byte: RocketMQ recomputes it from the message's property
 * map, a {@code HashMap(128)} filled in the order of the sent string (then UNIQ_KEY when the client sent none, then
 * CLUSTER — the order the send path appended them to the string this step receives), then given the three
 * properties above. The same map built the same way iterates the same way.
 *
 * <p>Not a half message, as in RocketMQ: a message with {@code reconsumeTimes > 0} and {@code DELAY > 0} (a retry
 * an old consumer sent back, still carrying {@code TRAN_MSG}). RocketMQ stores it with its PREPARED bits, so it is
 * never delivered; here its transaction bits are cleared so it is the delayed retry its consumer meant.
 * A PREPARED message without {@code TRAN_MSG=true} would be stored where nobody delivers or checks it: refused.
 * Internal re-puts (commits, check copies, op markers) never carry PREPARED bits and pass unchanged.
 *
 * <p>Stateless; called on any sender's thread.
 */
public final class HalfMessageTransform implements PutMessageTransform {

    @Override
    public Decision apply(BrokerMessage message) {
        if (TransactionalMessages.transactionType(message.sysFlag()) != TransactionalMessages.TRANSACTION_PREPARED_TYPE) {
            return Decision.append(message);
        }
        Map<String, String> map = DelayLevelTransform.rocketMqPropertyMap(message.propertiesString());
        if (!Boolean.parseBoolean(map.get(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED))) {
            return Decision.refuse(PutMessageStatus.MESSAGE_ILLEGAL, "the message has the transaction PREPARED sysFlag"
                + " (0x4) but not the property " + TransactionalMessages.PROPERTY_TRANSACTION_PREPARED + "=true: it would"
                + " be stored where it is never delivered nor checked; send it with TransactionMQProducer, or without"
                + " the PREPARED flag");
        }
        if (message.reconsumeTimes() > 0 && DelayLevels.levelOf(map.get(MessageProperties.DELAY_TIME_LEVEL)) > 0) {
            return Decision.append(message.toBuilder().sysFlag(TransactionalMessages.withTransactionType(message.sysFlag(),
                TransactionalMessages.TRANSACTION_NOT_TYPE)).build());
        }
        String uniqKey = map.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        if (uniqKey != null && !uniqKey.isEmpty()) {
            map.put(TransactionalMessages.PROPERTY_TRANSACTION_ID, uniqKey);
        }
        map.put(TransactionalMessages.PROPERTY_REAL_TOPIC, message.topic());
        map.put(TransactionalMessages.PROPERTY_REAL_QUEUE_ID, Integer.toString(message.queueId()));
        return Decision.append(message.toBuilder()
            .topic(TransactionalMessages.HALF_TOPIC)
            .queueId(TransactionalMessages.HALF_QUEUE_ID)
            .sysFlag(TransactionalMessages.withTransactionType(message.sysFlag(), TransactionalMessages.TRANSACTION_NOT_TYPE))
            .propertiesString(MessageProperties.toPropertiesString(map))
            .build());
    }
}

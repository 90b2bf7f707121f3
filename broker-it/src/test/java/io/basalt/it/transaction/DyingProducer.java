package io.basalt.it.transaction;

import java.nio.charset.StandardCharsets;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A producer JVM for {@link CheckedProducerTest}: sends one half message whose local transaction stays unknown
 * (and answers every check UNKNOW), prints {@code HALF-SENT <msgId>} and waits to be killed.
 * Arguments: name server address, producer group, topic, key.
 */
public final class DyingProducer {
    static final String SENT = "HALF-SENT ";

    private DyingProducer() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("rocketmq.client.logUseSlf4j", "true");
        TransactionMQProducer producer = new TransactionMQProducer(args[1]);
        producer.setNamesrvAddr(args[0]);
        producer.setInstanceName("dying-" + ProcessHandle.current().pid());
        producer.setSendMsgTimeout(10_000);
        producer.setHeartbeatBrokerInterval(1000);
        producer.setTransactionListener(new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
                return LocalTransactionState.UNKNOW;
            }

            @Override
            public LocalTransactionState checkLocalTransaction(MessageExt msg) {
                return LocalTransactionState.UNKNOW;
            }
        });
        producer.start();
        TransactionSendResult r = producer.sendMessageInTransaction(
            new Message(args[2], "TagTx", args[3], args[3].getBytes(StandardCharsets.UTF_8)), null);
        System.out.println(SENT + r.getMsgId() + " " + r.getSendStatus());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}

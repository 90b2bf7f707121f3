package io.basalt.tools.bench.transaction;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;

/** The official {@code TransactionMQProducer} as both cases start it, the same against either broker. */
final class TxProducers {
    private TxProducers() {
    }

    /**
     * A started producer of {@code group}. Its check executor has {@code checkThreads} threads and an unbounded
     * queue: the client's default (one thread, 2,000 queued, the rest dropped) would lose checks of a burst in the
     * client and measure the client, not the broker.
     */
    static TransactionMQProducer start(String namesrv, String group, TransactionListener listener, int checkThreads)
        throws Exception {
        TransactionMQProducer producer = new TransactionMQProducer(group);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("txbench-" + ProcessHandle.current().pid() + "-" + group);
        producer.setSendMsgTimeout(10_000);
        producer.setTransactionListener(listener);
        producer.setExecutorService(new ThreadPoolExecutor(checkThreads, checkThreads, 60, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "txbench-check");
                t.setDaemon(true);
                return t;
            }));
        producer.start();
        return producer;
    }
}

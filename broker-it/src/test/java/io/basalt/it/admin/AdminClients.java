package io.basalt.it.admin;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/** Official 5.2.0 admin, producer and consumer clients for the admin tests, with short intervals. */
final class AdminClients {
    private static final AtomicInteger INSTANCE = new AtomicInteger();

    static {
        System.setProperty("rocketmq.client.logUseSlf4j", "true");
    }

    private AdminClients() {
    }

    static String instanceName() {
        return "admin-it-" + ProcessHandle.current().pid() + "-" + INSTANCE.incrementAndGet();
    }

    static DefaultMQAdminExt admin(String namesrvAddr) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrvAddr);
        admin.setInstanceName(instanceName());
        admin.start();
        return admin;
    }

    static DefaultMQProducer producer(String namesrvAddr, String group) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(namesrvAddr);
        producer.setInstanceName(instanceName());
        producer.setSendMsgTimeout(10_000);
        producer.setPollNameServerInterval(1000);
        producer.start();
        return producer;
    }

    static DefaultLitePullConsumer litePull(String namesrvAddr, String group, String topic) throws Exception {
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(group);
        consumer.setNamesrvAddr(namesrvAddr);
        consumer.setInstanceName(instanceName());
        consumer.setPollNameServerInterval(1000);
        consumer.setAutoCommitIntervalMillis(1000);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        return consumer;
    }
}

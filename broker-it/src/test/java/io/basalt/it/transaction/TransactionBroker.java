package io.basalt.it.transaction;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.MqAdmin;
import io.basalt.it.TopicReader;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.hook.SendMessageContext;
import org.apache.rocketmq.client.hook.SendMessageHook;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * A Basalt broker process for the transaction tests, with back-checks that come quickly
 * ({@code transactionCheckInterval} and {@code transactionTimeOut} 1 s unless the test says otherwise), and the
 * official 5.2.0 clients around it: transactional producers answering from one {@link ScriptedListener}, push
 * consumers, an admin client, mqadmin, a reader of whole topics and the metrics endpoint.
 *
 * <p>Absence is proven, not waited for: {@link #awaitCheckScanPassed()} sends an undecided "witness" half message
 * after everything else and waits for its first back-check, so the check scan has walked past every earlier half
 * message (a decision not made durable, or a check of a message already decided, would have shown by then); then
 * {@link #fence} puts a message in every queue of a topic and waits for a consumer to get them all, so whatever
 * was stored in the topic before has been delivered.
 *
 * <p>The broker process lives as long as the fixture; every client (the fixture's own admin, plain producer and
 * witness producer, made on first use, and those a test asks for) is closed by {@link #closeClients()}, which
 * tests call after each test: clients grow their thread pools and open connections lazily, and the leak check
 * after each test would count a client kept across tests.
 */
final class TransactionBroker implements AutoCloseable {
    static final String HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    static final String OP_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
    static final String CHECK_MAX_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";
    static final String WITNESS_TOPIC = "TxWitness";
    static final int QUEUES = 4;

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    final ScriptedListener script = new ScriptedListener();
    private final BrokerProcess process;
    private final Map<String, SendResult> halfSends = new ConcurrentHashMap<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private boolean witnessTopicCreated;
    private DefaultMQAdminExt admin;
    private DefaultMQProducer plain;
    private TransactionMQProducer witness;

    private TransactionBroker(BrokerProcess process) {
        this.process = process;
    }

    /** Starts a broker in {@code dir}; {@code conf} adds or overrides broker.conf keys. */
    static TransactionBroker start(Path dir, Map<String, String> conf) throws Exception {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("transactionCheckInterval", "1000");
        all.put("transactionTimeOut", "1000");
        all.putAll(conf);
        TransactionBroker broker = new TransactionBroker(BrokerProcess.create(dir, all));
        try {
            broker.process.start();
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    /** Closes every client opened so far, newest first. */
    void closeClients() {
        for (int i = clients.size() - 1; i >= 0; i--) {
            try {
                clients.get(i).close();
            } catch (Exception ignored) {
                // closing the rest matters more
            }
        }
        clients.clear();
        admin = null;
        plain = null;
        witness = null;
    }

    BrokerProcess process() {
        return process;
    }

    String address() {
        return process.address();
    }

    DefaultMQAdminExt admin() throws Exception {
        if (admin == null) {
            DefaultMQAdminExt a = new DefaultMQAdminExt(10_000);
            a.setNamesrvAddr(address());
            a.setInstanceName(Clients.instanceName());
            a.start();
            clients.add(a::shutdown);
            admin = a;
        }
        return admin;
    }

    /** A plain (non-transactional) producer of the fixture. */
    DefaultMQProducer plainProducer() throws Exception {
        if (plain == null) {
            DefaultMQProducer p = Clients.producer(process, "pg-tx-fence");
            clients.add(p::shutdown);
            plain = p;
        }
        return plain;
    }

    /** The remoting of the fixture's plain producer, for hand-made requests. */
    MQClientAPIImpl clientApi() throws Exception {
        return plainProducer().getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
    }

    /** Sends a hand-made request to the broker and returns its answer. */
    RemotingCommand invoke(RemotingCommand request) throws Exception {
        return clientApi().getRemotingClient().invokeSync(address(), request, 10_000);
    }

    /** Creates {@code topic} with {@link #QUEUES} queues (retried while a fresh broker is slow to answer). */
    void createTopic(String topic) throws Exception {
        DefaultMQAdminExt admin = admin();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            admin.createAndUpdateTopicConfig(address(), new TopicConfig(topic, QUEUES, QUEUES, 6));
            return true;
        });
    }

    /**
     * A started TransactionMQProducer of {@code group} answering from {@link #script}, signing its checks
     * {@code name}; it heartbeats every second, and its half sends' results are kept ({@link #halfSend}).
     */
    TransactionMQProducer producer(String group, String name) throws Exception {
        TransactionMQProducer p = new TransactionMQProducer(group);
        p.setNamesrvAddr(address());
        p.setInstanceName(Clients.instanceName());
        p.setSendMsgTimeout(10_000);
        p.setPollNameServerInterval(1000);
        p.setHeartbeatBrokerInterval(1000);
        p.setTransactionListener(script.forProducer(name));
        p.start();
        p.getDefaultMQProducerImpl().registerSendMessageHook(new SendMessageHook() {
            @Override
            public String hookName() {
                return "half-send-results";
            }

            @Override
            public void sendMessageBefore(SendMessageContext context) {
            }

            @Override
            public void sendMessageAfter(SendMessageContext context) {
                if (context.getSendResult() != null && context.getMessage().getKeys() != null) {
                    halfSends.put(context.getMessage().getKeys(), context.getSendResult());
                }
            }
        });
        clients.add(p::shutdown);
        return p;
    }

    /** The broker's answer to the half send of {@code key} as the client got it (offsetMsgId included). */
    SendResult halfSend(String key) {
        return halfSends.get(key);
    }

    /** A started push consumer of {@code group} on {@code topic} from its first offset, recording into {@code into}. */
    DefaultMQPushConsumer consumer(String group, String topic, Received into) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setPersistConsumerOffsetInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            into.add(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        clients.add(c::shutdown);
        return c;
    }

    /** A message of {@code topic} with {@code key} as its key and body. */
    static Message message(String topic, String key) {
        return new Message(topic, "TagTx", key, key.getBytes(StandardCharsets.UTF_8));
    }

    /** A key no other test of this JVM uses. */
    static String key(String prefix) {
        return prefix + "-" + SEQUENCE.incrementAndGet();
    }

    /**
     * Sends an undecided witness half message (after everything the test sent) and waits for its first back-check:
     * the check scan has then walked past every earlier half message.
     */
    void awaitCheckScanPassed() throws Exception {
        if (witness == null) {
            if (!witnessTopicCreated) {
                createTopic(WITNESS_TOPIC);
                witnessTopicCreated = true;
            }
            witness = producer("pg-tx-witness", "witness");
        }
        String key = key("witness");
        script.local(key, LocalTransactionState.UNKNOW);
        script.checks(key, LocalTransactionState.ROLLBACK_MESSAGE);
        witness.sendMessageInTransaction(message(WITNESS_TOPIC, key), null);
        await().atMost(Duration.ofSeconds(60)).until(() -> script.checkCount(key) > 0);
    }

    /**
     * Sends a plain message to every queue of {@code topic} and waits until {@code received} has them all: what the
     * topic held before has been delivered to that consumer.
     */
    void fence(String topic, Received received) throws Exception {
        List<String> fences = new ArrayList<>();
        for (int q = 0; q < QUEUES; q++) {
            String key = key("fence");
            SendResult r = plainProducer().send(message(topic, key), new MessageQueue(topic, process.brokerName(), q));
            if (r.getSendStatus() != SendStatus.SEND_OK) {
                throw new IllegalStateException("fence not stored: " + r);
            }
            fences.add(key);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> received.hasAll(fences));
    }

    /** Every record stored in {@code topic}'s queues so far, read from offset 0 by queue offset. */
    List<MessageExt> stored(String topic, int queues) throws Exception {
        try (TopicReader reader = new TopicReader(address(), topic, process.brokerName(), queues)) {
            return reader.readNew();
        }
    }

    /** The records of {@code topic} whose key is {@code key}. */
    List<MessageExt> stored(String topic, String key) throws Exception {
        return stored(topic, QUEUES).stream().filter(m -> key.equals(m.getKeys())).toList();
    }

    /** The Prometheus text of the broker (plain HTTP/1.0: java.net.http's client leaves a thread behind). */
    String metrics() throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", process.metricsPort()), 2_000);
            s.setSoTimeout(5_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int body = response.indexOf("\r\n\r\n");
            return body < 0 ? "" : response.substring(body + 4);
        }
    }

    /**
     * The sum of the samples of metric {@code name} whose labels contain every one of {@code labels} (e.g.
     * {@code topic="TxTopic"}); -1 when the broker exports no such metric at all.
     */
    double metric(String name, String... labels) throws IOException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$").matcher(metrics());
        double sum = 0;
        boolean any = false;
        while (m.find()) {
            any = true;
            String found = m.group(1) == null ? "" : m.group(1);
            if (List.of(labels).stream().allMatch(found::contains)) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return any ? sum : -1;
    }

    /** Runs one official mqadmin subcommand in this JVM and returns what it printed. */
    static String mqadmin(String... args) {
        return MqAdmin.run(args);
    }

    /** The broker's response code in a client exception's causes (-1 if the broker gave none). */
    static int brokerCode(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof MQBrokerException b) {
                return b.getResponseCode();
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof MQClientException e && e.getResponseCode() > 0) {
                return e.getResponseCode();
            }
        }
        return -1;
    }

    /** The broker's remark in a client exception's causes ("" if none). */
    static String brokerRemark(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof MQBrokerException b) {
                return String.valueOf(b.getErrorMessage());
            }
        }
        return "";
    }

    /** The properties of a record, for failure messages. */
    static Map<String, String> props(MessageExt m) {
        return new HashMap<>(m.getProperties());
    }

    @Override
    public void close() throws Exception {
        closeClients();
        process.close();
    }
}

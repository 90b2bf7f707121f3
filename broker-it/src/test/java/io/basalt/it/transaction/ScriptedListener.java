package io.basalt.it.transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The answers of the producers' local transactions, set per message key before the send, shared by every
 * producer of a test (each gets its own {@link #forProducer listener}, which signs the checks it answers). The
 * local transaction commits unless told otherwise; a back-check answers UNKNOW unless told otherwise, and with a
 * list of answers gives them in turn (the last one again after that). Records every local transaction run and
 * every check: which producer, for which key, with which TRANSACTION_CHECK_TIMES.
 */
final class ScriptedListener {
    /**
     * One call of checkLocalTransaction: {@code msgId} is what the client decoded from the check's body (the
     * offsetMsgId of the broker's check copy), {@code uniqKey} the message's UNIQ_KEY, {@code bornMs} its born
     * timestamp, {@code atMs} when the check arrived.
     */
    record Check(String producer, String key, String checkTimes, String transactionId, String msgId, String uniqKey,
                 long bornMs, long atMs) {
    }

    private final Map<String, LocalTransactionState> localAnswers = new ConcurrentHashMap<>();
    private final Map<String, List<LocalTransactionState>> checkAnswers = new ConcurrentHashMap<>();
    private final List<String> localRuns = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();
    private final java.util.Set<String> muted = ConcurrentHashMap.newKeySet();

    /** The local transaction of {@code key} ends with {@code state}. */
    void local(String key, LocalTransactionState state) {
        localAnswers.put(key, state);
    }

    /** The back-checks of {@code key} answer these, in turn; the last one from then on. */
    void checks(String key, LocalTransactionState... answers) {
        checkAnswers.put(key, List.of(answers));
    }

    /** {@code producer} answers every check UNKNOW from now on (it is about to die and must not decide). */
    void mute(String producer) {
        muted.add(producer);
    }

    synchronized List<Check> checksOf(String key) {
        return checks.stream().filter(c -> key.equals(c.key())).toList();
    }

    synchronized int checkCount(String key) {
        return checksOf(key).size();
    }

    synchronized List<Check> allChecks() {
        return List.copyOf(checks);
    }

    synchronized boolean ranLocally(String key) {
        return localRuns.contains(key);
    }

    /** A listener for one producer, named {@code producer} in the checks it records. */
    TransactionListener forProducer(String producer) {
        return new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
                synchronized (ScriptedListener.this) {
                    localRuns.add(msg.getKeys());
                }
                return localAnswers.getOrDefault(msg.getKeys(), LocalTransactionState.COMMIT_MESSAGE);
            }

            @Override
            public LocalTransactionState checkLocalTransaction(MessageExt msg) {
                String key = msg.getKeys();
                int asked;
                synchronized (ScriptedListener.this) {
                    asked = checkCount(key);
                    checks.add(new Check(producer, key, msg.getProperty("TRANSACTION_CHECK_TIMES"),
                        msg.getTransactionId(), msg.getMsgId(),
                        msg.getProperty("UNIQ_KEY"), msg.getBornTimestamp(), System.currentTimeMillis()));
                }
                if (muted.contains(producer)) {
                    return LocalTransactionState.UNKNOW;
                }
                List<LocalTransactionState> answers = checkAnswers.getOrDefault(key, List.of(LocalTransactionState.UNKNOW));
                return answers.get(Math.min(asked, answers.size() - 1));
            }
        };
    }
}

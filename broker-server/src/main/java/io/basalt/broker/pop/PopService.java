package io.basalt.broker.pop;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.BrokerPermission;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.GetMessageResult;
import io.basalt.store.GetMessageStatus;
import io.basalt.store.MessageFilter;
import io.basalt.store.MessageStore;
import io.basalt.store.SelectedBuffer;

/**
 * POP consumption, protocol-independent: the remoting processors and a gRPC layer call it.
 *
 * <ul>
 *   <li>{@link #pop}: RocketMQ 5.2.0's checks and read plan; per queue a non-blocking lock, the start offset (the
 *       committed offset, else the init mode), the read, the checkpoint (CK) stored in the revive topic <em>before</em>
 *       the answer, then the group's offset committed past the messages. Nothing found: the request parks until a
 *       message of the topic or of its POP retry topics (v1 and v2) arrives or its poll time (broker clock) ends.</li>
 *   <li>{@link #ack}, {@link #batchAck}: an ACK record stored in the revive queue of the message's CK.</li>
 *   <li>{@link #changeInvisibleTime}: a new CK at the message's own offset, then an ACK of the old one; the new
 *       receipt names the new CK.</li>
 * </ul>
 * Every record is stored before the request is answered (RocketMQ's {@code enablePopBufferMerge=false}).
 *
 * <p>Order POP ({@code order=true}) keeps no checkpoint and no retry topic: the queue's last batch lives in the
 * {@link OrderInfoTable}, receipts name revive queue {@value PopHandle#ORDER_REVIVE_QID}, a queue with an un-acked
 * invisible batch is skipped, a retried attempt gets its batch again, and the group's offset moves only on ACK.
 * Thread-safe.
 */
public final class PopService {
    static final String ORDER_BATCH_ACK_REFUSED = "BATCH_ACK_MESSAGE of order POP messages is not supported by this"
        + " broker: ack them one by one with ACK_MESSAGE";
    private static final String TIMER_REFUSED = "pop message is forbidden because timerWheelEnable is false";
    static final String NOT_MASTER = "POP is served by the master only: this broker does not accept writes (a slave, or"
        + " a master fenced by a newer one), so it cannot store checkpoints or acks; use the master";

    /**
     * @param maxPollMs upper bound on a pop's wait whatever the client asks (below the clients' socket timeouts)
     */
    public record Settings(String brokerName, String reviveTopic, int reviveQueueNum, long maxPollMs) {
    }

    private final MessageStore store;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager groups;
    private final ConsumerOffsetManager offsets;
    private final ConsumerFilters filters;
    private final BooleanSupplier timerEnabled;
    private final BooleanSupplier writable;
    private final LongSupplier clock;
    private final PopCounters counters;
    private final Settings settings;
    private final ReviveRecordWriter writer;
    private final PopCommitWindow commitWindow;
    private final PopLongPolling polling;
    private final ConcurrentMap<String, ReentrantLock> queueLocks = new ConcurrentHashMap<>();
    private final AtomicLong reviveCounter = new AtomicLong();
    private final OrderInfoTable orders;
    /** topic@group@queueId → the time a wake-up is scheduled for, when that order queue's block ends. */
    private final ConcurrentMap<String, Long> unblockWakes = new ConcurrentHashMap<>();

    public PopService(MessageStore store, TopicConfigManager topics, SubscriptionGroupManager groups,
                      ConsumerOffsetManager offsets, ConsumerFilters filters, java.net.InetSocketAddress storeHost,
                      BooleanSupplier timerEnabled, BooleanSupplier writable, LongSupplier clock, PopCounters counters,
                      PopLongPolling polling, Settings settings) {
        this(store, topics, groups, offsets, filters, storeHost, timerEnabled, writable, clock, counters, polling,
            settings, OrderInfoTable.inMemory());
    }

    /** @param orders the order-POP state (the broker's is persisted in {@code config/consumerOrderInfo.json}) */
    public PopService(MessageStore store, TopicConfigManager topics, SubscriptionGroupManager groups,
                      ConsumerOffsetManager offsets, ConsumerFilters filters, java.net.InetSocketAddress storeHost,
                      BooleanSupplier timerEnabled, BooleanSupplier writable, LongSupplier clock, PopCounters counters,
                      PopLongPolling polling, Settings settings, OrderInfoTable orders) {
        this.orders = orders;
        this.writable = writable;
        this.store = store;
        this.topics = topics;
        this.groups = groups;
        this.offsets = offsets;
        this.filters = filters;
        this.timerEnabled = timerEnabled;
        this.clock = clock;
        this.counters = counters;
        this.settings = settings;
        this.polling = polling;
        this.writer = new ReviveRecordWriter(store, settings.reviveTopic(), storeHost);
        this.commitWindow = new PopCommitWindow(store, settings.reviveTopic(), settings.reviveQueueNum());
    }

    /** Where the CKs begin whose offset commit a copy of the offsets taken now may miss. */
    CheckPointScanStart checkPointScanStart() {
        return commitWindow.scanStart();
    }

    // ---- pop -----------------------------------------------------------------------------------------------------

    /**
     * Records a consumer group that registers by other means than a remoting heartbeat (a 5.x SDK consumer's
     * Telemetry settings) as that heartbeat records it: the subscription group (auto-created if allowed) and its
     * {@code %RETRY%} topic, by whose route the admin tools find the group's brokers.
     *
     * @throws IOException persisting the group or the topic failed (both are served from memory)
     */
    public void recordConsumerGroup(String group) throws IOException {
        Optional<SubscriptionGroupConfig> config = groups.findOrAutoCreate(group);
        if (config.isPresent()) {
            topics.createIfAbsent(io.basalt.broker.topic.TopicValidator.retryTopic(group), config.get().retryQueueNums(),
                io.basalt.broker.topic.Perm.READ | io.basalt.broker.topic.Perm.WRITE);
        }
    }

    /** Pops up to {@code maxMsgNums} messages, waiting at most the request's poll time for one. */
    public CompletableFuture<PopResult> pop(PopRequest request) {
        CompletableFuture<PopResult> answer = new CompletableFuture<>();
        PopResult refused = check(request);
        if (refused != null) {
            answer.complete(refused);
            return answer;
        }
        ConsumerFilters.Selection selection = filters.forPull(request.group(), SubscriptionData.of(request.topic(),
            expression(request), 0, request.expressionType() == null ? "TAG" : request.expressionType()), true, 0);
        if (selection.isRefused()) {
            answer.complete(PopResult.refused(selection.code(), selection.remark()));
            return answer;
        }
        MessageFilter filter = selection.filter();
        long deadline = clock.getAsLong() + Math.min(Math.max(0, request.pollTime()), settings.maxPollMs());
        attempt(request, filter, deadline, answer, true);
        return answer;
    }

    private static String expression(PopRequest request) {
        return request.expression() == null || request.expression().isBlank() ? SubscriptionData.SUB_ALL
            : request.expression();
    }

    /**
     * @param recheck whether to look once more after parking: true for the first attempt and after an arrival; false
     *                after such a look, so a queue that shows messages a pop cannot take (locked by another pop,
     *                unreadable) does not make the request spin until its deadline
     */
    private void attempt(PopRequest request, MessageFilter filter, long deadline, CompletableFuture<PopResult> answer,
                         boolean recheck) {
        if (answer.isDone()) {
            return; // the requester completed (cancelled) the answer itself: nothing to pop for
        }
        PopResult result;
        try {
            result = popOnce(request, filter);
        } catch (RuntimeException e) {
            answer.complete(PopResult.refused(ResponseCode.SYSTEM_ERROR, "pop failed: " + e));
            return;
        }
        if (result.found() || result.outcome().code() != ResponseCode.SUCCESS) {
            answer.complete(result);
            return;
        }
        long wait = deadline - clock.getAsLong();
        if (wait <= 0) {
            answer.complete(result.nothing());
            return;
        }
        PopLongPolling.Waiter waiter = new PopLongPolling.Waiter(
            PopLongPolling.key(request.topic(), request.group(), request.queueId()), wakingTopics(request),
            () -> attempt(request, filter, deadline, answer, true), () -> answer.complete(result.nothing()));
        if (!polling.park(waiter, wait)) {
            answer.complete(PopResult.refused(ResponseCode.POLLING_FULL, "the broker's POP polling table is full"));
            return;
        }
        // a requester that cancels the answer frees its parking place at once
        answer.whenComplete((r, e) -> polling.cancel(waiter));
        // a message stored between the read and the parking would not wake it
        if (recheck && anythingToPop(request)) {
            polling.wake(waiter, () -> attempt(request, filter, deadline, answer, false));
        }
    }

    private List<String> wakingTopics(PopRequest request) {
        return List.of(request.topic(), PopRetryTopics.v1(request.group(), request.topic()),
            PopRetryTopics.v2(request.group(), request.topic()));
    }

    /** Tells parked pops and notifications of a dispatched message of {@code topic}. */
    public void onArrival(String topic) {
        polling.arrived(topic);
    }

    /** RocketMQ's POP_MESSAGE checks, in its order (without the client-clock check: the broker's clock decides). */
    private PopResult check(PopRequest r) {
        BrokerPermission permission = topics.brokerPermission();
        if (!permission.readable()) {
            return PopResult.refused(ResponseCode.NO_PERMISSION, permission.forbidden("popping"));
        }
        if (r.maxMsgNums() > PopRequest.MAX_MSG_NUMS) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "the broker[" + settings.brokerName()
                + "] pop message's num is greater than " + PopRequest.MAX_MSG_NUMS);
        }
        if (r.maxMsgNums() <= 0) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "maxMsgNums must be positive: " + r.maxMsgNums());
        }
        if (!timerEnabled.getAsBoolean()) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "the broker[" + settings.brokerName() + "] "
                + TIMER_REFUSED);
        }
        if (!writable.getAsBoolean()) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, NOT_MASTER);
        }
        if (r.invisibleTime() <= 0) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "invisibleTime must be positive: " + r.invisibleTime());
        }
        TopicConfig config = topics.get(r.topic());
        if (config == null) {
            return PopResult.refused(ResponseCode.TOPIC_NOT_EXIST, "topic[" + r.topic() + "] not exist, apply first please!");
        }
        if (!config.isReadable()) {
            return PopResult.refused(ResponseCode.NO_PERMISSION, "the topic[" + r.topic() + "] peeking message is forbidden");
        }
        if (r.queueId() >= config.readQueueNums()) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "queueId[" + r.queueId() + "] is illegal, topic:["
                + r.topic() + "] topicConfig.readQueueNums:[" + config.readQueueNums() + "] consumer:[" + r.group() + "]");
        }
        Optional<SubscriptionGroupConfig> group;
        try {
            group = groups.findOrAutoCreate(r.group());
        } catch (IOException e) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "recording subscription group [" + r.group()
                + "] failed: " + e.getMessage());
        }
        if (group.isEmpty()) {
            return PopResult.refused(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group [" + r.group()
                + "] does not exist, apply first please!");
        }
        if (!group.get().consumeEnable()) {
            return PopResult.refused(ResponseCode.NO_PERMISSION, "subscription group no permission, " + r.group());
        }
        return null;
    }

    /** One pass over the retry topic and the topic's queues, without waiting. */
    private PopResult popOnce(PopRequest r, MessageFilter filter) {
        if (r.order()) {
            return popOrderOnce(r, filter);
        }
        long popTime = clock.getAsLong();
        int reviveQid = (int) Math.floorMod(reviveCounter.getAndIncrement(), (long) settings.reviveQueueNum());
        Batch batch = new Batch(r, popTime, reviveQid);
        int random = ThreadLocalRandom.current().nextInt(100);
        boolean retryFirst = random % 5 == 0;
        if (retryFirst) {
            readRetryTopics(batch);
        }
        TopicConfig config = topics.get(r.topic());
        if (config != null) {
            if (r.queueId() >= 0) {
                readQueue(batch, r.topic(), r.queueId(), PopHandle.NORMAL, filter);
            } else {
                int n = config.readQueueNums();
                for (int i = 0; i < n && batch.failure == null; i++) {
                    readQueue(batch, r.topic(), (random + i) % n, PopHandle.NORMAL, filter);
                }
            }
        }
        if (!retryFirst) {
            readRetryTopics(batch);
        }
        return batch.result();
    }

    private void readRetryTopics(Batch batch) {
        String group = batch.request.group();
        String topic = batch.request.topic();
        readRetryTopic(batch, PopRetryTopics.v1(group, topic), PopHandle.RETRY_V1);
        readRetryTopic(batch, PopRetryTopics.v2(group, topic), PopHandle.RETRY_V2);
    }

    private void readRetryTopic(Batch batch, String retryTopic, int retryFlag) {
        TopicConfig config = topics.get(retryTopic);
        if (config == null) {
            return;
        }
        for (int q = 0; q < config.readQueueNums() && batch.failure == null; q++) {
            readQueue(batch, retryTopic, q, retryFlag, null);
        }
    }

    private void readQueue(Batch batch, String readTopic, int queueId, int retryFlag, MessageFilter filter) {
        if (batch.full() || batch.failure != null) {
            return;
        }
        String group = batch.request.group();
        ReentrantLock lock = queueLocks.computeIfAbsent(readTopic + "@" + group + "@" + queueId, k -> new ReentrantLock());
        if (!lock.tryLock()) {
            // another pop reads this queue now: skipped, its backlog still counted
            batch.restNum += Math.max(0, store.getMaxOffsetInQueue(readTopic, queueId)
                - Math.max(0, offsets.queryOffset(group, readTopic, queueId)));
            return;
        }
        try {
            Long reset = offsets.resets().take(readTopic, group, queueId);
            if (reset != null) {
                offsets.commitOffset(null, group, readTopic, queueId, reset);
            }
            long offset = startOffset(group, readTopic, queueId, batch.request.initMode());
            GetMessageResult result = store.getMessage(group, readTopic, queueId, offset, batch.remaining(), filter);
            if (result.status() == GetMessageStatus.OFFSET_TOO_SMALL
                || result.status() == GetMessageStatus.OFFSET_OVERFLOW_BADLY
                || result.status() == GetMessageStatus.OFFSET_FOUND_NULL) {
                result.close();
                offset = result.nextBeginOffset();
                offsets.commitOffset(null, group, readTopic, queueId, offset);
                result = store.getMessage(group, readTopic, queueId, offset, batch.remaining(), filter);
            }
            try {
                if (result.status() == GetMessageStatus.FOUND && !result.messages().isEmpty()) {
                    List<StoredRecord> records = new ArrayList<>(result.messages().size());
                    for (SelectedBuffer b : result.messages()) {
                        records.add(new StoredRecord(b.buffer()));
                    }
                    List<Integer> diffs = new ArrayList<>(records.size());
                    for (StoredRecord rec : records) {
                        diffs.add((int) (rec.queueOffset() - offset));
                    }
                    CheckPoint ck = new CheckPoint(offset, batch.popTime, batch.request.invisibleTime(), records.size(),
                        queueId, readTopic, group, -1, diffs, settings.brokerName());
                    PopCommitWindow.Ticket ticket = commitWindow.begin(batch.reviveQid);
                    try {
                        String failure = writer.writeCheckPoint(ck, batch.reviveQid);
                        if (failure != null) {
                            batch.failure = failure;
                            return;
                        }
                        offsets.commitOffset(null, group, readTopic, queueId, result.nextBeginOffset());
                    } finally {
                        commitWindow.end(ticket);
                    }
                    batch.add(readTopic, queueId, retryFlag, offset, records);
                } else if (result.nextBeginOffset() > offset
                    && result.status() != GetMessageStatus.NO_MESSAGE_IN_QUEUE
                    && result.status() != GetMessageStatus.NO_MATCHED_LOGIC_QUEUE) {
                    // filtered out or a hole: the offset moves on without a CK
                    offsets.commitOffset(null, group, readTopic, queueId, result.nextBeginOffset());
                }
                batch.restNum += Math.max(0, result.maxOffset() - Math.max(offset, result.nextBeginOffset()));
            } finally {
                result.close();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The committed offset; without one RocketMQ's init rule, committed at once: MIN, the queue's min offset; MAX, 0
     * when the queue still starts at 0 and its first message is in memory, else the last message.
     */
    private long startOffset(String group, String topic, int queueId, int initMode) {
        long committed = offsets.queryOffset(group, topic, queueId);
        if (committed >= 0) {
            return committed;
        }
        long init;
        long min = store.getMinOffsetInQueue(topic, queueId);
        if (initMode == PopRequest.INIT_MODE_MIN) {
            init = min;
        } else if (min <= 0 && store.isInMemory(topic, queueId, 0)) {
            init = 0;
        } else {
            init = Math.max(store.getMaxOffsetInQueue(topic, queueId) - 1, 0);
        }
        offsets.commitOffset(null, group, topic, queueId, init);
        return init;
    }

    /** Whether any queue the request reads has a message past the group's offset (NOTIFICATION's question). */
    private boolean anythingToPop(PopRequest r) {
        if (r.order()) {
            return anythingToPopInOrder(r);
        }
        List<String> retryTopics = List.of(PopRetryTopics.v1(r.group(), r.topic()), PopRetryTopics.v2(r.group(), r.topic()));
        for (String retryTopic : retryTopics) {
            TopicConfig retry = topics.get(retryTopic);
            if (retry != null) {
                for (int q = 0; q < retry.readQueueNums(); q++) {
                    if (hasNew(r.group(), retryTopic, q)) {
                        return true;
                    }
                }
            }
        }
        TopicConfig config = topics.get(r.topic());
        if (config == null) {
            return false;
        }
        if (r.queueId() >= 0) {
            return hasNew(r.group(), r.topic(), r.queueId());
        }
        for (int q = 0; q < config.readQueueNums(); q++) {
            if (hasNew(r.group(), r.topic(), q)) {
                return true;
            }
        }
        return false;
    }

    /** Order POP reads no retry topic, and a blocked queue has nothing to give. */
    private boolean anythingToPopInOrder(PopRequest r) {
        TopicConfig config = topics.get(r.topic());
        if (config == null) {
            return false;
        }
        long now = clock.getAsLong();
        for (int q = 0; q < config.readQueueNums(); q++) {
            if ((r.queueId() < 0 || r.queueId() == q) && hasNew(r.group(), r.topic(), q)
                && !(orders.blocked(r.topic(), r.group(), q, r.attemptId(), now) instanceof OrderInfoTable.Blocked)) {
                return true;
            }
        }
        return false;
    }

    private boolean hasNew(String group, String topic, int queueId) {
        long max = store.getMaxOffsetInQueue(topic, queueId);
        long committed = offsets.queryOffset(group, topic, queueId);
        return committed < 0 ? max > 0 : max > committed;
    }

    /** What one pop collected so far. */
    private final class Batch {
        final PopRequest request;
        final long popTime;
        final int reviveQid;
        final List<byte[]> messages = new ArrayList<>();
        final List<PopHandle> handles = new ArrayList<>();
        final StringBuilder startOffsetInfo = new StringBuilder();
        final StringBuilder msgOffsetInfo = new StringBuilder();
        final StringBuilder orderCountInfo = new StringBuilder();
        final long invisibleTime;
        long restNum;
        String failure;

        Batch(PopRequest request, long popTime, int reviveQid) {
            this(request, popTime, request.invisibleTime(), reviveQid);
        }

        Batch(PopRequest request, long popTime, long invisibleTime, int reviveQid) {
            this.request = request;
            this.popTime = popTime;
            this.invisibleTime = invisibleTime;
            this.reviveQid = reviveQid;
        }

        /** Order POP: each message's earlier deliveries, then the queue's smallest (the 5.2.0 client's fallback). */
        void addOrderCounts(int queueId, Map<Long, Integer> counts) {
            int min = Integer.MAX_VALUE;
            for (Map.Entry<Long, Integer> e : counts.entrySet()) {
                if (orderCountInfo.length() > 0) {
                    orderCountInfo.append(';');
                }
                orderCountInfo.append(PopHandle.NORMAL).append(" qo").append(queueId).append('%').append(e.getKey())
                    .append(' ').append(e.getValue());
                min = Math.min(min, e.getValue());
            }
            if (!counts.isEmpty()) {
                orderCountInfo.append(';').append(PopHandle.NORMAL).append(' ').append(queueId).append(' ').append(min);
            }
        }

        boolean full() {
            return messages.size() >= request.maxMsgNums();
        }

        int remaining() {
            return request.maxMsgNums() - messages.size();
        }

        void add(String readTopic, int queueId, int retryFlag, long startOffset, List<StoredRecord> records) {
            if (startOffsetInfo.length() > 0) {
                startOffsetInfo.append(';');
                msgOffsetInfo.append(';');
            }
            startOffsetInfo.append(retryFlag).append(' ').append(queueId).append(' ').append(startOffset);
            msgOffsetInfo.append(retryFlag).append(' ').append(queueId).append(' ');
            for (int i = 0; i < records.size(); i++) {
                StoredRecord rec = records.get(i);
                PopHandle handle = new PopHandle(startOffset, popTime, invisibleTime, reviveQid, retryFlag,
                    settings.brokerName(), queueId, rec.queueOffset(), rec.physicalOffset());
                if (i > 0) {
                    msgOffsetInfo.append(',');
                }
                msgOffsetInfo.append(rec.queueOffset());
                handles.add(handle);
                messages.add(retryFlag == PopHandle.NORMAL ? rec.bytes()
                    // RocketMQ's default (popResponseReturnActualRetryTopic=false): the client sees the original topic
                    // and the receipt the record itself cannot give
                    : rec.withTopicAndProperties(request.topic(), Map.of(PopConstants.POP_CK, handle.extraInfo())));
            }
            counters.countPopped(records.size());
        }

        PopResult result() {
            if (failure != null && messages.isEmpty()) {
                return PopResult.refused(ResponseCode.SYSTEM_ERROR, failure);
            }
            return new PopResult(PopOutcome.OK, popTime, invisibleTime, reviveQid, restNum,
                List.copyOf(messages), List.copyOf(handles), startOffsetInfo.toString(), msgOffsetInfo.toString(),
                orderCountInfo.toString());
        }
    }

    // ---- order pop -----------------------------------------------------------------------------------------------

    /** One pass over the topic's queues for an order POP: a retried attempt first, else every free queue. */
    private PopResult popOrderOnce(PopRequest r, MessageFilter filter) {
        TopicConfig config = topics.get(r.topic());
        if (config == null) {
            return new Batch(r, clock.getAsLong(), PopHandle.ORDER_REVIVE_QID).result();
        }
        List<Integer> queues = new ArrayList<>();
        if (r.queueId() >= 0) {
            queues.add(r.queueId());
        } else {
            int n = config.readQueueNums();
            int start = ThreadLocalRandom.current().nextInt(Math.max(1, n));
            for (int i = 0; i < n; i++) {
                queues.add((start + i) % n);
            }
        }
        PopResult replay = replayOrder(r, queues);
        if (replay != null) {
            return replay;
        }
        Batch batch = new Batch(r, clock.getAsLong(), PopHandle.ORDER_REVIVE_QID);
        for (int queueId : queues) {
            readOrderQueue(batch, queueId, filter);
        }
        return batch.result();
    }

    /**
     * A POP carrying the attempt id of batches still un-acked and invisible (the client lost the answer and
     * retries): the same messages with the same popTime, so the receipts it may already hold stay valid. Null when
     * no queue has such a batch. Queues popped by that attempt share its popTime; only those are answered together.
     */
    private PopResult replayOrder(PopRequest r, List<Integer> queues) {
        if (r.attemptId() == null || r.attemptId().isEmpty()) {
            return null;
        }
        Batch batch = null;
        for (int queueId : queues) {
            ReentrantLock lock = queueLock(r.topic(), r.group(), queueId);
            lock.lock();
            try {
                if (!(orders.blocked(r.topic(), r.group(), queueId, r.attemptId(), clock.getAsLong())
                    instanceof OrderInfoTable.Replay replay)) {
                    continue;
                }
                if (batch == null) {
                    batch = new Batch(r, replay.popTime(), replay.invisibleTime(), PopHandle.ORDER_REVIVE_QID);
                } else if (batch.popTime != replay.popTime()) {
                    continue;
                }
                List<StoredRecord> records = readOffsets(r.group(), r.topic(), queueId, replay.offsets());
                if (!records.isEmpty()) {
                    batch.add(r.topic(), queueId, PopHandle.NORMAL, records.get(0).queueOffset(), records);
                    batch.addOrderCounts(queueId, replay.consumedCounts());
                }
            } finally {
                lock.unlock();
            }
        }
        return batch == null || batch.messages.isEmpty() ? null : batch.result();
    }

    /** The records at exactly these offsets of the queue (ascending), those the store still holds. */
    private List<StoredRecord> readOffsets(String group, String topic, int queueId, List<Long> wanted) {
        List<StoredRecord> found = new ArrayList<>();
        long from = wanted.get(0);
        long last = wanted.get(wanted.size() - 1);
        while (from <= last) {
            GetMessageResult result = store.getMessage(group, topic, queueId, from, PopRequest.MAX_MSG_NUMS, null);
            try {
                if (result.status() == GetMessageStatus.FOUND) {
                    for (SelectedBuffer b : result.messages()) {
                        StoredRecord rec = new StoredRecord(b.buffer());
                        if (wanted.contains(rec.queueOffset())) {
                            found.add(rec);
                        }
                    }
                }
                if (result.nextBeginOffset() <= from) {
                    break;
                }
                from = result.nextBeginOffset();
            } finally {
                result.close();
            }
        }
        return found;
    }

    private void readOrderQueue(Batch batch, int queueId, MessageFilter filter) {
        if (batch.full() || batch.failure != null) {
            return;
        }
        String group = batch.request.group();
        String topic = batch.request.topic();
        ReentrantLock lock = queueLock(topic, group, queueId);
        if (!lock.tryLock()) {
            batch.restNum += backlog(group, topic, queueId);
            return;
        }
        try {
            Long reset = offsets.resets().take(topic, group, queueId);
            if (reset != null) {
                orders.clearQueue(topic, group, queueId);
                offsets.commitOffset(null, group, topic, queueId, reset);
            }
            OrderInfoTable.QueueState state = orders.blocked(topic, group, queueId, batch.request.attemptId(),
                clock.getAsLong());
            if (state instanceof OrderInfoTable.Blocked blocked) {
                wakeWhenUnblocked(topic, group, queueId, blocked.visibleAt());
                batch.restNum += backlog(group, topic, queueId);
                return;
            }
            if (state instanceof OrderInfoTable.Replay) {
                // a batch of this attempt from another pop (another popTime): it stays with its own receipts
                batch.restNum += backlog(group, topic, queueId);
                return;
            }
            long offset = startOffset(group, topic, queueId, batch.request.initMode());
            GetMessageResult result = store.getMessage(group, topic, queueId, offset, batch.remaining(), filter);
            if (result.status() == GetMessageStatus.OFFSET_TOO_SMALL
                || result.status() == GetMessageStatus.OFFSET_OVERFLOW_BADLY
                || result.status() == GetMessageStatus.OFFSET_FOUND_NULL) {
                result.close();
                offset = result.nextBeginOffset();
                offsets.commitOffset(null, group, topic, queueId, offset);
                result = store.getMessage(group, topic, queueId, offset, batch.remaining(), filter);
            }
            try {
                if (result.status() == GetMessageStatus.FOUND && !result.messages().isEmpty()) {
                    List<StoredRecord> records = new ArrayList<>(result.messages().size());
                    List<Long> popped = new ArrayList<>(records.size());
                    for (SelectedBuffer b : result.messages()) {
                        StoredRecord rec = new StoredRecord(b.buffer());
                        records.add(rec);
                        popped.add(rec.queueOffset());
                    }
                    // the offset stays where it is: an ACK commits it (OrderInfoTable.ack)
                    Map<Long, Integer> counts = orders.recordBatch(topic, group, queueId, batch.request.attemptId(),
                        batch.popTime, batch.invisibleTime, popped, clock.getAsLong());
                    batch.add(topic, queueId, PopHandle.NORMAL, offset, records);
                    batch.addOrderCounts(queueId, counts);
                } else if (result.nextBeginOffset() > offset
                    && result.status() != GetMessageStatus.NO_MESSAGE_IN_QUEUE
                    && result.status() != GetMessageStatus.NO_MATCHED_LOGIC_QUEUE) {
                    // filtered out or a hole, and no batch outstanding (the queue is free): the offset moves on
                    offsets.commitOffset(null, group, topic, queueId, result.nextBeginOffset());
                }
                batch.restNum += Math.max(0, result.maxOffset() - Math.max(offset, result.nextBeginOffset()));
            } finally {
                result.close();
            }
        } finally {
            lock.unlock();
        }
    }

    private long backlog(String group, String topic, int queueId) {
        return Math.max(0, store.getMaxOffsetInQueue(topic, queueId)
            - Math.max(0, offsets.queryOffset(group, topic, queueId)));
    }

    private ReentrantLock queueLock(String topic, String group, int queueId) {
        return queueLocks.computeIfAbsent(topic + "@" + group + "@" + queueId, k -> new ReentrantLock());
    }

    /** Pops parked on the topic are re-run when the order queue's block ends (one wake-up per end time). */
    private void wakeWhenUnblocked(String topic, String group, int queueId, long visibleAt) {
        String key = topic + "@" + group + "@" + queueId;
        Long previous = unblockWakes.put(key, visibleAt);
        if (previous != null && previous == visibleAt) {
            return;
        }
        polling.arriveLater(topic, visibleAt - clock.getAsLong(), () -> unblockWakes.remove(key, visibleAt));
    }

    /**
     * ACK of an order message: ignored when the group's offset is already past it or when it belongs to an earlier
     * batch (RocketMQ's rules); otherwise the offset advances to the batch's first un-acked message, and pops parked
     * on the topic are re-run once the queue is free.
     */
    private PopOutcome orderAck(String group, String topic, int queueId, long offset, PopHandle handle) {
        ReentrantLock lock = queueLock(topic, group, queueId);
        lock.lock();
        OrderInfoTable.AckOutcome outcome;
        try {
            if (offset < offsets.queryOffset(group, topic, queueId)) {
                return PopOutcome.OK;
            }
            outcome = orders.ack(topic, group, queueId, offset, handle.popTime(), clock.getAsLong());
            if (outcome instanceof OrderInfoTable.Commit commit) {
                offsets.commitOffset(null, group, topic, queueId, commit.nextOffset());
                counters.countAcked(1);
            }
        } finally {
            lock.unlock();
        }
        if (outcome instanceof OrderInfoTable.NotInBatch notInBatch) {
            return new PopOutcome(ResponseCode.MESSAGE_ILLEGAL, notInBatch.reason());
        }
        if (orders.blocked(topic, group, queueId, null, clock.getAsLong()) instanceof OrderInfoTable.Free) {
            polling.arrived(topic);
        }
        return PopOutcome.OK;
    }

    /**
     * CHANGE_MESSAGE_INVISIBLETIME of an order message: it becomes visible {@code invisibleTime} from now; the answer
     * keeps the batch's popTime, so the receipt still matches the batch, with the invisible time counted from it.
     */
    private ChangeInvisibleResult orderChangeInvisible(String group, String topic, int queueId, long offset,
                                                       PopHandle handle, long invisibleTime) {
        ReentrantLock lock = queueLock(topic, group, queueId);
        lock.lock();
        OrderInfoTable.ChangeOutcome outcome;
        try {
            if (offset < offsets.queryOffset(group, topic, queueId)) {
                // acked already: nothing of it is invisible any more, the receipt stays as it is (RocketMQ's answer)
                return new ChangeInvisibleResult(PopOutcome.OK, handle);
            }
            outcome = orders.changeInvisible(topic, group, queueId, offset, handle.popTime(), invisibleTime,
                clock.getAsLong());
        } finally {
            lock.unlock();
        }
        if (outcome instanceof OrderInfoTable.Changed changed) {
            wakeWhenUnblocked(topic, group, queueId, changed.popTime() + changed.invisibleTime());
            return new ChangeInvisibleResult(PopOutcome.OK, new PopHandle(handle.ckQueueOffset(), changed.popTime(),
                changed.invisibleTime(), PopHandle.ORDER_REVIVE_QID, PopHandle.NORMAL, handle.brokerName(), queueId,
                offset, handle.commitLogOffset()));
        }
        String reason = outcome instanceof OrderInfoTable.Stale stale ? stale.reason()
            : ((OrderInfoTable.NotInBatch) outcome).reason();
        return new ChangeInvisibleResult(new PopOutcome(ResponseCode.MESSAGE_ILLEGAL,
            "cannot change the invisible time of order message " + topic + "@" + queueId + ":" + offset + ": "
                + reason), null);
    }

    /** Writes the order-POP state ({@code config/consumerOrderInfo.json}) after dropping idle queues. */
    public void persistOrderInfo() throws IOException {
        orders.persist(clock.getAsLong());
    }

    // ---- peek ----------------------------------------------------------------------------------------------------

    /**
     * PEEK_MESSAGE: up to {@code maxMsgNums} messages from the group's POP offset (the committed offset, else the
     * queue's min offset), the retry topics included, without checkpoint, invisibility or offset change. SUCCESS
     * with messages, PULL_NOT_FOUND without; refusals as for a pop.
     */
    public PopResult peek(String group, String topic, int queueId, int maxMsgNums) {
        BrokerPermission permission = topics.brokerPermission();
        if (!permission.readable()) {
            return PopResult.refused(ResponseCode.NO_PERMISSION, permission.forbidden("peeking"));
        }
        if (maxMsgNums <= 0 || maxMsgNums > PopRequest.MAX_MSG_NUMS) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "maxMsgNums must be 1 to "
                + PopRequest.MAX_MSG_NUMS + ": " + maxMsgNums);
        }
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return PopResult.refused(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist, apply first please!");
        }
        if (!config.isReadable()) {
            return PopResult.refused(ResponseCode.NO_PERMISSION, "the topic[" + topic + "] peeking message is forbidden");
        }
        if (queueId >= config.readQueueNums()) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "queueId[" + queueId + "] is illegal, topic:["
                + topic + "] topicConfig.readQueueNums:[" + config.readQueueNums() + "] consumer:[" + group + "]");
        }
        Optional<SubscriptionGroupConfig> groupConfig;
        try {
            groupConfig = groups.findOrAutoCreate(group);
        } catch (IOException e) {
            return PopResult.refused(ResponseCode.SYSTEM_ERROR, "recording subscription group [" + group
                + "] failed: " + e.getMessage());
        }
        if (groupConfig.isEmpty()) {
            return PopResult.refused(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group [" + group
                + "] does not exist, apply first please!");
        }
        if (!groupConfig.get().consumeEnable()) {
            return PopResult.refused(ResponseCode.NO_PERMISSION, "subscription group no permission, " + group);
        }
        List<byte[]> messages = new ArrayList<>();
        long restNum = 0;
        List<Map.Entry<String, Integer>> reads = new ArrayList<>();
        for (String retryTopic : List.of(PopRetryTopics.v1(group, topic), PopRetryTopics.v2(group, topic))) {
            TopicConfig retry = topics.get(retryTopic);
            for (int q = 0; retry != null && q < retry.readQueueNums(); q++) {
                reads.add(Map.entry(retryTopic, q));
            }
        }
        for (int q = 0; q < config.readQueueNums(); q++) {
            if (queueId < 0 || queueId == q) {
                reads.add(Map.entry(topic, q));
            }
        }
        for (Map.Entry<String, Integer> read : reads) {
            String readTopic = read.getKey();
            int q = read.getValue();
            long offset = offsets.queryOffset(group, readTopic, q);
            if (offset < 0) {
                offset = store.getMinOffsetInQueue(readTopic, q);
            }
            restNum += Math.max(0, store.getMaxOffsetInQueue(readTopic, q) - offset);
            if (messages.size() >= maxMsgNums) {
                continue;
            }
            GetMessageResult result = store.getMessage(group, readTopic, q, offset, maxMsgNums - messages.size(), null);
            if (result.status() == GetMessageStatus.OFFSET_TOO_SMALL
                || result.status() == GetMessageStatus.OFFSET_OVERFLOW_BADLY) {
                result.close();
                result = store.getMessage(group, readTopic, q, result.nextBeginOffset(), maxMsgNums - messages.size(),
                    null);
            }
            try {
                if (result.status() == GetMessageStatus.FOUND) {
                    for (SelectedBuffer b : result.messages()) {
                        StoredRecord rec = new StoredRecord(b.buffer());
                        // a retried message shows its original topic, as a pop gives it
                        messages.add(readTopic.equals(topic) ? rec.bytes()
                            : rec.withTopicAndProperties(topic, Map.of()));
                    }
                }
            } finally {
                result.close();
            }
        }
        if (messages.isEmpty()) {
            return new PopResult(new PopOutcome(ResponseCode.PULL_NOT_FOUND, "NO_MESSAGE_IN_QUEUE"), clock.getAsLong(),
                0, 0, restNum, List.of(), List.of(), "", "");
        }
        return new PopResult(new PopOutcome(ResponseCode.SUCCESS, "FOUND"), clock.getAsLong(), 0, 0, restNum,
            List.copyOf(messages), List.of(), "", "");
    }

    // ---- ack and change invisible time ---------------------------------------------------------------------------

    /**
     * ACK_MESSAGE: {@code topic} is the topic the message was read from (its retry topic for a retried one).
     * SUCCESS once the ACK record is stored (a late, duplicate or unknown ACK is stored too, as RocketMQ does).
     */
    public PopOutcome ack(String group, String topic, int queueId, long offset, String extraInfo) {
        PopHandle handle;
        try {
            handle = PopHandle.decode(extraInfo);
        } catch (IllegalArgumentException e) {
            return new PopOutcome(ResponseCode.MESSAGE_ILLEGAL, e.getMessage());
        }
        PopOutcome refused = checkMessage(topic, queueId, offset, handle);
        if (refused != null) {
            return refused;
        }
        if (handle.isOrder()) {
            return orderAck(group, topic, queueId, offset, handle);
        }
        PopRecords.Ack ack = new PopRecords.Ack(offset, handle.ckQueueOffset(), group, topic, queueId,
            handle.popTime(), handle.brokerName());
        String failure = writer.writeAck(ack, handle.reviveQid(), handle.invisibleTime());
        if (failure != null) {
            return new PopOutcome(ResponseCode.SYSTEM_ERROR, failure);
        }
        counters.countAcked(1);
        return PopOutcome.OK;
    }

    /** One entry of BATCH_ACK_MESSAGE: {@code topic} is the normal topic; {@code acked} bit i ⇒ offset startOffset+i. */
    public record BatchAckEntry(String group, String topic, int retryFlag, long startOffset, int queueId,
                                int reviveQid, long popTime, long invisibleTime, BitSet acked) {
    }

    /**
     * BATCH_ACK_MESSAGE: one {@code bAck} record per entry. Entries for an unknown topic or queue, and offsets outside
     * the queue, are skipped as RocketMQ skips them; a record that cannot be stored fails the whole request.
     */
    public PopOutcome batchAck(List<BatchAckEntry> entries) {
        if (!writable.getAsBoolean()) {
            return new PopOutcome(ResponseCode.SYSTEM_ERROR, NOT_MASTER);
        }
        if (entries.isEmpty()) {
            return new PopOutcome(ResponseCode.NO_MESSAGE, "no ack in the request");
        }
        for (BatchAckEntry e : entries) {
            if (e.reviveQid() == PopHandle.ORDER_REVIVE_QID) {
                return new PopOutcome(ResponseCode.SYSTEM_ERROR, ORDER_BATCH_ACK_REFUSED);
            }
            String realTopic = new PopHandle(0, 0, 0, 0, e.retryFlag(), "", 0, 0, -1).realTopic(e.topic(), e.group());
            TopicConfig config = topics.get(realTopic);
            if (config == null || e.queueId() < 0 || e.queueId() >= config.readQueueNums()) {
                continue;
            }
            if (e.reviveQid() < 0 || e.reviveQid() >= settings.reviveQueueNum()) {
                return new PopOutcome(ResponseCode.MESSAGE_ILLEGAL, "revive queue " + e.reviveQid()
                    + " does not exist (reviveQueueNum is " + settings.reviveQueueNum() + ")");
            }
            long min = store.getMinOffsetInQueue(realTopic, e.queueId());
            long max = store.getMaxOffsetInQueue(realTopic, e.queueId());
            List<Long> acked = new ArrayList<>();
            for (int i = e.acked().nextSetBit(0); i >= 0; i = e.acked().nextSetBit(i + 1)) {
                long offset = e.startOffset() + i;
                if (offset >= min && offset <= max) {
                    acked.add(offset);
                }
            }
            if (acked.isEmpty()) {
                continue;
            }
            PopRecords.BatchAck record = new PopRecords.BatchAck(acked, e.startOffset(), e.group(), realTopic,
                e.queueId(), e.popTime());
            String failure = writer.writeBatchAck(record, e.reviveQid(), e.invisibleTime());
            if (failure != null) {
                return new PopOutcome(ResponseCode.SYSTEM_ERROR, failure);
            }
            counters.countAcked(acked.size());
        }
        return PopOutcome.OK;
    }

    /**
     * CHANGE_MESSAGE_INVISIBLETIME: a new CK covering only this message, due {@code invisibleTime} from now, then an
     * ACK of the old CK's entry. The new receipt's field 0 is the message's offset (the new CK's start).
     */
    public ChangeInvisibleResult changeInvisibleTime(String group, String topic, int queueId, long offset,
                                                     String extraInfo, long invisibleTime) {
        PopHandle handle;
        try {
            handle = PopHandle.decode(extraInfo);
        } catch (IllegalArgumentException e) {
            return new ChangeInvisibleResult(new PopOutcome(ResponseCode.MESSAGE_ILLEGAL, e.getMessage()), null);
        }
        PopOutcome refused = checkMessage(topic, queueId, offset, handle);
        if (refused != null) {
            return new ChangeInvisibleResult(refused, null);
        }
        if (invisibleTime <= 0) {
            return new ChangeInvisibleResult(new PopOutcome(ResponseCode.SYSTEM_ERROR,
                "invisibleTime must be positive: " + invisibleTime), null);
        }
        if (handle.isOrder()) {
            return orderChangeInvisible(group, topic, queueId, offset, handle, invisibleTime);
        }
        long now = clock.getAsLong();
        CheckPoint ck = new CheckPoint(offset, now, invisibleTime, 1, queueId, topic, group, -1, List.of(0),
            settings.brokerName());
        String failure = writer.writeCheckPoint(ck, handle.reviveQid());
        if (failure != null) {
            return new ChangeInvisibleResult(new PopOutcome(ResponseCode.SYSTEM_ERROR, failure), null);
        }
        PopRecords.Ack oldAck = new PopRecords.Ack(offset, handle.ckQueueOffset(), group, topic, queueId,
            handle.popTime(), handle.brokerName());
        String ackFailure = writer.writeAck(oldAck, handle.reviveQid(), handle.invisibleTime());
        if (ackFailure != null) {
            // the new CK is stored: the message is re-delivered by the old CK too (a duplicate, never a loss)
            return new ChangeInvisibleResult(new PopOutcome(ResponseCode.SYSTEM_ERROR, ackFailure), null);
        }
        PopHandle renewed = new PopHandle(offset, now, invisibleTime, handle.reviveQid(), handle.retryFlag(),
            handle.brokerName(), queueId, offset, handle.commitLogOffset());
        return new ChangeInvisibleResult(PopOutcome.OK, renewed);
    }

    /** ACK and CHANGE_MESSAGE_INVISIBLETIME's checks of the message named (RocketMQ's codes). */
    private PopOutcome checkMessage(String topic, int queueId, long offset, PopHandle handle) {
        if (!writable.getAsBoolean()) {
            return new PopOutcome(ResponseCode.SYSTEM_ERROR, NOT_MASTER);
        }
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return new PopOutcome(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist, apply first please!");
        }
        if (queueId < 0 || queueId >= config.readQueueNums()) {
            return new PopOutcome(ResponseCode.MESSAGE_ILLEGAL, "queueId[" + queueId + "] is illegal, topic:["
                + topic + "] topicConfig.readQueueNums:[" + config.readQueueNums() + "]");
        }
        long min = store.getMinOffsetInQueue(topic, queueId);
        long max = store.getMaxOffsetInQueue(topic, queueId);
        if (offset < min || offset > max) {
            return new PopOutcome(ResponseCode.NO_MESSAGE, "offset is illegal, key:" + topic + "@" + queueId
                + ", commit:" + offset + ", store:" + min + "," + max);
        }
        if (handle.isOrder()) {
            return null;
        }
        if (handle.reviveQid() < 0 || handle.reviveQid() >= settings.reviveQueueNum()) {
            return new PopOutcome(ResponseCode.MESSAGE_ILLEGAL, "revive queue " + handle.reviveQid()
                + " of the receipt does not exist (reviveQueueNum is " + settings.reviveQueueNum() + ")");
        }
        return null;
    }

    // ---- notification and polling info ---------------------------------------------------------------------------

    /**
     * NOTIFICATION: whether the group has something to pop from the topic, waiting up to {@code pollTime} (broker
     * clock) for an arrival. Refusals as for a pop; true/false otherwise.
     */
    public CompletableFuture<PopOutcome> notification(String group, String topic, int queueId, long pollTime,
                                                      boolean order, CompletableFuture<Boolean> hasMsg) {
        PopRequest request = new PopRequest(group, topic, queueId, 1, 1, pollTime, PopRequest.INIT_MODE_MAX, null,
            null, order);
        PopResult refused = check(request);
        if (refused != null) {
            hasMsg.complete(false);
            return CompletableFuture.completedFuture(refused.outcome());
        }
        long deadline = clock.getAsLong() + Math.min(Math.max(0, pollTime), settings.maxPollMs());
        notifyAttempt(request, deadline, hasMsg);
        return CompletableFuture.completedFuture(PopOutcome.OK);
    }

    private void notifyAttempt(PopRequest request, long deadline, CompletableFuture<Boolean> hasMsg) {
        if (anythingToPop(request)) {
            hasMsg.complete(true);
            return;
        }
        long wait = deadline - clock.getAsLong();
        if (wait <= 0) {
            hasMsg.complete(false);
            return;
        }
        PopLongPolling.Waiter waiter = new PopLongPolling.Waiter(
            PopLongPolling.key(request.topic(), request.group(), request.queueId()), wakingTopics(request),
            () -> notifyAttempt(request, deadline, hasMsg), () -> hasMsg.complete(false));
        if (!polling.park(waiter, wait)) {
            hasMsg.complete(false);
            return;
        }
        if (anythingToPop(request)) {
            polling.wake(waiter, () -> hasMsg.complete(true));
        }
    }

    /** POLLING_INFO's {@code pollingNum}: parked pops of topic@group@queueId. */
    public int pollingNum(String topic, String group, int queueId) {
        return polling.count(topic, group, queueId);
    }
}

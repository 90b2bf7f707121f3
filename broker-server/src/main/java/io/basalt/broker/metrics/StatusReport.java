package io.basalt.broker.metrics;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.basalt.broker.metrics.ConsumerLag.QueueLag;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.schedule.ScheduleMessageService;
import io.basalt.broker.transaction.TransactionCounters;
import io.basalt.ha.SlaveStatus;
import io.basalt.store.MessageStore;
import io.basalt.store.TimerMessages;

/**
 * The status page's JSON ({@code /status.json}): topics with queue offsets and put TPS, consumer groups
 * with lag, the online producers and consumers per group and protocol, the CommitLog and disk, the timer wheel, HA role and slaves, the delay levels, transactions, and the per-second series of the last minutes.
 * Built on request, any thread.
 */
final class StatusReport {
    private final BrokerMetrics metrics;
    private final TrafficSampler sampler;
    private final String brokerName;

    StatusReport(BrokerMetrics metrics, TrafficSampler sampler, String brokerName) {
        this.metrics = metrics;
        this.sampler = sampler;
        this.brokerName = brokerName;
    }

    String json() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        MessageStore store = metrics.sources().store();
        root.put("broker", brokerName);
        root.put("timeMs", System.currentTimeMillis());
        MessageStore log = store;
        ObjectNode commitLog = root.putObject("commitLog");
        commitLog.put("minOffset", log.getMinPhyOffset());
        commitLog.put("maxOffset", log.getMaxPhyOffset());
        commitLog.put("flushedOffset", log.flushedOffset());
        commitLog.put("committedOffset", log.committedOffset());
        ObjectNode disk = root.putObject("disk");
        disk.put("path", metrics.sources().storePath().toString());
        disk.put("usedRatio", metrics.diskUsedRatio());
        Map<String, Long> puts = metrics.messagesPutByTopic();
        ArrayNode topics = root.putArray("topics");
        metrics.sources().topics().all().stream().sorted(Comparator.comparing(TopicConfig::topicName)).forEach(t -> {
            ObjectNode topic = topics.addObject();
            topic.put("name", t.topicName());
            topic.put("putTps", sampler.topicPutTps(t.topicName()));
            topic.put("messagesPut", puts.getOrDefault(t.topicName(), 0L));
            ArrayNode queues = topic.putArray("queues");
            for (int q = 0; q < t.readQueueNums(); q++) {
                queues.addObject().put("queueId", q).put("minOffset", store.getMinOffsetInQueue(t.topicName(), q))
                    .put("maxOffset", store.getMaxOffsetInQueue(t.topicName(), q));
            }
        });
        Map<String, ObjectNode> groups = new LinkedHashMap<>();
        ArrayNode groupArray = root.putArray("groups");
        for (QueueLag l : metrics.consumerLag()) {
            ObjectNode g = groups.computeIfAbsent(l.group() + "\u0001" + l.topic(), k -> {
                ObjectNode n = groupArray.addObject().put("group", l.group()).put("topic", l.topic()).put("lag", 0L);
                n.putArray("queues");
                return n;
            });
            g.put("lag", g.get("lag").asLong() + l.lag());
            ((ArrayNode) g.get("queues")).addObject().put("queueId", l.queueId()).put("brokerOffset", l.brokerOffset())
                .put("consumerOffset", l.consumerOffset()).put("lag", l.lag());
        }
        ArrayNode clientRows = root.putArray("clients");
        for (ClientRows.Row r : metrics.clientRows()) {
            clientRows.addObject().put("kind", r.kind()).put("group", r.group()).put("protocol", r.protocol())
                .put("clients", r.clients());
        }
        timer(root.putObject("timer"), store.timerMessages());
        ArrayNode retries = root.putArray("retries");
        metrics.retryCounts().snapshot().forEach((group, c) -> retries.addObject().put("group", group)
            .put("retries", c.retries()).put("deadLettered", c.deadLettered()).put("dropped", c.dropped()));
        ObjectNode ha = root.putObject("ha");
        ha.put("role", metrics.sources().haRole().get());
        ArrayNode slaves = ha.putArray("slaves");
        HaMetrics view = metrics.ha();
        if (view == null) {
            for (SlaveStatus s : metrics.haSlaves()) {
                slaves.addObject().put("address", s.brokerAddr().isEmpty() ? s.address() : s.brokerAddr())
                    .put("brokerId", s.brokerId()).put("protocol", s.protocol()).put("ackOffset", s.ackOffset())
                    .put("lagBytes", s.lagBytes()).put("lagMs", s.lagMs());
            }
        } else {
            ha.put("epoch", view.epoch());
            ArrayNode epochs = ha.putArray("epochs");
            view.epochEntries().forEach(e -> epochs.addObject().put("epoch", e.epoch()).put("startOffset", e.startOffset()));
            ha.put("syncStateSetSize", view.syncStateSetSize());
            ha.put("elections", view.elections());
            ha.put("secondsWithoutMaster", view.secondsWithoutMaster());
            for (HaMetrics.SlaveView v : view.slaves()) {
                SlaveStatus s = v.status();
                slaves.addObject().put("address", s.brokerAddr().isEmpty() ? s.address() : s.brokerAddr())
                    .put("brokerId", s.brokerId()).put("protocol", s.protocol()).put("ackOffset", s.ackOffset())
                    .put("lagBytes", s.lagBytes()).put("lagMs", s.lagMs()).put("inSync", v.inSync())
                    .put("bytesPerSecond", v.transferredBytesPerSecond());
            }
        }
        ArrayNode delayLevels = root.putArray("delayLevels");
        for (ScheduleMessageService.LevelStatus l : metrics.delayLevels()) {
            delayLevels.addObject().put("level", l.level()).put("delayMs", l.delayMillis()).put("offset", l.offset())
                .put("maxOffset", l.maxOffset()).put("backlog", l.backlog()).put("oldestDueAgeMs", l.oldestDueAgeMillis())
                .put("delivered", l.delivered()).put("putFailures", l.putFailures()).put("skipped", l.skipped());
        }
        transactions(root.putObject("transactions"), metrics.transactions());
        ArrayNode series = root.putArray("series");
        List<TrafficSampler.Sample> history = sampler.history();
        for (TrafficSampler.Sample s : history) {
            series.addObject().put("t", s.timeMs()).put("putTps", s.putTps()).put("getTps", s.getTps())
                .put("putP99Ms", s.putP99Ms());
        }
        return root.toString();
    }

    /** Transactional messages per real topic, END_TRANSACTION refusals by reason, and ignored second decisions. */
    private static void transactions(ObjectNode node, TransactionCounters counters) {
        ArrayNode topics = node.putArray("topics");
        counters.byTopic().forEach((topic, c) -> topics.addObject().put("topic", topic).put("prepared", c.prepared())
            .put("committed", c.committed()).put("rolledBack", c.rolledBack()).put("checked", c.checked())
            .put("givenUp", c.givenUp()).put("oldestUndecidedAgeMs", c.oldestUndecidedAgeMs()));
        ObjectNode refused = node.putObject("endRefused");
        counters.endRefusals().forEach(refused::put);
        node.put("duplicateDecisions", counters.duplicateDecisions());
    }

    /** The timer wheel: whether it runs and delivers here, what it holds, how far behind it is, what it did. */
    private static void timer(ObjectNode timer, TimerMessages timers) {
        TimerMessages.Stats t = timers.stats();
        timer.put("enabled", timers.enabled());
        timer.put("delivering", timers.dequeueEnabled());
        timer.put("pending", t.pending());
        timer.put("enqueueLagMessages", t.enqueueLagMessages());
        timer.put("enqueueLagMs", t.enqueueLagMillis());
        timer.put("dequeueLagMs", t.dequeueLagMillis());
        timer.put("congestNum", t.congestNum());
        timer.put("enqueueTps", t.enqueueTps());
        timer.put("dequeueTps", t.dequeueTps());
        timer.put("enqueued", t.enqueued());
        timer.put("delivered", t.delivered());
        timer.put("cancelled", t.cancelled());
        timer.put("droppedEntries", t.droppedEntries());
    }
}

package io.basalt.broker.filter;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.basalt.broker.client.SubscriptionData;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's SQL92 subscriptions, RocketMQ's {@code ConsumerFilterManager}: per consumer group and topic
 * the expression registered by the group's last heartbeat (or carried by its pulls), compiled once, and what
 * a pull filters by or why it is refused. Identical expressions of different groups share one compiled
 * {@link SqlFilter}. {@code enablePropertyFilter} (RocketMQ's key, default false) decides whether SQL92
 * subscriptions are served at all; they are compiled either way, so a malformed one is reported as such.
 * Thread-safe: heartbeats, CHECK_CLIENT_CONFIG and pulls call it concurrently.
 */
public final class ConsumerFilters {
    private static final Logger log = LoggerFactory.getLogger(ConsumerFilters.class);

    /** RocketMQ's {@code ExpressionType.SQL92}. */
    public static final String SQL92 = "SQL92";
    /** Distinct compiled expressions kept for sharing; beyond it the table starts over (filters stay in use). */
    private static final int MAX_SHARED_EXPRESSIONS = 4096;

    private final boolean enablePropertyFilter;
    private final ConcurrentMap<GroupTopic, Registered> registered = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, SqlFilter> compiled = new ConcurrentHashMap<>();
    /** The last malformed expression of each group and topic, so that every heartbeat does not log it again. */
    private final ConcurrentMap<GroupTopic, String> malformed = new ConcurrentHashMap<>();

    private record GroupTopic(String group, String topic) {
    }

    /** A group's SQL92 subscription of a topic: its expression, the client's subscription version, the filter. */
    public record Registered(String expression, long subVersion, SqlFilter filter) {
    }

    /** What a pull filters by, or the response code and remark that refuse it (filter null). */
    public record Selection(MessageFilter filter, int code, String remark) {
        static Selection of(MessageFilter filter) {
            return new Selection(filter, ResponseCode.SUCCESS, null);
        }

        static Selection refused(int code, String remark) {
            return new Selection(null, code, remark);
        }

        public boolean isRefused() {
            return filter == null;
        }
    }

    public ConsumerFilters(boolean enablePropertyFilter) {
        this.enablePropertyFilter = enablePropertyFilter;
    }

    public boolean enablePropertyFilter() {
        return enablePropertyFilter;
    }

    /**
     * Compiles a non-TAG subscription (shared with other groups using the same text).
     *
     * @throws SqlFilterException when the type is not SQL92 or the expression is malformed
     */
    public SqlFilter compile(String expressionType, String expression) throws SqlFilterException {
        if (!SQL92.equals(expressionType)) {
            throw new SqlFilterException("unknown expression type " + expressionType + ": only TAG and SQL92 filter messages");
        }
        SqlFilter shared = compiled.get(expression);
        if (shared != null) {
            return shared;
        }
        SqlFilter filter = SqlFilter.compile(expression);
        if (compiled.size() >= MAX_SHARED_EXPRESSIONS) {
            compiled.clear();
        }
        SqlFilter raced = compiled.putIfAbsent(expression, filter);
        return raced == null ? filter : raced;
    }

    /**
     * A heartbeat's subscription of {@code group}: a SQL92 one is compiled and recorded unless the group
     * already has it at this or a newer version; a TAG one drops the group's SQL92 filter of the topic. A
     * malformed expression is logged and leaves no filter, so the group's pulls are answered
     * FILTER_DATA_NOT_EXIST (the client was already refused at CHECK_CLIENT_CONFIG).
     */
    public void register(String group, SubscriptionData subscription) {
        GroupTopic key = new GroupTopic(group, subscription.topic());
        if (subscription.isTagType()) {
            registered.remove(key);
            malformed.remove(key);
            return;
        }
        registered.compute(key, (k, old) -> {
            if (old != null && old.expression().equals(subscription.subString())) {
                return old.subVersion() >= subscription.subVersion() ? old
                    : new Registered(old.expression(), subscription.subVersion(), old.filter());
            }
            if (old != null && old.subVersion() > subscription.subVersion()) {
                return old;
            }
            try {
                Registered now = new Registered(subscription.subString(), subscription.subVersion(),
                    compile(subscription.expressionType(), subscription.subString()));
                malformed.remove(k);
                return now;
            } catch (SqlFilterException e) {
                if (!subscription.subString().equals(malformed.put(k, subscription.subString()))) {
                    log.warn("group {} subscribes to {} with a {} expression that does not compile, [{}]: {}", group,
                        subscription.topic(), subscription.expressionType(), subscription.subString(), e.getMessage());
                }
                return null;
            }
        });
    }

    /** The group's registered SQL92 subscription of the topic, null if none. */
    public Registered registered(String group, String topic) {
        return registered.get(new GroupTopic(group, topic));
    }

    /**
     * What a pull of {@code group} with {@code subscription} filters by, with RocketMQ's refusals in its
     * order: a subscription carried by the request (lite pull) that does not compile is
     * SUBSCRIPTION_PARSE_FAILED; for the heartbeat's subscription (push) a missing filter is
     * FILTER_DATA_NOT_EXIST and one older than the request's {@code subVersion} FILTER_DATA_NOT_LATEST;
     * then any non-TAG subscription with {@code enablePropertyFilter=false} is SYSTEM_ERROR.
     */
    public Selection forPull(String group, SubscriptionData subscription, boolean fromRequest, long requestSubVersion) {
        if (subscription.isTagType()) {
            return Selection.of(subscription::matchesTagsCode);
        }
        SqlFilter filter;
        if (fromRequest) {
            try {
                filter = fromRequest(group, subscription);
            } catch (SqlFilterException e) {
                log.debug("group {} pulls {} with a subscription that does not compile, [{}]: {}", group,
                    subscription.topic(), subscription.subString(), e.getMessage());
                return Selection.refused(ResponseCode.SUBSCRIPTION_PARSE_FAILED, "parse the consumer's subscription failed");
            }
        } else {
            Registered known = registered(group, subscription.topic());
            if (known == null) {
                return Selection.refused(ResponseCode.FILTER_DATA_NOT_EXIST,
                    "The broker's consumer filter data is not exist!Your expression may be wrong!");
            }
            if (known.subVersion() < requestSubVersion) {
                return Selection.refused(ResponseCode.FILTER_DATA_NOT_LATEST, "the consumer's consumer filter data not latest");
            }
            filter = known.filter();
        }
        if (!enablePropertyFilter) {
            return Selection.refused(ResponseCode.SYSTEM_ERROR, notSupported(subscription.expressionType()));
        }
        return Selection.of(filter);
    }

    /** A lite pull's own subscription: the recorded filter when the text is unchanged, else compiled and recorded. */
    private SqlFilter fromRequest(String group, SubscriptionData subscription) throws SqlFilterException {
        GroupTopic key = new GroupTopic(group, subscription.topic());
        Registered known = registered.get(key);
        if (known != null && known.expression().equals(subscription.subString())) {
            return known.filter();
        }
        SqlFilter filter = compile(subscription.expressionType(), subscription.subString());
        registered.put(key, new Registered(subscription.subString(), subscription.subVersion(), filter));
        return filter;
    }

    /** RocketMQ's remark when a broker without enablePropertyFilter meets a SQL92 subscription. */
    public static String notSupported(String expressionType) {
        return "The broker does not support consumer to filter message by " + Objects.toString(expressionType);
    }
}

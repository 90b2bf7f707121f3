package io.basalt.store;

import static io.basalt.store.StoreTestSupport.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.basalt.store.commitlog.MessageRecordDecoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The put path's extension point: transforms run before the append, in order, and may redirect or refuse. */
class PutMessageTransformTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String REAL_TOPIC = "REAL_TOPIC";
    private static final String REAL_QID = "REAL_QID";

    @TempDir
    Path root;
    private MessageStore store;

    @BeforeEach
    void open() throws IOException {
        store = MessageStore.open(StoreTestSupport.config(root, FlushDiskType.ASYNC_FLUSH),
            StoreTestSupport.environment(new StoreTestSupport.SettableClock(Instant.now()), new AtomicReference<>(0.1)));
        store.load();
        store.start();
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    /** Sends messages tagged "later" to a holding topic, keeping where they were going in properties, as delay levels do. */
    private static PutMessageTransform holdTaggedLater() {
        return m -> {
            if (!"later".equals(m.tags())) {
                return PutMessageTransform.Decision.append(m);
            }
            Map<String, String> props = MessageProperties.parse(m.propertiesString());
            props.put(REAL_TOPIC, m.topic());
            props.put(REAL_QID, Integer.toString(m.queueId()));
            return PutMessageTransform.Decision.append(m.toBuilder().topic("HOLD").queueId(0).properties(props).build());
        };
    }

    private List<StoredMessage> readAll(String topic, int queueId) {
        List<StoredMessage> found = new ArrayList<>();
        try (GetMessageResult r = store.getMessage("g", topic, queueId, 0, 32, null)) {
            r.messages().forEach(b -> found.add(MessageRecordDecoder.decode(b.buffer().duplicate())));
        }
        return found;
    }

    @Test
    void aTransformRedirectsAMessageBeforeItIsAppended() {
        store.addPutTransform(holdTaggedLater());

        PutMessageResult now = store.asyncPutMessage(message("T", 3, "now", null, "a")).join();
        PutMessageResult later = store.asyncPutMessage(message("T", 3, "later", "k1", "b")).join();

        assertEquals(PutMessageStatus.PUT_OK, now.status());
        assertEquals(PutMessageStatus.PUT_OK, later.status());
        assertEquals(0, later.appendResult().queueOffset(), "the redirected message takes the holding queue's offset");
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("HOLD", 0) == 1);
        assertEquals(1, store.getMaxOffsetInQueue("T", 3), "only the untransformed message is in its own queue");
        StoredMessage held = readAll("HOLD", 0).get(0);
        assertEquals("b", new String(held.body()));
        Map<String, String> props = held.propertyMap();
        assertEquals("T", props.get(REAL_TOPIC));
        assertEquals("3", props.get(REAL_QID));
        assertEquals("k1", props.get(MessageProperties.KEYS), "the producer's properties are kept");
    }

    @Test
    void transformsRunInTheOrderTheyWereAddedEachOnThePreviousOutput() {
        List<String> seen = new ArrayList<>();
        store.addPutTransform(m -> {
            seen.add("first:" + m.topic());
            return PutMessageTransform.Decision.append(m.toBuilder().topic("T2").build());
        });
        store.addPutTransform(m -> {
            seen.add("second:" + m.topic());
            return PutMessageTransform.Decision.append(m);
        });

        assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(message("T1", 0, null, null, "x")).join().status());

        assertEquals(List.of("first:T1", "second:T2"), seen);
        await().atMost(WAIT).until(() -> store.getMaxOffsetInQueue("T2", 0) == 1);
        assertEquals(0, store.getMaxOffsetInQueue("T1", 0));
    }

    @Test
    void aRefusalWritesNothingAndSaysWhy() {
        store.addPutTransform(m -> PutMessageTransform.Decision.refuse(PutMessageStatus.MESSAGE_ILLEGAL,
            "delay level 99 is out of range"));
        long before = store.getMaxPhyOffset();

        PutMessageResult single = store.asyncPutMessage(message("T", 0, null, null, "x")).join();
        PutMessageResult batch = store.asyncPutMessages(List.of(message("T", 0, null, null, "y"),
            message("T", 0, null, null, "z"))).join();

        for (PutMessageResult r : List.of(single, batch)) {
            assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, r.status());
            assertEquals("delay level 99 is out of range", r.reason());
            assertNull(r.appendResult());
        }
        assertEquals(before, store.getMaxPhyOffset(), "nothing was appended");
    }

    @Test
    void aBatchMessageCannotBeSentToAnotherQueue() {
        store.addPutTransform(holdTaggedLater());
        long before = store.getMaxPhyOffset();

        PutMessageResult r = store.asyncPutMessages(List.of(message("T", 0, "now", null, "a"),
            message("T", 0, "later", null, "b"))).join();

        assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, r.status());
        assertEquals(before, store.getMaxPhyOffset());
        PutMessageResult untouched = store.asyncPutMessages(List.of(message("T", 0, "now", null, "a"),
            message("T", 0, "now", null, "b"))).join();
        assertEquals(PutMessageStatus.PUT_OK, untouched.status(), "a batch no step changes goes through");
        assertEquals(2, untouched.appendResult().messageCount());
    }

    @Test
    void aDecisionIsEitherAMessageOrARefusal() {
        assertThrows(IllegalArgumentException.class,
            () -> new PutMessageTransform.Decision(null, null, null));
        assertThrows(IllegalArgumentException.class,
            () -> PutMessageTransform.Decision.refuse(PutMessageStatus.PUT_OK, "not a refusal"));
    }

    @Test
    void aCopyKeepsTheContentAndDerivesTheTagsCodeFromItsOwnTags() {
        BrokerMessage original = message("T", 5, "tagA", "k", "body");
        Map<String, String> props = MessageProperties.parse(original.propertiesString());
        props.put(MessageProperties.TAGS, "tagB");

        BrokerMessage copy = original.toBuilder().properties(props).build();
        BrokerMessage given = original.toBuilder().tagsCode(42).build().toBuilder().topic("U").build();

        assertEquals(original.topic(), copy.topic());
        assertEquals(original.queueId(), copy.queueId());
        assertEquals(original.bornTimestamp(), copy.bornTimestamp());
        assertEquals(original.bornHostPort(), copy.bornHostPort());
        assertEquals(MessageProperties.tagsCode("tagB"), copy.tagsCode());
        assertEquals(42, given.tagsCode(), "an explicitly given tags code is kept");
    }
}

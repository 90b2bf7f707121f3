package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CompletionException;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoreException;
import org.junit.jupiter.api.Test;

class SendMessageProcessorTest {
    @Test
    void everyStoreStatusMapsToRocketMqsResponseCode() {
        assertEquals(0, SendMessageProcessor.responseCode(PutMessageStatus.PUT_OK));
        assertEquals(10, SendMessageProcessor.responseCode(PutMessageStatus.FLUSH_DISK_TIMEOUT));
        assertEquals(12, SendMessageProcessor.responseCode(PutMessageStatus.FLUSH_SLAVE_TIMEOUT));
        assertEquals(11, SendMessageProcessor.responseCode(PutMessageStatus.SLAVE_NOT_AVAILABLE));
        assertEquals(14, SendMessageProcessor.responseCode(PutMessageStatus.SERVICE_NOT_AVAILABLE));
        assertEquals(13, SendMessageProcessor.responseCode(PutMessageStatus.MESSAGE_ILLEGAL));
        assertEquals(13, SendMessageProcessor.responseCode(PutMessageStatus.PROPERTIES_SIZE_EXCEEDED));
        assertEquals(2, SendMessageProcessor.responseCode(PutMessageStatus.OS_PAGE_CACHE_BUSY));
        assertEquals(1, SendMessageProcessor.responseCode(PutMessageStatus.CREATE_MAPPED_FILE_FAILED));
        assertEquals(1, SendMessageProcessor.responseCode(PutMessageStatus.UNKNOWN_ERROR));
    }

    @Test
    void onlyStoredStatusesAnswerAsStored() {
        for (PutMessageStatus s : PutMessageStatus.values()) {
            int code = SendMessageProcessor.responseCode(s);
            boolean clientDecodesHeader = code == 0 || code == 10 || code == 11 || code == 12;
            assertEquals(s.isStored(), clientDecodesHeader, s.name());
        }
    }

    @Test
    void aPutFailedByTheFailStopIsRefusedAsServiceNotAvailableAndOtherFailuresStayFailures() {
        StoreException failStop = new StoreException("CommitLog is read-only after a failure of GroupCommitService",
            new IOException("fsync failed"));
        SendOutcome refused = SendMessageProcessor.refusedAfterFailStop(new CompletionException(failStop));
        assertEquals(14, refused.code(), "SERVICE_NOT_AVAILABLE, not a SYSTEM_ERROR with an ERROR line");
        assertTrue(refused.remark().contains("read-only"), refused.remark());

        IllegalStateException bug = new IllegalStateException("bug");
        CompletionException rethrown = assertThrows(CompletionException.class,
            () -> SendMessageProcessor.refusedAfterFailStop(new CompletionException(bug)));
        assertSame(bug, rethrown.getCause());
    }
}

package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.TimerMessages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET_TIMER_CHECK_POINT, every round (RocketMQ's slave asks every 3 s): the master's timer checkpoint goes to
 * {@link TimerMessages#applyMasterCheckpoint}, so the slave's wheel enqueues no further than the master did and,
 * once promoted, delivers from the master's read time instead of delivering again what the master already
 * delivered. A master with its wheel disabled answers SYSTEM_ERROR: nothing to apply, not a failure.
 */
final class TimerCheckpointSync implements MetadataSync {
    private static final Logger log = LoggerFactory.getLogger(TimerCheckpointSync.class);
    /** The checkpoint's fields up to masterTimerQueueOffset (RocketMQ 4.x-era bodies stop there). */
    static final int MIN_CHECKPOINT_BYTES = 32;

    private final TimerMessages timers;

    TimerCheckpointSync(TimerMessages timers) {
        this.timers = timers;
    }

    @Override
    public String what() {
        return "timer checkpoint";
    }

    @Override
    public int requestCode() {
        return RequestCode.GET_TIMER_CHECK_POINT;
    }

    @Override
    public boolean everyRound() {
        return true;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        if (response.code() == ResponseCode.SYSTEM_ERROR) {
            log.debug("the master has no timer checkpoint: {}", response.remark());
            return;
        }
        byte[] body = MetadataSync.successBody(response, what());
        if (body.length < MIN_CHECKPOINT_BYTES) {
            throw new IOException("the master's timer checkpoint has " + body.length + " bytes, fewer than "
                + MIN_CHECKPOINT_BYTES);
        }
        timers.applyMasterCheckpoint(body);
    }
}

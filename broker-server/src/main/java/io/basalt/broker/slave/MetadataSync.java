package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * One table a slave copies from its master: the request that asks for it and how the answer is applied.
 * Called by the {@link SlaveSynchronize} thread only.
 */
interface MetadataSync {
    /** What is synced, for the log ("topics", "consumer offsets"). */
    String what();

    /** The request code sent to the master (no header). */
    int requestCode();

    /** True when RocketMQ asks on the master's VIP port (listenPort − 2) instead of its listen port. */
    default boolean viaVipPort() {
        return false;
    }

    /**
     * True when the job runs at every round ({@value SlaveSynchronize#TICK_MS} ms) instead of with the full sync
     * every {@value SlaveSynchronize#SYNC_PERIOD_MS} ms.
     */
    default boolean everyRound() {
        return false;
    }

    /**
     * Applies the master's answer to this broker's table and files.
     *
     * @throws IOException when the answer is a refusal or not the table, or persisting fails; the next round retries
     */
    void apply(RemotingCommand response) throws IOException;

    /** The body of a SUCCESS answer; anything else is a failure of this round. */
    static byte[] successBody(RemotingCommand response, String what) throws IOException {
        if (response.code() != ResponseCode.SUCCESS) {
            throw new IOException("the master refused to send its " + what + ": code " + response.code() + ", "
                + response.remark());
        }
        if (response.body() == null || response.body().length == 0) {
            throw new IOException("the master sent no " + what);
        }
        return response.body();
    }
}

package io.basalt.store.flush;

import java.io.IOException;

/** A {@link FlushTarget} that passes every call on; fault-injecting test targets override commit or flush. */
public abstract class ForwardingFlushTarget implements FlushTarget {
    protected final FlushTarget delegate;

    protected ForwardingFlushTarget(FlushTarget delegate) {
        this.delegate = delegate;
    }

    @Override
    public long commit(int leastPages) throws IOException {
        return delegate.commit(leastPages);
    }

    @Override
    public long flush(int leastPages) throws IOException {
        return delegate.flush(leastPages);
    }

    @Override
    public long flushedOffset() {
        return delegate.flushedOffset();
    }

    @Override
    public long committedOffset() {
        return delegate.committedOffset();
    }

    @Override
    public long appendedOffset() {
        return delegate.appendedOffset();
    }

    @Override
    public String fileAt(long offset) {
        return delegate.fileAt(offset);
    }
}

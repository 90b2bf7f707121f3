package io.basalt.store.commitlog;

import io.basalt.store.BrokerMessage;

/**
 * The record encoder's way into a {@link BrokerMessage}: its encoded parts (arrays shared, not copied)
 * and the offsets the append assigns. BrokerMessage is an API type, where these must not be public;
 * it installs the implementation when its class initialises (the JDK's SharedSecrets pattern), so
 * any thread holding a BrokerMessage finds it installed. This package is not exported.
 */
public final class MessageInternals {

    /** Implemented once, by BrokerMessage. */
    public interface Access {
        byte[] topicBytes(BrokerMessage m);

        byte[] propertiesBytes(BrokerMessage m);

        byte[] bornHostAddress(BrokerMessage m);

        byte[] storeHostAddress(BrokerMessage m);

        /** True when the record CRC follows properties that lack their final separator, which is then added. */
        boolean appendPropertySeparator(BrokerMessage m);

        /** Makes {@code m} end with the record CRC property ({@code enabledAppendPropCRC}); the putting thread only. */
        void withRecordCrc(BrokerMessage m);

        /** Records what the store assigned when it appended {@code m}; the appending thread only. */
        void assigned(BrokerMessage m, long physicalOffset, long queueOffset, long storeTimestamp);
    }

    private static volatile Access access;

    private MessageInternals() {
    }

    /** Called by BrokerMessage's static initialiser; a second installation is refused. */
    public static synchronized void install(Access implementation) {
        if (access != null) {
            throw new IllegalStateException("BrokerMessage access is installed already");
        }
        access = implementation;
    }

    public static Access access() {
        Access a = access;
        if (a == null) {
            try {
                Class.forName(BrokerMessage.class.getName(), true, BrokerMessage.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            a = access;
        }
        return a;
    }
}

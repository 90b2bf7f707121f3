package io.basalt.broker.auth;

/**
 * What an access check decided for one request: let in (signed, or by a white address) or refused, with the
 * reason as a label for metrics and RocketMQ's message for the answer.
 *
 * @param outcome  let in, let in by a white address, or refused
 * @param reason   why it was refused (null when let in)
 * @param subject  the account let in (empty for a white address)
 * @param message  what the refusal says, or what let it in
 */
record AuthDecision(Outcome outcome, Reason reason, String subject, String message) {
    enum Outcome { ALLOWED, WHITE_ADDRESS, DENIED }

    /** Why a request was refused; the metric label is the lower-case name. */
    enum Reason {
        /** No AccessKey in the request (an unsigned client, tool or broker). */
        NO_CREDENTIALS,
        /** An AccessKey (user) nobody defined, or a disabled user. */
        UNKNOWN_USER,
        /** A signature that is not the account's. */
        BAD_SIGNATURE,
        /** An admin code from an account that is not admin (ACL 1.0) or a user that is not Super (2.0). */
        NOT_ADMIN,
        /** A topic or group the account may not use that way. */
        NO_PERMISSION,
        /** A request whose topics or groups cannot be read (a missing field, a body that does not decode). */
        UNREADABLE;

        /** Whether the caller was not authenticated, rather than not allowed what it asked. */
        boolean unauthenticated() {
            return this == NO_CREDENTIALS || this == UNKNOWN_USER || this == BAD_SIGNATURE;
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static AuthDecision allow(String subject) {
        return new AuthDecision(Outcome.ALLOWED, null, subject, "");
    }

    static AuthDecision white(String rule) {
        return new AuthDecision(Outcome.WHITE_ADDRESS, null, "", rule);
    }

    static AuthDecision deny(Reason reason, String message) {
        return new AuthDecision(Outcome.DENIED, reason, "", message);
    }

    boolean denied() {
        return outcome == Outcome.DENIED;
    }
}

package io.basalt.broker.auth;

/** An ACL file or setting that cannot be used, with the file, the line and the rule it breaks. */
public final class AclConfigException extends RuntimeException {
    public AclConfigException(String message) {
        super(message);
    }
}

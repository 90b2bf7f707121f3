package io.basalt.broker.auth;

/**
 * An ACL 2.0 action (RocketMQ 5.3's {@code Action}). {@link #ALL} in an entry matches every requested action;
 * {@link #ANY} may be requested ("any action is enough") but never stored.
 */
enum AuthAction {
    ALL("All"), ANY("Any"), PUB("Pub"), SUB("Sub"), CREATE("Create"), UPDATE("Update"), DELETE("Delete"), GET("Get"),
    LIST("List");

    final String text;

    AuthAction(String text) {
        this.text = text;
    }

    /** @throws IllegalArgumentException an unknown action, with the known ones */
    static AuthAction parse(String text) {
        for (AuthAction a : values()) {
            if (a.text.equalsIgnoreCase(text == null ? "" : text.trim())) {
                return a;
            }
        }
        throw new IllegalArgumentException("action '" + text + "' is not one of All, Pub, Sub, Create, Update, Delete,"
            + " Get, List");
    }
}

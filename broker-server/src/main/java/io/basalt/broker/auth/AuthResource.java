package io.basalt.broker.auth;

/**
 * An ACL 2.0 resource pattern (RocketMQ 5.3's {@code Resource}): {@code *} (anything), {@code Type:*} (any name of a
 * type), {@code Type:prefix*} (names with a prefix) or {@code Type:name}. Types: {@code Cluster}, {@code Namespace},
 * {@code Topic}, {@code Group}. A group written as its retry topic ({@code Group:%RETRY%g}, or {@code Topic:%RETRY%g})
 * is the group {@code g}. Immutable.
 *
 * @param type    the resource type, null for {@code *}
 * @param name    the literal name or the prefix ("" for {@code Type:*})
 * @param pattern how {@code name} matches
 */
record AuthResource(Type type, String name, Pattern pattern) {
    enum Type {
        CLUSTER("Cluster"), NAMESPACE("Namespace"), TOPIC("Topic"), GROUP("Group");

        final String text;

        Type(String text) {
            this.text = text;
        }

        static Type parse(String text) {
            for (Type t : values()) {
                if (t.text.equalsIgnoreCase(text)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("resource type '" + text + "' is not Cluster, Namespace, Topic or Group");
        }
    }

    /** From the least to the most specific (RocketMQ's order of precedence, corrected as in apache/rocketmq#9540). */
    enum Pattern { ANY, PREFIXED, LITERAL }

    static final AuthResource ANY = new AuthResource(null, "", Pattern.ANY);

    static AuthResource topic(String name) {
        return name.startsWith(PlainAclFile.RETRY_PREFIX) ? group(name) : new AuthResource(Type.TOPIC, name, Pattern.LITERAL);
    }

    static AuthResource group(String name) {
        String g = name.startsWith(PlainAclFile.RETRY_PREFIX) ? name.substring(PlainAclFile.RETRY_PREFIX.length()) : name;
        return new AuthResource(Type.GROUP, g, Pattern.LITERAL);
    }

    static AuthResource cluster(String name) {
        return new AuthResource(Type.CLUSTER, name, Pattern.LITERAL);
    }

    /**
     * Parses a resource key.
     *
     * @throws IllegalArgumentException not one of the forms, saying why ("The resource is null." in RocketMQ)
     */
    static AuthResource parse(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("The resource is null.");
        }
        String k = key.trim();
        if (k.equals("*")) {
            return ANY;
        }
        int colon = k.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("resource '" + k + "' is not *, Type:*, Type:prefix* or Type:name");
        }
        Type type = Type.parse(k.substring(0, colon));
        String name = k.substring(colon + 1);
        if (name.equals("*")) {
            return new AuthResource(type, "", Pattern.ANY);
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("resource '" + k + "' has no name");
        }
        if (name.endsWith("*")) {
            return new AuthResource(type, name.substring(0, name.length() - 1), Pattern.PREFIXED);
        }
        if ((type == Type.GROUP || type == Type.TOPIC) && name.startsWith(PlainAclFile.RETRY_PREFIX)) {
            return group(name);
        }
        return new AuthResource(type, name, Pattern.LITERAL);
    }

    /** Whether this pattern covers the literal resource {@code requested}. */
    boolean covers(AuthResource requested) {
        if (type == null) {
            return true;
        }
        if (type != requested.type) {
            return false;
        }
        return switch (pattern) {
            case ANY -> true;
            case PREFIXED -> requested.name.startsWith(name);
            case LITERAL -> requested.name.equals(name);
        };
    }

    /**
     * Positive when this pattern is more specific than {@code other}: a typed resource before {@code *}, a literal
     * before a prefix before {@code Type:*}, a longer prefix before a shorter one.
     */
    int compareSpecificity(AuthResource other) {
        if ((type == null) != (other.type == null)) {
            return type == null ? -1 : 1;
        }
        int byPattern = Integer.compare(pattern.ordinal(), other.pattern.ordinal());
        if (byPattern != 0) {
            return byPattern;
        }
        return pattern == Pattern.PREFIXED ? Integer.compare(name.length(), other.name.length()) : 0;
    }

    /** RocketMQ's key text: {@code *}, {@code Topic:*}, {@code Topic:orders*}, {@code Group:billing}. */
    String key() {
        if (type == null) {
            return "*";
        }
        return type.text + ":" + switch (pattern) {
            case ANY -> "*";
            case PREFIXED -> name + "*";
            case LITERAL -> name;
        };
    }

    @Override
    public String toString() {
        return key();
    }
}

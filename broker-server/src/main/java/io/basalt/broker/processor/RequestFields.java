package io.basalt.broker.processor;

import java.util.Map;

import io.basalt.remoting.protocol.RemotingCommand;

/**
 * Reads the custom header fields of a request by RocketMQ's field names. A missing required field or
 * a bad number throws {@link BadRequestException}, which the processors answer with a clear remark.
 */
final class RequestFields {
    private final Map<String, String> fields;

    RequestFields(RemotingCommand request) {
        this.fields = request.extFields() == null ? Map.of() : request.extFields();
    }

    static final class BadRequestException extends Exception {
        BadRequestException(String message) {
            super(message);
        }
    }

    String string(String name) {
        return fields.get(name);
    }

    String requireString(String name) throws BadRequestException {
        String v = fields.get(name);
        if (v == null) {
            throw new BadRequestException("the custom field <" + name + "> is null");
        }
        return v;
    }

    int requireInt(String name) throws BadRequestException {
        String v = requireString(name);
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestException("the custom field <" + name + "> is not an int: " + v);
        }
    }

    long requireLong(String name) throws BadRequestException {
        String v = requireString(name);
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestException("the custom field <" + name + "> is not a long: " + v);
        }
    }

    Boolean bool(String name) {
        String v = fields.get(name);
        return v == null ? null : Boolean.parseBoolean(v);
    }
}

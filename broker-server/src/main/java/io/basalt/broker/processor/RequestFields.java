package io.basalt.broker.processor;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.Map;

/**
 * Reads a request's custom header fields by RocketMQ's names; a blank value counts as absent. A
 * missing required field or a bad number is a {@link BadRequestException}; {@link #badRequest} turns
 * it into the response RocketMQ gives when it cannot decode a header.
 */
public final class RequestFields {
    private final Map<String, String> fields;

    public RequestFields(RemotingCommand request) {
        this.fields = request.extFields() == null ? Map.of() : request.extFields();
    }

    public static final class BadRequestException extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequestException(String message) {
            super(message);
        }
    }

    public static RemotingCommand badRequest(BadRequestException e) {
        return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, e.getMessage());
    }

    public String string(String name) {
        String value = fields.get(name);
        return value == null || value.isBlank() ? null : value;
    }

    public String requireString(String name) throws BadRequestException {
        String value = string(name);
        if (value == null) {
            throw new BadRequestException("the custom field <" + name + "> is null");
        }
        return value;
    }

    public int intValue(String name, int fallback) throws BadRequestException {
        String value = string(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestException("the custom field <" + name + "> is not an int: " + value);
        }
    }

    public int requireInt(String name) throws BadRequestException {
        requireString(name);
        return intValue(name, 0);
    }

    public long longValue(String name, long fallback) throws BadRequestException {
        String value = string(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new BadRequestException("the custom field <" + name + "> is not a long: " + value);
        }
    }

    public long requireLong(String name) throws BadRequestException {
        requireString(name);
        return longValue(name, 0L);
    }

    public boolean bool(String name, boolean fallback) {
        String value = string(name);
        return value == null ? fallback : Boolean.parseBoolean(value.trim());
    }

    /** The boolean value, or null when the field is absent (a request that leaves the choice open). */
    public Boolean bool(String name) {
        String value = string(name);
        return value == null ? null : Boolean.parseBoolean(value.trim());
    }
}

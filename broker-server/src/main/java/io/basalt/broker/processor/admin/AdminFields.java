package io.basalt.broker.processor.admin;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.Map;

/**
 * Reads a request's custom header fields by RocketMQ's names. A missing required field or a bad
 * number is a {@link BadRequestException}; {@link #badRequest} turns it into the response RocketMQ
 * gives when it cannot decode a header.
 */
final class AdminFields {
    private final Map<String, String> fields;

    AdminFields(RemotingCommand request) {
        this.fields = request.extFields() == null ? Map.of() : request.extFields();
    }

    static final class BadRequestException extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequestException(String message) {
            super(message);
        }
    }

    static RemotingCommand badRequest(BadRequestException e) {
        return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, e.getMessage());
    }

    String string(String name) {
        String value = fields.get(name);
        return value == null || value.isBlank() ? null : value;
    }

    String requireString(String name) throws BadRequestException {
        String value = string(name);
        if (value == null) {
            throw new BadRequestException("the custom field <" + name + "> is null");
        }
        return value;
    }

    int intValue(String name, int fallback) throws BadRequestException {
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

    int requireInt(String name) throws BadRequestException {
        requireString(name);
        return intValue(name, 0);
    }

    long longValue(String name, long fallback) throws BadRequestException {
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

    long requireLong(String name) throws BadRequestException {
        requireString(name);
        return longValue(name, 0L);
    }

    boolean bool(String name, boolean fallback) {
        String value = string(name);
        return value == null ? fallback : Boolean.parseBoolean(value.trim());
    }
}

package io.basalt.broker.assignment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.protocol.MessageRequestModeBody;
import io.basalt.broker.protocol.MessageRequestModeTable;
import io.basalt.remoting.json.JsonException;

/**
 * The request mode of each (topic, consumer group) set by SET_MESSAGE_REQUEST_MODE ({@code mqadmin setConsumeMode}),
 * RocketMQ's {@code MessageRequestModeManager}: kept in {@code config/messageRequestMode.json} in RocketMQ's format
 * (a store moves both ways), written atomically before a change is answered; on a slave, replaced by its master's
 * table at every sync. QUERY_ASSIGNMENT reads it. Thread-safe.
 */
public final class MessageRequestModes {
    public static final String FILE_NAME = "messageRequestMode.json";

    /** topic → group → entry. Guarded by this. */
    private Map<String, Map<String, MessageRequestModeBody>> table = new LinkedHashMap<>();
    /** Null: kept in memory only. */
    private final JsonConfigFile file;

    private MessageRequestModes(JsonConfigFile file) {
        this.file = file;
    }

    public static MessageRequestModes inMemory() {
        return new MessageRequestModes(null);
    }

    /**
     * The table of {@code configDir/messageRequestMode.json} (its backup when it is corrupt), empty when absent.
     *
     * @throws IOException when neither the file nor its backup can be read, or an entry names an unknown mode
     */
    public static MessageRequestModes open(Path configDir) throws IOException {
        MessageRequestModes modes = new MessageRequestModes(new JsonConfigFile(configDir.resolve(FILE_NAME)));
        Optional<byte[]> content = modes.file.load().map(node -> {
            try {
                return JsonConfigFile.MAPPER.writeValueAsBytes(node);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        });
        if (content.isPresent()) {
            modes.table = decodeChecked(content.get(), modes.file.path().toString());
        }
        return modes;
    }

    /** The table of a body, every entry checked: a known mode, a topic and a group. */
    static Map<String, Map<String, MessageRequestModeBody>> decodeChecked(byte[] body, String what) throws IOException {
        Map<String, Map<String, MessageRequestModeBody>> decoded;
        try {
            decoded = MessageRequestModeTable.decode(body);
        } catch (JsonException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
        for (Map<String, MessageRequestModeBody> groups : decoded.values()) {
            for (MessageRequestModeBody entry : groups.values()) {
                if (modeOf(entry).isEmpty()) {
                    throw new IOException(what + ": unknown mode '" + entry.mode() + "' for topic " + entry.topic()
                        + " and group " + entry.consumerGroup() + " (PULL or POP)");
                }
            }
        }
        return decoded;
    }

    /** The mode an entry names, empty when it is neither PULL nor POP. */
    public static Optional<MessageRequestMode> modeOf(MessageRequestModeBody entry) {
        for (MessageRequestMode mode : MessageRequestMode.values()) {
            if (mode.name().equals(entry.mode())) {
                return Optional.of(mode);
            }
        }
        return Optional.empty();
    }

    public synchronized Optional<MessageRequestModeBody> get(String topic, String group) {
        Map<String, MessageRequestModeBody> groups = table.get(topic);
        return Optional.ofNullable(groups == null ? null : groups.get(group));
    }

    /**
     * Records the entry (replacing the group's previous one for the topic) and writes the file.
     *
     * @throws IOException when the file could not be written: the entry is then not recorded
     */
    public synchronized void set(MessageRequestModeBody entry) throws IOException {
        Map<String, Map<String, MessageRequestModeBody>> changed = copy(table);
        changed.computeIfAbsent(entry.topic(), t -> new LinkedHashMap<>()).put(entry.consumerGroup(), entry);
        persist(changed);
        table = changed;
    }

    /**
     * A slave's sync: the master's GET_ALL_MESSAGE_REQUEST_MODE body replaces the table (RocketMQ clears and puts
     * all) and the file.
     *
     * @throws IOException when the body is not a request-mode table, or the file could not be written (the table
     *                     is then unchanged)
     */
    public synchronized void replaceAll(byte[] masterBody) throws IOException {
        Map<String, Map<String, MessageRequestModeBody>> replaced = decodeChecked(masterBody,
            "the master's message request modes");
        persist(replaced);
        table = replaced;
    }

    /** The GET_ALL_MESSAGE_REQUEST_MODE body. */
    public synchronized byte[] encode() {
        return MessageRequestModeTable.encode(table);
    }

    private void persist(Map<String, Map<String, MessageRequestModeBody>> content) throws IOException {
        if (file != null) {
            file.storeExactly(MessageRequestModeTable.encode(content));
        }
    }

    private static Map<String, Map<String, MessageRequestModeBody>> copy(
        Map<String, Map<String, MessageRequestModeBody>> source) {
        Map<String, Map<String, MessageRequestModeBody>> copy = new LinkedHashMap<>();
        source.forEach((topic, groups) -> copy.put(topic, new LinkedHashMap<>(groups)));
        return copy;
    }
}

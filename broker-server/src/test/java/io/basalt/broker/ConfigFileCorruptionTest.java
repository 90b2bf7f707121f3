package io.basalt.broker;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;

/**
 * Each broker metadata file (topics.json, consumerOffset.json, subscriptionGroup.json) damaged in each
 * way (truncated, emptied, garbage, valid JSON with a wrong value): with a good .bak the broker opens
 * it with the backup's content; without one, or with a damaged one, the open fails naming the file,
 * never an empty table.
 */
class ConfigFileCorruptionTest {
    @TempDir
    Path dir;

    enum Kind {
        TOPICS("topics.json", "{\"topicConfigTable\":{\"Kept\":{\"topicName\":\"Kept\",\"readQueueNums\":4,"
            + "\"writeQueueNums\":-3,\"perm\":6}}}"),
        OFFSETS("consumerOffset.json", "{\"offsetTable\":{\"Kept@cg\":{0:-100}}}"),
        GROUPS("subscriptionGroup.json", "{\"subscriptionGroupTable\":{\"kept_cg\":{\"groupName\":\"kept_cg\","
            + "\"retryQueueNums\":-1}}}");

        final String file;
        final String wrongValues;

        Kind(String file, String wrongValues) {
            this.file = file;
            this.wrongValues = wrongValues;
        }
    }

    enum Damage { TRUNCATED, EMPTIED, GARBAGE, WRONG_VALUES }

    /** Writes a table holding one known entry (and its .bak, the same content). */
    private void writeGood(Kind kind) throws IOException {
        for (String suffix : new String[] {"", ".bak", ".tmp"}) {
            Files.deleteIfExists(dir.resolve(kind.file + suffix));
        }
        switch (kind) {
            case TOPICS -> {
                TopicConfigManager m = TopicConfigManager.open(dir, false, 4);
                m.createOrUpdate(TopicConfig.of("Kept", 4, 6));
                m.persist();
            }
            case OFFSETS -> {
                ConsumerOffsetManager m = ConsumerOffsetManager.open(dir);
                m.commitOffset("127.0.0.1", "cg", "Kept", 0, 250);
                m.persist();
            }
            case GROUPS -> SubscriptionGroupManager.open(dir, true).findOrAutoCreate("kept_cg").orElseThrow();
        }
        Files.copy(dir.resolve(kind.file), dir.resolve(kind.file + ".bak"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Opens the table; true when it holds the known entry. */
    private boolean opensWithTheEntry(Kind kind) throws IOException {
        return switch (kind) {
            case TOPICS -> TopicConfigManager.open(dir, false, 4).get("Kept") != null;
            case OFFSETS -> ConsumerOffsetManager.open(dir).queryOffset("cg", "Kept", 0) == 250;
            case GROUPS -> SubscriptionGroupManager.open(dir, false).get("kept_cg").isPresent();
        };
    }

    private static void damage(Path file, Damage damage, Kind kind) throws IOException {
        byte[] good = Files.readAllBytes(file);
        byte[] bad = switch (damage) {
            case TRUNCATED -> Arrays.copyOf(good, good.length / 2);
            case EMPTIED -> new byte[0];
            case GARBAGE -> {
                byte[] g = new byte[good.length];
                new Random(file.hashCode()).nextBytes(g);
                yield g;
            }
            case WRONG_VALUES -> kind.wrongValues.getBytes(StandardCharsets.UTF_8);
        };
        Files.write(file, bad);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyDamageFallsBackToAGoodBackup(Kind kind) throws IOException {
        for (Damage d : Damage.values()) {
            writeGood(kind);
            damage(dir.resolve(kind.file), d, kind);
            assertTrue(opensWithTheEntry(kind), kind + " " + d + ": the backup's entry");
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyDamageWithoutAUsableBackupStopsTheOpenNamingTheFile(Kind kind) throws IOException {
        for (Damage d : Damage.values()) {
            for (boolean backupDamaged : new boolean[] {false, true}) {
                writeGood(kind);
                damage(dir.resolve(kind.file), d, kind);
                Path backup = dir.resolve(kind.file + ".bak");
                if (backupDamaged) {
                    damage(backup, d == Damage.GARBAGE ? Damage.TRUNCATED : Damage.GARBAGE, kind);
                } else {
                    Files.delete(backup);
                }
                IOException e = assertThrows(IOException.class, () -> opensWithTheEntry(kind),
                    kind + " " + d + (backupDamaged ? ", damaged .bak" : ", no .bak"));
                assertTrue(e.getMessage().contains(kind.file), e.getMessage());
            }
        }
    }
}

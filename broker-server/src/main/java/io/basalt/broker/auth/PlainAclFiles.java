package io.basalt.broker.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ACL 1.0's files as RocketMQ 5.2.0 finds them: every {@code *.yml} / {@code *.yaml} below the ACL directory
 * ({@code <home>/conf/acl}, recursively, {@code tools.yml} left out: it is mqadmin's own credentials), then the
 * default file ({@code <home>/conf/plain_acl.yml}), merged. An accessKey defined in two files is taken from the
 * first (in that order, paths sorted) and the other definition is logged and ignored, as RocketMQ does.
 *
 * <p>{@link #reloadIfChanged()} rereads everything when a file appeared, disappeared or changed (size or mtime); a
 * file that does not load then leaves the last good set in force and the reason is logged (RocketMQ keeps the old
 * state too, with a WARN). The admin changes ({@link #putAccount}, {@link #deleteAccount}, {@link #setGlobalWhite})
 * rewrite one file atomically and take effect at once. Thread-safe: readers get an immutable {@link Snapshot}.
 */
public final class PlainAclFiles {
    private static final Logger log = LoggerFactory.getLogger(PlainAclFiles.class);
    /** mqadmin's credentials file, which may sit in the ACL directory and is not an ACL file. */
    static final String TOOLS_FILE = "tools.yml";

    /** What is in force: the accounts by accessKey, the global white addresses, the files they came from. */
    public record Snapshot(Map<String, PlainAccount> accounts, List<AddressPattern> globalWhite,
                           Map<Path, PlainAclFile> files) {
        public Snapshot {
            accounts = Collections.unmodifiableMap(new LinkedHashMap<>(accounts));
            globalWhite = List.copyOf(globalWhite);
            files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
        }

        public Optional<PlainAccount> account(String accessKey) {
            return Optional.ofNullable(accounts.get(accessKey));
        }

        /** Whether a global white address lets the client at {@code address} in. */
        public boolean globallyWhite(String address) {
            for (AddressPattern p : globalWhite) {
                if (p.matches(address)) {
                    return true;
                }
            }
            return false;
        }
    }

    private record Fingerprint(Path path, long size, long modifiedMillis) {
    }

    private final Path defaultFile;
    private final Path directory;
    private final LongSupplier clock;
    private volatile Snapshot snapshot;
    private List<Fingerprint> loadedFrom = List.of();
    private volatile String lastReloadError;

    private PlainAclFiles(Path defaultFile, Path directory, LongSupplier clock) {
        this.defaultFile = defaultFile;
        this.directory = directory;
        this.clock = clock;
    }

    /**
     * Loads the files at start-up.
     *
     * @throws AclConfigException a file that does not load, or no file at all (nobody could ever be let in: RocketMQ
     *                            would create an empty file and refuse every request; Basalt says so and stops)
     * @throws IOException        a file that cannot be read
     */
    public static PlainAclFiles load(Path defaultFile, Path directory, LongSupplier clock) throws IOException {
        PlainAclFiles files = new PlainAclFiles(defaultFile, directory, clock);
        List<Fingerprint> prints = files.fingerprints();
        if (prints.isEmpty()) {
            throw new AclConfigException("aclEnable=true, but there is no ACL file: neither " + defaultFile + " nor a *.yml"
                + " file in " + directory + ". Every request would be refused. Create " + defaultFile + " with at least one"
                + " account (accessKey, secretKey of 7 characters or more, admin: true for administration)");
        }
        synchronized (files) {
            files.snapshot = files.read(prints);
            files.loadedFrom = prints;
        }
        log.info("ACL 1.0: {} accounts and {} global white addresses from {}", files.snapshot.accounts().size(),
            files.snapshot.globalWhite().size(), files.snapshot.files().keySet());
        return files;
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public Path defaultFile() {
        return defaultFile;
    }

    /** Why the last reload failed, empty when it did not (or none failed since the last good one). */
    public Optional<String> lastReloadError() {
        return Optional.ofNullable(lastReloadError);
    }

    /**
     * Rereads the files if any appeared, disappeared or changed since they were read.
     *
     * @return true when a new set is in force
     * @throws AclConfigException when the new set does not load (the previous one stays in force)
     */
    public synchronized boolean reloadIfChanged() throws IOException {
        List<Fingerprint> prints = fingerprints();
        if (prints.equals(loadedFrom)) {
            return false;
        }
        try {
            Snapshot next = read(prints);
            snapshot = next;
            loadedFrom = prints;
            lastReloadError = null;
            log.info("ACL 1.0 reloaded: {} accounts and {} global white addresses from {}", next.accounts().size(),
                next.globalWhite().size(), next.files().keySet());
            return true;
        } catch (AclConfigException | IOException e) {
            // the same broken files are not reread until they change again
            loadedFrom = prints;
            lastReloadError = e.getMessage();
            throw e;
        }
    }

    /**
     * Adds {@code account} or replaces the one with its accessKey, in the file that defines it (else the default
     * file), and puts the result in force.
     */
    public synchronized void putAccount(PlainAccount account) throws IOException {
        Snapshot current = snapshot;
        PlainAccount existing = current.accounts().get(account.accessKey());
        Path path = existing != null ? Path.of(existing.file()) : defaultFile;
        PlainAclFile file = current.files().getOrDefault(path, PlainAclFile.empty(path));
        PlainAccount placed = new PlainAccount(account.accessKey(), account.secretKey(), account.whiteRemoteAddress(),
            account.admin(), account.defaultTopicPerm(), account.defaultGroupPerm(), account.topicPerms(),
            account.groupPerms(), path.toString());
        rewrite(file.withAccount(placed, clock.getAsLong()));
    }

    /**
     * Removes the account {@code accessKey} from its file.
     *
     * @return false when no file defines it
     */
    public synchronized boolean deleteAccount(String accessKey) throws IOException {
        PlainAccount existing = snapshot.accounts().get(accessKey);
        if (existing == null) {
            return false;
        }
        Path path = Path.of(existing.file());
        rewrite(snapshot.files().get(path).withoutAccount(accessKey, clock.getAsLong()));
        return true;
    }

    /**
     * Replaces the global white addresses of {@code file} (null: the default file), which must be one of the ACL
     * files (the default file is created when missing).
     */
    public synchronized void setGlobalWhite(Path file, List<String> rules) throws IOException {
        Path path = file == null ? defaultFile : file.toAbsolutePath().normalize();
        PlainAclFile current = snapshot.files().get(path);
        if (current == null) {
            if (!path.equals(defaultFile.toAbsolutePath().normalize())) {
                throw new AclConfigException(path + " is not one of the ACL files " + snapshot.files().keySet());
            }
            current = PlainAclFile.empty(defaultFile);
        }
        rewrite(current.withGlobalWhite(rules, clock.getAsLong()));
    }

    private void rewrite(PlainAclFile file) throws IOException {
        file.write();
        List<Fingerprint> prints = fingerprints();
        snapshot = read(prints);
        loadedFrom = prints;
    }

    private List<Fingerprint> fingerprints() throws IOException {
        List<Path> paths = new ArrayList<>();
        if (Files.isDirectory(directory)) {
            try (Stream<Path> walk = Files.walk(directory)) {
                walk.filter(Files::isRegularFile).filter(PlainAclFiles::isAclFileName).sorted().forEach(paths::add);
            }
        }
        Path normalizedDefault = defaultFile.toAbsolutePath().normalize();
        if (Files.isRegularFile(defaultFile) && paths.stream().noneMatch(p -> p.toAbsolutePath().normalize()
            .equals(normalizedDefault))) {
            paths.add(defaultFile);
        }
        List<Fingerprint> prints = new ArrayList<>();
        for (Path p : paths) {
            Path n = p.toAbsolutePath().normalize();
            prints.add(new Fingerprint(n, Files.size(n), Files.getLastModifiedTime(n).toMillis()));
        }
        return prints;
    }

    private static boolean isAclFileName(Path p) {
        String name = p.getFileName().toString();
        return (name.endsWith(".yml") || name.endsWith(".yaml")) && !name.equals(TOOLS_FILE);
    }

    private Snapshot read(List<Fingerprint> prints) throws IOException {
        Map<String, PlainAccount> accounts = new LinkedHashMap<>();
        List<AddressPattern> white = new ArrayList<>();
        Map<Path, PlainAclFile> files = new LinkedHashMap<>();
        for (Fingerprint f : prints) {
            PlainAclFile file = PlainAclFile.read(f.path());
            files.put(f.path(), file);
            white.addAll(file.globalWhite());
            for (PlainAccount a : file.accounts()) {
                PlainAccount first = accounts.putIfAbsent(a.accessKey(), a);
                if (first != null) {
                    log.warn("ACL 1.0: accessKey {} of {} is ignored: {} defines it first", a.accessKey(), f.path(),
                        first.file());
                }
            }
        }
        return new Snapshot(accounts, white, files);
    }
}

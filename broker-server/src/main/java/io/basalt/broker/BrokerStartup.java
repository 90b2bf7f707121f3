package io.basalt.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.basalt.broker.config.BrokerCommandLine;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.broker.config.LogsDirectory;
import io.basalt.broker.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code mqbroker} entry point: {@code start [-c FILE] [--key=value ...]} runs a broker in the
 * foreground until SIGTERM/SIGINT (then shuts it down cleanly), {@code stop [-c FILE]} stops the broker
 * that the same configuration started, through its pid file. Exit status: 0 on success, 1 on a
 * configuration or start-up error (printed to stderr), 2 when {@code stop} timed out.
 *
 * <p>The log directory ({@code basalt.log.dir}: env {@code BASALT_LOG_DIR}, else the configuration's
 * {@code logsDir}) is set before the first logger is created, so every line lands in the right files.
 */
public final class BrokerStartup {
    static final String LOG_DIR_PROPERTY = "basalt.log.dir";
    static final String LOG_DIR_ENV = "BASALT_LOG_DIR";
    private static final long STOP_TIMEOUT_MS = 60_000;

    private BrokerStartup() {
    }

    public static void main(String[] args) throws InterruptedException {
        int status = run(args, System.out, System.err);
        if (status != 0 || !startsABroker(args)) {
            System.exit(status);
        }
        // Foreground: the broker runs until a signal starts the JVM's shutdown, which runs the hook.
        new CountDownLatch(1).await();
    }

    /** True for a {@code start} that serves; false for {@code stop}, {@code --help} and {@code start --help}. */
    static boolean startsABroker(String[] args) {
        try {
            return BrokerCommandLine.parse(args).action() == BrokerCommandLine.Action.START;
        } catch (ConfigException e) {
            return false;
        }
    }

    /** Runs the command; for {@code start}, returns once the broker serves (its shutdown hook ends it). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        BrokerCommandLine.Invocation invocation;
        try {
            invocation = BrokerCommandLine.parse(args);
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return 1;
        }
        if (invocation.action() == BrokerCommandLine.Action.HELP) {
            out.println(invocation.usage());
            return 0;
        }
        String logDir = System.getenv(LOG_DIR_ENV);
        if (logDir == null || logDir.isBlank()) {
            logDir = presetLogDir(invocation.configFile(), invocation.overrides()).toString();
        }
        System.setProperty(LOG_DIR_PROPERTY, Path.of(logDir).toAbsolutePath().normalize().toString());
        BrokerConfiguration configuration;
        try {
            configuration = BrokerConfiguration.load(invocation.configFile(), invocation.overrides());
        } catch (ConfigException e) {
            err.println("Invalid configuration " + invocation.configFile() + ":");
            err.println(e.getMessage());
            return 1;
        }
        return switch (invocation.action()) {
            case STOP -> stop(configuration, out, err);
            case PRINT_ALL -> print(configuration.asProperties(), out);
            case PRINT_IMPORTANT -> print(configuration.importantProperties(), out);
            default -> start(configuration, err);
        };
    }

    /** {@code -p} and {@code -m}: {@code key=value} lines, as RocketMQ's broker prints them, and exit. */
    private static int print(Map<String, String> properties, PrintStream out) {
        properties.forEach((key, value) -> out.println(key + "=" + value));
        out.flush();
        return 0;
    }

    /**
     * The configuration's log directory, read before the configuration itself is loaded (loading logs):
     * {@code logsDir} if set, else {@code logs/} beside {@code storePathRootDir} (default {@code ~/store}).
     */
    static Path presetLogDir(Path configFile, Map<String, String> overrides) {
        return LogsDirectory.of(configFile, overrides);
    }

    private static int start(BrokerConfiguration configuration, PrintStream err) {
        Logger log = LoggerFactory.getLogger(BrokerStartup.class);
        Path pidFile = configuration.broker().pidFile();
        Optional<Long> running = readPid(pidFile).filter(pid -> ProcessHandle.of(pid).filter(BrokerStartup::isBroker).isPresent());
        if (running.isPresent() && running.get() != ProcessHandle.current().pid()) {
            err.println("A broker with pid " + running.get() + " is already running for this configuration (" + pidFile + ")");
            return 1;
        }
        log.info("{}", configuration.effectiveConfiguration());
        BrokerController controller;
        try {
            controller = BrokerController.create(configuration);
        } catch (IOException | RuntimeException e) {
            log.error("broker failed to open its store or configuration files", e);
            err.println("The broker failed to start: " + e);
            return 1;
        }
        // The pid file and the hook come before start(): a stop or a signal during start-up (the port may
        // already answer) then reaches a broker that shuts down cleanly once start() returned.
        try {
            Files.createDirectories(pidFile.toAbsolutePath().getParent());
            Files.writeString(pidFile, Long.toString(ProcessHandle.current().pid()));
        } catch (IOException e) {
            // A full disk must not stop a start (the store opens with no free space): the broker runs,
            // only `mqbroker stop` cannot find it.
            long pid = ProcessHandle.current().pid();
            log.warn("cannot write the pid file {} ({}); the broker starts anyway: stop it by its pid {}",
                pidFile, e.toString(), pid);
            err.println("Cannot write the pid file " + pidFile + " (" + e + "); starting anyway, pid " + pid);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("shutting down");
            try {
                controller.shutdown();
                Files.deleteIfExists(pidFile);
            } catch (IOException | RuntimeException e) {
                log.error("error during shutdown", e);
            } finally {
                stopLogging();
            }
        }, "ShutdownHook"));
        try {
            controller.start();
        } catch (IOException | RuntimeException e) {
            log.error("broker failed to start", e);
            err.println("The broker failed to start: " + e);
            // the shutdown hook stops what did start, so the store closes cleanly
            return 1;
        }
        String banner = "The broker[" + configuration.broker().brokerName() + ", " + configuration.broker().brokerIP1()
            + ":" + controller.listenPort() + "] boot success. pid " + ProcessHandle.current().pid();
        log.info(banner);
        System.out.println(banner);
        return 0;
    }

    private static void stopLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.stop();
        }
    }

    private static int stop(BrokerConfiguration configuration, PrintStream out, PrintStream err) {
        Path pidFile = configuration.broker().pidFile();
        Optional<Long> pid = readPid(pidFile);
        Optional<ProcessHandle> process = pid.flatMap(ProcessHandle::of).filter(BrokerStartup::isBroker);
        if (process.isEmpty()) {
            out.println("No broker running" + pid.map(p -> " (stale pid " + p + " in " + pidFile + ")").orElse(
                " (no pid file " + pidFile + ")"));
            return 0;
        }
        ProcessHandle broker = process.get();
        out.println("Stopping broker pid " + broker.pid() + " ...");
        broker.destroy();
        try {
            broker.onExit().get(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            err.println("Broker pid " + broker.pid() + " still running after " + STOP_TIMEOUT_MS / 1000 + " s");
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 2;
        } catch (java.util.concurrent.ExecutionException e) {
            err.println("Waiting for pid " + broker.pid() + " failed: " + e.getCause());
            return 2;
        }
        out.println("Broker pid " + broker.pid() + " stopped");
        return 0;
    }

    /**
     * Whether a live process is a broker (a pid file left by a crash may name a pid the system has since
     * given to another program, which must not be signalled).
     */
    static boolean isBroker(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        ProcessHandle.Info info = process.info();
        Optional<String> commandLine = info.commandLine();
        if (commandLine.isPresent()) {
            return commandLine.get().contains(BrokerStartup.class.getName());
        }
        return info.command().map(c -> c.endsWith("java")).orElse(true);
    }

    private static Optional<Long> readPid(Path pidFile) {
        try {
            return Optional.of(Long.parseLong(Files.readString(pidFile).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}

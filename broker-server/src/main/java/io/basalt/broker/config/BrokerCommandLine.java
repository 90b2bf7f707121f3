package io.basalt.broker.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Parameters;

/**
 * The {@code mqbroker} command line: {@code start [-c FILE] [-n ADDR] [-p | -m] [--key=value ...]},
 * {@code stop [-c FILE] [--key=value ...]} and {@code --help}. RocketMQ's style works too: without a command
 * ({@code mqbroker -n 127.0.0.1:9876 -c conf/broker.conf}, or no argument at all) the command is {@code start}, and
 * {@code -p}/{@code -m} print the configuration and exit, as RocketMQ's {@code printConfigItem} and
 * {@code printImportantConfig} do. Parsing only: the caller loads the configuration
 * ({@link BrokerConfiguration#load}) and acts.
 */
public final class BrokerCommandLine {

    /** What the command line asks for. */
    public enum Action {
        /** Run the broker in the foreground. */
        START,
        /** Stop the broker that the same configuration started (through its pid file). */
        STOP,
        /** Print {@link Invocation#usage()} and exit successfully. */
        HELP,
        /** Print every key of the effective configuration ({@code -p}) and exit. */
        PRINT_ALL,
        /** Print the keys that make this broker what it is ({@code -m}) and exit. */
        PRINT_IMPORTANT
    }

    /**
     * A parsed command line.
     *
     * @param configFile as given (relative to the working directory), or {@link BrokerConfiguration#DEFAULT_FILE}
     * @param overrides  property name → value, in command-line order; a later one of a key wins
     * @param usage      help text for the command asked about (the whole tool for {@code --help})
     */
    public record Invocation(Action action, Path configFile, Map<String, String> overrides, String usage) {
    }

    private BrokerCommandLine() {
    }

    /**
     * @throws ConfigException naming the bad argument (unknown command, missing option value,
     *                         an override not of the form {@code --key=value})
     */
    public static Invocation parse(String... args) throws ConfigException {
        CommandLine root = commandLine();
        ParseResult parsed;
        try {
            parsed = root.parseArgs(withCommand(args));
        } catch (ParameterException e) {
            throw new ConfigException(e.getMessage() + " (see mqbroker --help)");
        }
        if (parsed.isUsageHelpRequested()) {
            return new Invocation(Action.HELP, BrokerConfiguration.DEFAULT_FILE, Map.of(), usage(root));
        }
        if (!parsed.hasSubcommand()) {
            // an empty command name, the one way left to reach this
            throw new ConfigException("missing command: start or stop (see mqbroker --help)");
        }
        ParseResult sub = parsed.subcommand();
        CommandLine subcommand = sub.commandSpec().commandLine();
        if (sub.isUsageHelpRequested()) {
            return new Invocation(Action.HELP, BrokerConfiguration.DEFAULT_FILE, Map.of(), usage(subcommand));
        }
        ConfigOptions options = subcommand.getCommand();
        Action action = Action.STOP;
        if (options instanceof Start start) {
            if (start.printAll && start.printImportant) {
                throw new ConfigException("-p and -m both print the configuration: give one (see mqbroker --help)");
            }
            action = start.printAll ? Action.PRINT_ALL : start.printImportant ? Action.PRINT_IMPORTANT : Action.START;
        }
        return new Invocation(action, options.configFile, options.overrides(), usage(subcommand));
    }

    /**
     * RocketMQ's {@code mqbroker} has no command: its arguments are options, and it starts. Arguments that begin
     * with an option (other than help), or none at all, are those of {@code start}.
     */
    private static String[] withCommand(String... args) {
        if (args.length > 0 && (!args[0].startsWith("-") || args[0].equals("-h") || args[0].equals("--help"))) {
            return args;
        }
        String[] started = new String[args.length + 1];
        started[0] = "start";
        System.arraycopy(args, 0, started, 1, args.length);
        return started;
    }

    /** Help for the whole tool, as {@code mqbroker --help} prints it. */
    public static String usage() {
        return usage(commandLine());
    }

    private static CommandLine commandLine() {
        CommandLine root = new CommandLine(new Mqbroker());
        // "--flushDiskType=SYNC_FLUSH" names a property, not an option of the tool: hand it to the
        // subcommand's positional list, where overrides() checks its form.
        root.setUnmatchedOptionsArePositionalParams(true);
        return root;
    }

    private static String usage(CommandLine command) {
        return command.getUsageMessage(Ansi.OFF);
    }

    @Command(name = "mqbroker", subcommands = {Start.class, Stop.class},
        description = {"Runs and stops a Basalt broker. Configuration: broker.conf, a Java properties file with "
            + "Apache RocketMQ's property names and defaults; --key=value overrides one property. Without a command "
            + "(RocketMQ's style: mqbroker -n ADDR -c FILE), the command is start."})
    static final class Mqbroker {

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;
    }

    /** What start and stop share: the file and the property overrides. */
    abstract static class ConfigOptions {

        @Option(names = "-c", paramLabel = "FILE", description = "Configuration file (default: ${DEFAULT-VALUE}).",
            defaultValue = "conf/broker.conf")
        Path configFile;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Parameters(paramLabel = "--key=value", arity = "0..*",
            description = "Overrides one property of the file, e.g. --listenPort=10921 --flushDiskType=SYNC_FLUSH.")
        List<String> properties = new ArrayList<>();

        Map<String, String> overrides() throws ConfigException {
            Map<String, String> overrides = new LinkedHashMap<>(extraOverrides());
            List<String> problems = new ArrayList<>();
            for (String argument : properties) {
                int equals = argument.indexOf('=');
                if (!argument.startsWith("--") || equals <= 2) {
                    problems.add("command line: '" + argument + "' is not of the form --key=value");
                    continue;
                }
                String key = argument.substring(2, equals);
                overrides.remove(key);
                overrides.put(key, argument.substring(equals + 1));
            }
            if (!problems.isEmpty()) {
                throw new ConfigException(problems);
            }
            return Collections.unmodifiableMap(overrides);
        }

        Map<String, String> extraOverrides() {
            return Map.of();
        }
    }

    @Command(name = "start", description = "Run the broker in the foreground until SIGTERM or Ctrl-C.")
    static final class Start extends ConfigOptions {

        @Option(names = "-n", paramLabel = "ADDR",
            description = "Name servers, host:port separated by ';' (the same as --namesrvAddr=ADDR).")
        String namesrvAddr;

        @Option(names = {"-p", "--printConfigItem"},
            description = "Print every key of the effective configuration as key=value (secrets hidden) and exit.")
        boolean printAll;

        @Option(names = {"-m", "--printImportantConfig"},
            description = "Print the broker's identity, role, storage and flush keys, and every key set by the file "
                + "or the command line, as key=value, and exit.")
        boolean printImportant;

        @Override
        Map<String, String> extraOverrides() {
            return namesrvAddr == null ? Map.of() : Map.of("namesrvAddr", namesrvAddr);
        }
    }

    @Command(name = "stop", description = "Stop the broker this configuration started (SIGTERM to the process in its pidFile), "
        + "and wait for a clean shutdown.")
    static final class Stop extends ConfigOptions {
    }
}

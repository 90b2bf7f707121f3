package io.basalt.it;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.tools.command.MQAdminStartup;
import org.apache.rocketmq.tools.command.SubCommand;
import org.apache.rocketmq.tools.command.broker.BrokerConsumeStatsSubCommad;
import org.apache.rocketmq.tools.command.message.ConsumeMessageCommand;
import org.apache.rocketmq.tools.command.message.QueryMsgByUniqueKeySubCommand;
import org.apache.rocketmq.tools.command.message.SendMessageCommand;

/** The official 5.2.0 {@code mqadmin}, run in this JVM through {@code MQAdminStartup}. */
public final class MqAdmin {

    /**
     * Subcommands that create their client once and keep it after shutting it down: a second run in the same JVM
     * fails ("SHUTDOWN_ALREADY") or asks the first run's NameServer. Each mqadmin process runs once; here the field
     * is cleared before each run.
     */
    private static final Map<Class<?>, String> KEPT_CLIENTS = Map.of(SendMessageCommand.class, "producer",
        ConsumeMessageCommand.class, "defaultMQPullConsumer",
        QueryMsgByUniqueKeySubCommand.class, "defaultMQAdminExt",
        BrokerConsumeStatsSubCommad.class, "defaultMQAdminExt");

    private MqAdmin() {
    }

    @SuppressWarnings("unchecked")
    private static void forgetKeptClients() {
        try {
            Field commands = MQAdminStartup.class.getDeclaredField("SUB_COMMANDS");
            commands.setAccessible(true);
            for (SubCommand command : (List<SubCommand>) commands.get(null)) {
                String name = KEPT_CLIENTS.get(command.getClass());
                if (name != null) {
                    Field client = command.getClass().getDeclaredField(name);
                    client.setAccessible(true);
                    client.set(command, null);
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the official MQAdminStartup changed", e);
        }
    }

    /** Runs one subcommand and returns what it printed (stdout and stderr, where it prints its errors). */
    public static synchronized String run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        forgetKeptClients();
        try {
            MQAdminStartup.main0(args, null);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        out.println("mqadmin " + String.join(" ", args) + "\n" + text);
        return text;
    }
}

package io.basalt.it;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.apache.rocketmq.tools.command.MQAdminStartup;

/** The official 5.2.0 {@code mqadmin}, run in this JVM through {@code MQAdminStartup}. */
public final class MqAdmin {

    private MqAdmin() {
    }

    /** Runs one subcommand and returns what it printed (stdout and stderr, where it prints its errors). */
    public static synchronized String run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
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

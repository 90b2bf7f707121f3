package io.basalt.tools.admin;

import org.apache.rocketmq.tools.command.MQAdminStartup;

/**
 * {@code bin/mqadmin}: the official RocketMQ 5.2.0 admin tool with one command its release lacks,
 * {@link ResumeCheckHalfMessageCommand resumeCheckHalfMessage} (the request, RESUME_CHECK_HALF_MESSAGE, is in the
 * 5.2.0 admin API but no subcommand sends it). Every other command is RocketMQ's own, unchanged.
 */
public final class MqAdmin {
    private MqAdmin() {
    }

    public static void main(String[] args) {
        MQAdminStartup.initCommand(new ResumeCheckHalfMessageCommand());
        MQAdminStartup.main(args);
    }
}

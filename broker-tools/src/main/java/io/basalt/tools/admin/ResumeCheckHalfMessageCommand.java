package io.basalt.tools.admin;

import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.apache.rocketmq.tools.command.SubCommand;
import org.apache.rocketmq.tools.command.SubCommandException;

/**
 * {@code mqadmin resumeCheckHalfMessage -i <msgId> [-t <topic>]}: puts a transactional half message that was given up
 * after its last check (moved to {@code TRANS_CHECK_MAX_TIME_TOPIC}) back into the half topic with its check count at
 * 0, so the back-check asks its producer again (RESUME_CHECK_HALF_MESSAGE, through
 * {@link DefaultMQAdminExt#resumeCheckHalfMessage}). Without {@code -t}, {@code -i} is the given-up record's
 * offsetMsgId (the broker's transaction.log names it); with {@code -t TRANS_CHECK_MAX_TIME_TOPIC}, {@code -i} may be the
 * message's client id (UNIQ_KEY), looked up in that topic.
 */
final class ResumeCheckHalfMessageCommand implements SubCommand {
    @Override
    public String commandName() {
        return "resumeCheckHalfMessage";
    }

    @Override
    public String commandDesc() {
        return "Resume the back-check of a transactional half message given up into TRANS_CHECK_MAX_TIME_TOPIC.";
    }

    @Override
    public Options buildCommandlineOptions(Options options) {
        Option id = new Option("i", "msgId", true, "offsetMsgId of the given-up record, or its UNIQ_KEY with -t");
        id.setRequired(true);
        options.addOption(id);
        Option topic = new Option("t", "topic", true, "the topic to find -i in (TRANS_CHECK_MAX_TIME_TOPIC)");
        topic.setRequired(false);
        options.addOption(topic);
        return options;
    }

    @Override
    public void execute(CommandLine commandLine, Options options, RPCHook rpcHook) throws SubCommandException {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(rpcHook);
        admin.setInstanceName(Long.toString(System.currentTimeMillis()));
        try {
            admin.start();
            String msgId = commandLine.getOptionValue('i').trim();
            boolean resumed = commandLine.hasOption('t')
                ? admin.resumeCheckHalfMessage(commandLine.getOptionValue('t').trim(), msgId)
                : admin.resumeCheckHalfMessage(msgId);
            System.out.printf("resume check half message %s: %s%n", msgId, resumed ? "success" : "failed");
        } catch (Exception e) {
            throw new SubCommandException(getClass().getSimpleName() + " command failed", e);
        } finally {
            admin.shutdown();
        }
    }
}

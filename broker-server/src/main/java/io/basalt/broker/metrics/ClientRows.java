package io.basalt.broker.metrics;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.ProducerRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status page's client rows: how many producers and consumers each group has online, per protocol
 * ({@code remoting} or {@code grpc}), so that 5.x SDK clients show next to remoting ones.
 */
final class ClientRows {
    /** @param kind {@code producer} or {@code consumer} */
    record Row(String kind, String group, String protocol, int clients) { }

    private ClientRows() {
    }

    static List<Row> of(ClientManager clients) {
        Map<List<String>, Integer> counts = new TreeMap<>((a, b) -> String.join("\u0001", a)
            .compareTo(String.join("\u0001", b)));
        clients.producers().table().forEach((group, producers) -> {
            for (ProducerRegistry.Producer p : producers) {
                counts.merge(List.of("producer", group, RocketMqMetrics.protocolOf(p.connection())), 1, Integer::sum);
            }
        });
        for (String group : clients.consumerGroupNames()) {
            ConsumerGroupInfo info = clients.consumerGroup(group);
            if (info == null) {
                continue;
            }
            for (ConsumerGroupInfo.Member m : info.members()) {
                counts.merge(List.of("consumer", group, m.protocol()), 1, Integer::sum);
            }
        }
        List<Row> rows = new ArrayList<>();
        counts.forEach((k, n) -> rows.add(new Row(k.get(0), k.get(1), k.get(2), n)));
        return rows;
    }
}

'use strict';
// Drives the official RocketMQ Node.js 5.x SDK against one gRPC endpoint and prints what happened as one JSON line
// prefixed with "RESULT ", for the Java integration test that starts the broker.
//
//   node sdk-check.js send    <endpoints> <tls|plain> <topic> <count> <runId>
//     a Producer sends <count> messages (tag, two keys, a property) and prints the receipts
//   node sdk-check.js receive <endpoints> <tls|plain> <topic> <group> <count> <timeoutMs>
//     a SimpleConsumer receives until <count> messages arrived (or the timeout), acks each, prints what it got
//
// Any failure prints "ERROR <message>" and exits with status 1; the process always exits (no lingering timers).
const { Producer, SimpleConsumer } = require('rocketmq-client-nodejs');

// The SDK logs to stdout by default; keep stdout for the result and send the SDK's log to stderr.
const logger = {
  info: (...a) => console.error('INFO', ...a),
  warn: (...a) => console.error('WARN', ...a),
  error: (...a) => console.error('ERROR-LOG', ...a),
  debug: () => {},
  trace: () => {},
};

function options(endpoints, tls) {
  return { endpoints, sslEnabled: tls === 'tls', requestTimeout: 10000, logger };
}

async function send(endpoints, tls, topic, count, runId) {
  const producer = new Producer({ ...options(endpoints, tls), topic });
  await producer.startup();
  const sent = [];
  try {
    for (let i = 0; i < count; i++) {
      const body = `${runId} body #${i}`;
      const tag = `Tag${i % 3}`;
      const keys = [`${runId}-k${i}`, `${runId}-alt${i}`];
      const receipt = await producer.send({
        topic, tag, keys, body: Buffer.from(body, 'utf8'),
        properties: new Map([['index', String(i)]]),
      });
      sent.push({ messageId: receipt.messageId, offset: receipt.offset, body, tag, keys });
    }
  } finally {
    await producer.shutdown();
  }
  return { sent };
}

async function receive(endpoints, tls, topic, group, count, timeoutMs) {
  const consumer = new SimpleConsumer({
    ...options(endpoints, tls), consumerGroup: group, awaitDuration: 3000,
    subscriptions: new Map([[topic, '*']]),
  });
  await consumer.startup();
  const received = [];
  const deadline = Date.now() + timeoutMs;
  try {
    while (received.length < count && Date.now() < deadline) {
      const messages = await consumer.receive(16, 30000);
      for (const m of messages) {
        await consumer.ack(m);
        received.push({
          messageId: m.messageId, body: m.body.toString('utf8'), tag: m.tag, keys: m.keys,
          index: m.properties.get('index'), deliveryAttempt: m.deliveryAttempt,
        });
      }
    }
  } finally {
    await consumer.shutdown();
  }
  return { received };
}

async function main(argv) {
  const [command, endpoints, tls, topic, ...rest] = argv;
  if (command === 'send') {
    return send(endpoints, tls, topic, Number(rest[0]), rest[1]);
  }
  if (command === 'receive') {
    return receive(endpoints, tls, topic, rest[0], Number(rest[1]), Number(rest[2]));
  }
  throw new Error(`unknown command ${command}: send or receive`);
}

main(process.argv.slice(2)).then(
  (result) => {
    console.log('RESULT ' + JSON.stringify(result));
    process.exit(0);
  },
  (e) => {
    console.log('ERROR ' + String(e && e.stack ? e.stack : e).replace(/\n/g, ' | '));
    process.exit(1);
  },
);

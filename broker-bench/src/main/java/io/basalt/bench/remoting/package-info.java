/** Loopback benchmarks of the remoting layer: round trips through the Basalt server and client. */
package io.basalt.bench.remoting;

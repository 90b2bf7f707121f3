/** Benchmarks of replication: puts into a master store whose slave runs on loopback. */
package io.basalt.bench.ha;

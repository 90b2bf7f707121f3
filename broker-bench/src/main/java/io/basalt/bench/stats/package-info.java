/** Benchmarks of the statistics counted on the send and pull paths. */
package io.basalt.bench.stats;

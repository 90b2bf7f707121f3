/** Benchmarks of the background service threads' hand-offs. */
package io.basalt.bench.service;

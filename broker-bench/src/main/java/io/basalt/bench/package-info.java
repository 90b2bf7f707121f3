/** JMH benchmarks of Basalt's hot paths. Run with {@code java -jar broker-bench/target/benchmarks.jar}. */
package io.basalt.bench;

/**
 * Broker-side SQL92 message filtering ({@code MessageSelector.bySql}, {@code enablePropertyFilter}):
 * RocketMQ 5.2.0's selector grammar (generated parser, {@code SqlSelector.g4}), its semantics
 * ({@link io.basalt.broker.filter.SqlCompiler}, {@link io.basalt.broker.filter.Expression},
 * {@link io.basalt.broker.filter.Values}), compiled filters evaluated against the properties of stored
 * records ({@link io.basalt.broker.filter.SqlFilter}), and the per group and topic cache that heartbeats,
 * CHECK_CLIENT_CONFIG and pulls use ({@link io.basalt.broker.filter.ConsumerFilters}).
 */
package io.basalt.broker.filter;

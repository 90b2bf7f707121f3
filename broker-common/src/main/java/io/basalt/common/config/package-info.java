/**
 * The configuration model every module shares: a {@link io.basalt.common.config.ConfigKey} per
 * setting (name, type with its range, default, one line of meaning), a
 * {@link io.basalt.common.config.KeyTable} per module declared next to the code that reads the
 * keys, and {@link io.basalt.common.config.ConfigReader}, which turns settings into
 * {@link io.basalt.common.config.ConfigValues}. Immutable config objects are built from those values
 * only. Which file the settings come from, and what to do with keys no table knows, is the
 * broker's business ({@code io.basalt.broker.config}).
 */
package io.basalt.common.config;

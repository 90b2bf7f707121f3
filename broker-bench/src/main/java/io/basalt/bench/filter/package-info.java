/** The broker's message filters per message: tag hash codes against SQL92 selectors on stored properties. */
package io.basalt.bench.filter;

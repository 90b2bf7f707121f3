/** The broker: configuration, request processors, start-up and metrics. */
package io.basalt.broker;

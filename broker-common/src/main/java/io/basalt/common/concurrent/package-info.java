/** Thread factories shared by every module's executors and event loops. */
package io.basalt.common.concurrent;

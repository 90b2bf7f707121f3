/** The slave side: the client that follows a master's CommitLog. */
package io.basalt.ha.slave;

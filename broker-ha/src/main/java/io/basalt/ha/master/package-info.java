/** The master side: HA port, one connection per slave, the SYNC_MASTER wait. */
package io.basalt.ha.master;

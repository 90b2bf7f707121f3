/** Master/slave replication of the CommitLog. */
package io.basalt.ha;

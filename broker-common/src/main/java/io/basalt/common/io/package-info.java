/** File and close helpers shared by the store, HA and the broker's config files. */
package io.basalt.common.io;

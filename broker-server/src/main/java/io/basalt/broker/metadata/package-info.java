/** The broker's metadata files written off the request threads ({@link io.basalt.broker.metadata.MetadataPersister}). */
package io.basalt.broker.metadata;

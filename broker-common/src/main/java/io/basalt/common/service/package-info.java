/** The background service loop every Basalt service thread runs on. */
package io.basalt.common.service;

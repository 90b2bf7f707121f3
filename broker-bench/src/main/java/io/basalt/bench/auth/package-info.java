/** Benchmarks of the access check every request passes when ACL is on. */
package io.basalt.bench.auth;

/**
 * Request dispatch: the {@link io.basalt.remoting.processor.RequestProcessor} contract and the table
 * from request code to processor and bounded {@link io.basalt.remoting.processor.RequestExecutor}.
 */
package io.basalt.remoting.processor;

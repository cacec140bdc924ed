/** The Publisher contract test suite; extend {@link PublisherContractTest} with a real broker. */
package dev.txoutbox.testing.contract;

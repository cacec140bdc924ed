/**
 * A real Kafka broker for tests, in a child JVM: {@link dev.txoutbox.kafka.testing.EmbeddedKafka}
 * (published in this module's test-jar for the examples to reuse) and {@link
 * dev.txoutbox.kafka.testing.SharedKafka}.
 */
package dev.txoutbox.kafka.testing;

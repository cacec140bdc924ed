/**
 * A real Kafka broker for tests, in a child JVM: {@link dev.txoutbox.testing.kafka.EmbeddedKafka}
 * (one per test class, or one that a test stops and starts again) and {@link
 * dev.txoutbox.testing.kafka.SharedKafka} (one per test JVM). Needs {@code
 * org.apache.kafka:kafka_2.13} on the test class path; see {@code EmbeddedKafka}.
 */
package dev.txoutbox.testing.kafka;

/**
 * Guice glue for the Kafka publisher: {@link dev.txoutbox.kafka.guice.KafkaPublisherModule}. Guice
 * is an optional dependency; only users of this package need it.
 */
package dev.txoutbox.kafka.guice;

/**
 * The Kafka publisher: {@link dev.txoutbox.kafka.KafkaPublisher} sends outbox events to Apache
 * Kafka with an idempotent producer, routed by a {@link dev.txoutbox.kafka.TopicRouter}.
 */
package dev.txoutbox.kafka;

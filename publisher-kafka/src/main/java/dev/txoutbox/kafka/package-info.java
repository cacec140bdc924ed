/**
 * The Kafka publisher: {@link dev.txoutbox.kafka.KafkaPublisher} sends outbox events to Apache
 * Kafka with an idempotent producer, routed by a {@link dev.txoutbox.kafka.KafkaRouter}; {@link
 * dev.txoutbox.kafka.KafkaPublisherProvider} makes it known to the standalone relay and the
 * benchmarks.
 *
 * <p>The package has the anatomy every txoutbox plugin has: the publisher and its builder, the
 * router (public), and inside the package a message mapper ({@code KafkaMessageMapper}: event to
 * record), a failure classifier ({@code KafkaFailureClassifier}: Kafka exception to outcome) and a
 * batch sender ({@code KafkaBatchSender}: one batch, send to last answer). The Kafka-only pieces
 * beside them are the producer's settings and waits ({@code ProducerSettings}, {@code SendLimits}),
 * its replacement after a fatal failure ({@code ProducerHolder}, with the public {@link
 * dev.txoutbox.kafka.ProducerFactory}), the missing-topic check ({@code MetadataAge}) and Kafka's
 * topic-name rules ({@code TopicNames}).
 */
package dev.txoutbox.kafka;

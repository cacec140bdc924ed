/**
 * The Amazon SQS publisher: {@link dev.txoutbox.sqs.SqsPublisher} sends outbox messages to SQS
 * standard and FIFO queues with {@code SendMessageBatch}; {@link dev.txoutbox.sqs.SqsRouter}
 * chooses each message's queue; {@link dev.txoutbox.sqs.SqsHeaders} documents the message
 * attributes and reads them back on the consumer side; {@link
 * dev.txoutbox.sqs.SqsPublisherProvider} is the publisher {@code sqs} of the standalone relay and
 * the benchmarks.
 *
 * <p>Inside, the same anatomy as every txoutbox plugin: the publisher routes each message ({@code
 * SqsRouter}), maps it to attributes ({@code SqsMessageMapper}), has it sent by {@code
 * SqsBatchSender}, and classifies what SQS answers with {@code SqsFailureClassifier}.
 */
package dev.txoutbox.sqs;

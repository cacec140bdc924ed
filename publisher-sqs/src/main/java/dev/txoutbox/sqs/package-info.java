/**
 * The Amazon SQS publisher: {@link dev.txoutbox.sqs.SqsPublisher} sends outbox messages to SQS
 * standard and FIFO queues with {@code SendMessageBatch}; {@link dev.txoutbox.sqs.SqsRouter}
 * chooses each message's queue; {@link dev.txoutbox.sqs.SqsHeaders} documents the message
 * attributes and reads them back on the consumer side.
 */
package dev.txoutbox.sqs;

/**
 * Guice glue for the SQS publisher: {@link dev.txoutbox.sqs.guice.SqsPublisherModule}. Guice is an
 * optional dependency; only this package needs it.
 */
package dev.txoutbox.sqs.guice;

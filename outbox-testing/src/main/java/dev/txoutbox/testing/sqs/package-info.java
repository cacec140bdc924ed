/**
 * An SQS-compatible broker for tests, in the test's JVM: {@link
 * dev.txoutbox.testing.sqs.ElasticMq}. Needs {@code org.elasticmq:elasticmq-rest-sqs_2.13} and
 * {@code software.amazon.awssdk:sqs} on the test class path.
 */
package dev.txoutbox.testing.sqs;

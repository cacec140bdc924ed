package dev.txoutbox.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The attribute keys of the spans txoutbox records: those of the OpenTelemetry messaging semantic
 * conventions, and txoutbox's own under the {@code txoutbox.} prefix.
 */
final class SpanAttributes {

  static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  static final AttributeKey<String> DESTINATION_NAME =
      AttributeKey.stringKey("messaging.destination.name");
  static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
  static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");

  static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("txoutbox.event.type");
  static final AttributeKey<String> AGGREGATE_TYPE =
      AttributeKey.stringKey("txoutbox.aggregate.type");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("txoutbox.attempt");
  static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("txoutbox.batch.size");
  static final AttributeKey<String> RELAY_NAME = AttributeKey.stringKey("txoutbox.relay.name");

  private SpanAttributes() {}
}

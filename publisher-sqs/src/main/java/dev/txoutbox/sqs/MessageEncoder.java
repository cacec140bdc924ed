package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * Turns an outbox message into SQS message attributes and measures it, following the rules
 * documented on {@link SqsHeaders}. Stateless and thread-safe.
 */
final class MessageEncoder {

  /** SQS's limit of message attributes per message. */
  static final int MAX_ATTRIBUTES = 10;

  private static final String STRING = "String";

  /** Stored headers that get their own attribute before any other: the W3C trace context. */
  private static final List<String> PREFERRED = List.of("traceparent", "tracestate");

  private static final Set<String> RESERVED =
      Set.of(
          OutboxHeaders.EVENT_ID,
          OutboxHeaders.EVENT_TYPE,
          OutboxHeaders.AGGREGATE_TYPE,
          OutboxHeaders.AGGREGATE_ID,
          OutboxHeaders.CREATED_AT,
          SqsHeaders.OVERFLOW_ATTRIBUTE);

  private static final Comparator<String> HEADER_ORDER =
      Comparator.<String>comparingInt(
              name -> PREFERRED.contains(name) ? PREFERRED.indexOf(name) : PREFERRED.size())
          .thenComparing(Comparator.naturalOrder());

  /** A message's attributes and its size as SQS counts it. */
  record Encoded(Map<String, MessageAttributeValue> attributes, int size) {}

  private MessageEncoder() {}

  static Encoded encode(OutboxMessage message) {
    Map<String, String> single = new LinkedHashMap<>();
    Map<String, String> overflow = new TreeMap<>();
    putIdentity(single, overflow, OutboxHeaders.EVENT_ID, message.id().toString());
    putIdentity(single, overflow, OutboxHeaders.EVENT_TYPE, message.eventType());
    putIdentity(single, overflow, OutboxHeaders.AGGREGATE_TYPE, message.aggregateType());
    putIdentity(single, overflow, OutboxHeaders.AGGREGATE_ID, message.aggregateId());
    putIdentity(single, overflow, OutboxHeaders.CREATED_AT, message.createdAt().toString());

    List<String> eligible = new ArrayList<>();
    message
        .headers()
        .forEach(
            (name, value) -> {
              if (canStandAlone(name, value) && !RESERVED.contains(name)) {
                eligible.add(name);
              } else {
                overflow.put(name, value);
              }
            });
    eligible.sort(HEADER_ORDER);
    int free = MAX_ATTRIBUTES - single.size();
    boolean needsOverflow = !overflow.isEmpty() || eligible.size() > free;
    int alone = needsOverflow ? Math.min(eligible.size(), free - 1) : eligible.size();
    for (int i = 0; i < eligible.size(); i++) {
      String name = eligible.get(i);
      (i < alone ? single : overflow).put(name, message.headers().get(name));
    }
    if (needsOverflow) {
      single.put(SqsHeaders.OVERFLOW_ATTRIBUTE, FlatJson.write(overflow));
    }

    Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
    int size = SqsText.utf8Length(message.payload());
    for (Map.Entry<String, String> e : single.entrySet()) {
      attributes.put(
          e.getKey(),
          MessageAttributeValue.builder().dataType(STRING).stringValue(e.getValue()).build());
      size += SqsText.utf8Length(e.getKey()) + STRING.length() + SqsText.utf8Length(e.getValue());
    }
    return new Encoded(attributes, size);
  }

  private static void putIdentity(
      Map<String, String> single, Map<String, String> overflow, String name, String value) {
    (canStandAlone(name, value) ? single : overflow).put(name, value);
  }

  /** SQS refuses empty values and values with characters outside its set; JSON escapes them. */
  private static boolean canStandAlone(String name, String value) {
    return SqsText.isValidAttributeName(name) && !value.isEmpty() && SqsText.isValidText(value);
  }
}

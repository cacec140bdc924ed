package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * Turns an outbox message into SQS message attributes and measures it, following the rules
 * documented on {@link SqsHeaders}. Stateless and thread-safe.
 */
final class SqsMessageMapper {

  /** SQS's limit of message attributes per message. */
  static final int MAX_ATTRIBUTES = 10;

  private static final String STRING = "String";

  /** Stored headers that get their own attribute before any other: the W3C trace context. */
  private static final List<String> PREFERRED = List.of("traceparent", "tracestate");

  private static final Comparator<String> HEADER_ORDER =
      Comparator.<String>comparingInt(
              name -> PREFERRED.contains(name) ? PREFERRED.indexOf(name) : PREFERRED.size())
          .thenComparing(Comparator.naturalOrder());

  /** A message's attributes and its size as SQS counts it. */
  record Mapped(Map<String, MessageAttributeValue> attributes, int size) {}

  private SqsMessageMapper() {}

  static Mapped map(OutboxMessage message) {
    Map<String, String> single = new LinkedHashMap<>();
    Map<String, String> overflow = new TreeMap<>();
    Map<String, String> headers = OutboxHeaders.of(message);
    List<String> eligible = new ArrayList<>();
    headers.forEach(
        (name, value) -> {
          // The identity headers come first and take their attributes before any stored header.
          if (OutboxHeaders.isReserved(name)) {
            (canStandAlone(name, value) ? single : overflow).put(name, value);
          } else if (canStandAlone(name, value) && !name.equals(SqsHeaders.OVERFLOW_ATTRIBUTE)) {
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
      (i < alone ? single : overflow).put(name, headers.get(name));
    }
    if (needsOverflow) {
      single.put(SqsHeaders.OVERFLOW_ATTRIBUTE, HeadersJson.write(overflow));
    }

    Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
    int size = SqsText.utf8Length(message.payload());
    for (Map.Entry<String, String> e : single.entrySet()) {
      attributes.put(
          e.getKey(),
          MessageAttributeValue.builder().dataType(STRING).stringValue(e.getValue()).build());
      size += SqsText.utf8Length(e.getKey()) + STRING.length() + SqsText.utf8Length(e.getValue());
    }
    return new Mapped(attributes, size);
  }

  /** SQS refuses empty values and values with characters outside its set; JSON escapes them. */
  private static boolean canStandAlone(String name, String value) {
    return SqsText.isValidAttributeName(name) && !value.isEmpty() && SqsText.isValidText(value);
  }
}

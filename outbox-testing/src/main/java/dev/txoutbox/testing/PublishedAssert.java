package dev.txoutbox.testing;

import dev.txoutbox.spi.OutboxMessage;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Collectors;
import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions on the messages a {@link RecordingPublisher} acknowledged, in the order it
 * acknowledged them; made by {@link RecordingPublisher#assertPublished()}. Each method fails with a
 * message listing what was published. Not thread-safe; it asserts on a copy taken when it was made.
 */
public final class PublishedAssert extends AbstractAssert<PublishedAssert, List<OutboxMessage>> {

  PublishedAssert(List<OutboxMessage> published) {
    super(List.copyOf(published), PublishedAssert.class);
  }

  /** Exactly {@code count} messages were published (a duplicate counts twice). */
  public PublishedAssert hasSize(int count) {
    if (actual.size() != count) {
      failWithMessage(
          "expected %d published messages but there were %d: %s", count, actual.size(), describe());
    }
    return this;
  }

  /** Nothing was published. */
  public PublishedAssert isEmpty() {
    return hasSize(0);
  }

  /** Exactly these events were published, in any order, each as often as it is listed. */
  public PublishedAssert containsExactlyIds(UUID... ids) {
    List<UUID> expected = Arrays.asList(ids);
    List<UUID> got = actual.stream().map(OutboxMessage::id).toList();
    if (!counts(got).equals(counts(expected))) {
      failWithMessage(
          "expected exactly the events %s to be published (each as often as listed: once each unless repeated) but got %s",
          expected, describe());
    }
    return this;
  }

  /** At least these events were published. */
  public PublishedAssert containsIds(UUID... ids) {
    List<UUID> got = actual.stream().map(OutboxMessage::id).toList();
    for (UUID id : ids) {
      if (!got.contains(id)) {
        failWithMessage("expected event %s to be published but got %s", id, describe());
      }
    }
    return this;
  }

  /** The published messages' event types are exactly these, in publish order. */
  public PublishedAssert containsExactlyEventTypes(String... eventTypes) {
    List<String> got = actual.stream().map(OutboxMessage::eventType).toList();
    if (!got.equals(Arrays.asList(eventTypes))) {
      failWithMessage(
          "expected the event types %s in this order but got %s",
          Arrays.asList(eventTypes), describe());
    }
    return this;
  }

  /**
   * The events of one aggregate were published with exactly these event types, in this order; other
   * aggregates' events may come between them.
   */
  public PublishedAssert inOrderForAggregate(
      String aggregateType, String aggregateId, String... eventTypes) {
    List<String> got =
        ofAggregate(aggregateType, aggregateId).stream().map(OutboxMessage::eventType).toList();
    if (!got.equals(Arrays.asList(eventTypes))) {
      failWithMessage(
          "expected aggregate %s/%s to publish %s in this order but it published %s; all: %s",
          aggregateType, aggregateId, Arrays.asList(eventTypes), got, describe());
    }
    return this;
  }

  /** Every published message carries a header {@code name}, with any value. */
  public PublishedAssert allHaveHeader(String name) {
    Objects.requireNonNull(name, "name");
    for (OutboxMessage m : actual) {
      if (!m.headers().containsKey(name)) {
        failWithMessage(
            "expected every message to carry header %s but %s has %s", name, m.id(), m.headers());
      }
    }
    return this;
  }

  /** The published event {@code id} carries the header {@code name} with {@code value}. */
  public PublishedAssert hasHeader(UUID id, String name, String value) {
    OutboxMessage m = message(id);
    if (!value.equals(m.headers().get(name))) {
      failWithMessage(
          "expected event %s to carry header %s=%s but its headers are %s",
          id, name, value, m.headers());
    }
    return this;
  }

  /** The published event {@code id} carries this JSON payload, as PostgreSQL's jsonb renders it. */
  public PublishedAssert hasPayload(UUID id, String payload) {
    OutboxMessage m = message(id);
    if (!m.payload().equals(payload)) {
      failWithMessage(
          "expected event %s to carry payload %s but it carries %s", id, payload, m.payload());
    }
    return this;
  }

  /** The published messages of one aggregate, in publish order. */
  private List<OutboxMessage> ofAggregate(String aggregateType, String aggregateId) {
    return actual.stream()
        .filter(m -> m.aggregateType().equals(aggregateType) && m.aggregateId().equals(aggregateId))
        .toList();
  }

  private OutboxMessage message(UUID id) {
    for (OutboxMessage m : actual) {
      if (m.id().equals(id)) {
        return m;
      }
    }
    failWithMessage("expected event %s to be published but got %s", id, describe());
    throw new AssertionError("unreachable");
  }

  private String describe() {
    return actual.stream()
        .map(m -> m.eventType() + " " + m.aggregateType() + "/" + m.aggregateId() + " " + m.id())
        .toList()
        .toString();
  }

  /** How often each id occurs in {@code ids}. */
  private static Map<UUID, Long> counts(List<UUID> ids) {
    return ids.stream().collect(Collectors.groupingBy(id -> id, Collectors.counting()));
  }
}

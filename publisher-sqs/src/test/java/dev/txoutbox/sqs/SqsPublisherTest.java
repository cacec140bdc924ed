package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static dev.txoutbox.sqs.Messages.payloadOfBytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/** SqsPublisher against ElasticMQ: batching, failures, FIFO and attributes. */
class SqsPublisherTest {

  private static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(20);

  private static ElasticMq sqs;

  @BeforeAll
  static void startElasticMq() {
    sqs = ElasticMq.start();
  }

  @AfterAll
  static void stopElasticMq() {
    sqs.close();
  }

  @BeforeEach
  void forgetRequests() {
    sqs.batchRequests().clear();
  }

  private static SqsPublisher publisherTo(String aggregateType, String queue) {
    return SqsPublisher.builder().client(sqs.client()).route(aggregateType, queue).build();
  }

  @Test
  void splitsMoreThanTenMessagesIntoSeveralBatchRequests() throws Exception {
    String queue = sqs.createQueue("split", false);
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      batch.add(message("split", "a-" + i, "{\"i\":" + i + "}"));
    }

    try (SqsPublisher publisher = publisherTo("split", queue)) {
      assertThat(publisher.publish(batch)).hasSize(25).allMatch(PublishResult::isPublished);
    }

    assertThat(sqs.batchRequests())
        .extracting(r -> r.entries().size())
        .hasSize(3)
        .allMatch(n -> n <= 10)
        .satisfies(sizes -> assertThat(sizes.stream().mapToInt(n -> n).sum()).isEqualTo(25));
    assertThat(sqs.receive(queue, 25, RECEIVE_TIMEOUT)).hasSize(25);
  }

  @Test
  void startsANewBatchRequestWhenTheNextMessageWouldPassTheByteLimit() throws Exception {
    String queue = sqs.createQueue("bytes", false);
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      batch.add(message("bytes", "a-" + i, payloadOfBytes(1_500)));
    }

    try (SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs.client())
            .route("bytes", queue)
            .maxMessageBytes(2_048)
            .maxBatchBytes(4_096)
            .build()) {
      assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);
    }

    // each message is 1,500 bytes of body plus its attributes: two fit in 4 KiB, three do not
    assertThat(sqs.batchRequests()).hasSize(3).allMatch(r -> r.entries().size() == 2);
    assertThat(sqs.receive(queue, 6, RECEIVE_TIMEOUT)).hasSize(6);
  }

  @Test
  void rejectsAMessageOverTheSizeLimitBeforeSendingIt() throws Exception {
    String queue = sqs.createQueue("oversized", false);
    OutboxMessage small = message("big", "a", "{}");
    // the body alone fits the limit exactly; its attributes push it over
    OutboxMessage big = message("big", "b", payloadOfBytes(SqsPublisher.SQS_MAX_BYTES));

    List<PublishResult> results;
    try (SqsPublisher publisher = publisherTo("big", queue)) {
      results = publisher.publish(List.of(small, big));
    }

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).isPermanent()).isTrue();
    assertThat(results.get(1).reason()).contains("over the SQS limit of 1048576");
    assertThat(sentEntries()).extracting(SendMessageBatchRequestEntry::id).containsExactly("0");
  }

  @Test
  void reportsEntriesSqsRefusesAsPermanentAndPublishesTheRestOfTheBatch() throws Exception {
    String queue = sqs.createQueue("partial", false);
    List<OutboxMessage> batch =
        List.of(
            message("partial", "a", "{\"ok\":1}"),
            message("partial", "b", "{\"reject-me\":1}"),
            message("partial", "c", "{\"ok\":2}"),
            message("partial", "d", "{\"reject-me\":2}"),
            message("partial", "e", "{\"ok\":3}"));

    List<PublishResult> results = publishRejecting("partial", queue, batch);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.PERMANENT_FAILURE,
            Status.PUBLISHED,
            Status.PERMANENT_FAILURE,
            Status.PUBLISHED);
    assertThat(results.get(1).reason()).contains("InvalidMessageContents");
    assertThat(sqs.batchRequests()).hasSize(1);
    assertThat(sqs.receive(queue, 3, RECEIVE_TIMEOUT))
        .extracting(Message::body)
        .containsExactlyInAnyOrder("{\"ok\":1}", "{\"ok\":2}", "{\"ok\":3}");
  }

  @Test
  void onAStandardQueueTooNoEventAfterARefusedOneOfItsAggregateIsReportedPublished()
      throws Exception {
    String queue = sqs.createQueue("refused-run", false);
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      batch.add(message("run", "a", i == 3 ? "{\"reject-me\":3}" : "{\"i\":" + i + "}"));
    }
    batch.add(message("run", "b", "{\"other\":1}"));

    List<PublishResult> results = publishRejecting("run", queue, batch);

    assertThat(results.subList(0, 3)).allMatch(PublishResult::isPublished);
    assertThat(results.get(3).isPermanent()).isTrue();
    assertThat(results.subList(4, 25)).noneMatch(PublishResult::isPublished);
    assertThat(results.get(25).isPublished()).isTrue();
    // a's first request carried entries 0 to 9; the later ones were never sent
    assertThat(sentEntries())
        .extracting(e -> Integer.parseInt(e.id()))
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 25);
  }

  @Test
  void rejectsAPayloadWithCharactersSqsRefusesBeforeSendingIt() throws Exception {
    String queue = sqs.createQueue("chars", false);
    List<OutboxMessage> batch =
        List.of(
            message("chars", "a", "{\"ok\":1}"),
            message("chars", "b", "{\"bad\":\"\uffff\"}"),
            message("chars", "c", "{\"bad\":\"\u0001\"}"),
            message("chars", "d", "{\"ok\":2}"));

    List<PublishResult> results;
    try (SqsPublisher publisher = publisherTo("chars", queue)) {
      results = publisher.publish(batch);
    }

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED, Status.PERMANENT_FAILURE, Status.PERMANENT_FAILURE, Status.PUBLISHED);
    assertThat(results.get(1).reason()).contains("U+FFFF at index 8");
    assertThat(results.get(2).reason()).contains("U+0001 at index 8");
    assertThat(sentEntries())
        .extracting(SendMessageBatchRequestEntry::id)
        .containsExactly("0", "3");
    assertThat(sqs.receive(queue, 2, RECEIVE_TIMEOUT)).hasSize(2);
  }

  @Test
  void anAggregateTypeWithoutAQueueIsAPermanentFailure() throws Exception {
    String queue = sqs.createQueue("routed", false);

    List<PublishResult> results;
    try (SqsPublisher publisher = publisherTo("routed", queue)) {
      results =
          publisher.publish(List.of(message("routed", "a", "{}"), message("stray", "b", "{}")));
    }

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).isPermanent()).isTrue();
    assertThat(results.get(1).reason())
        .contains("the SQS queue router has no route for aggregate type 'stray'");
  }

  @Test
  void aQueueNameThatDoesNotExistIsAPermanentFailure() throws Exception {
    List<PublishResult> results;
    try (SqsPublisher publisher = publisherTo("ghost", "no-such-queue")) {
      results = publisher.publish(List.of(message("ghost", "a", "{}")));
    }

    assertThat(results.get(0).isPermanent()).isTrue();
    assertThat(results.get(0).reason()).contains("no-such-queue");
    assertThat(sqs.batchRequests()).isEmpty();
  }

  @Test
  void aCustomRouterChoosesTheQueueByUrl() throws Exception {
    String even = sqs.createQueue("even", false);
    String odd = sqs.createQueue("odd", false);
    String evenUrl = sqs.queueUrl(even);
    String oddUrl = sqs.queueUrl(odd);
    List<OutboxMessage> batch =
        IntStream.range(0, 6).mapToObj(i -> message("n", Integer.toString(i), "{}")).toList();

    try (SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs.client())
            .router(m -> Optional.of(Integer.parseInt(m.aggregateId()) % 2 == 0 ? evenUrl : oddUrl))
            .build()) {
      assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);
    }

    assertThat(sqs.receive(even, 3, RECEIVE_TIMEOUT))
        .extracting(m -> SqsHeaders.read(m.messageAttributes()).get(OutboxHeaders.AGGREGATE_ID))
        .containsExactlyInAnyOrder("0", "2", "4");
    assertThat(sqs.receive(odd, 3, RECEIVE_TIMEOUT)).hasSize(3);
  }

  @Test
  void standardQueueMessagesCarryNoGroupOrDeduplicationId() throws Exception {
    String queue = sqs.createQueue("standard", false);

    try (SqsPublisher publisher = publisherTo("std", queue)) {
      assertThat(publisher.publish(List.of(message("std", "a", "{}"))))
          .allMatch(PublishResult::isPublished);
    }

    assertThat(sentEntries())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.messageGroupId()).isNull();
              assertThat(e.messageDeduplicationId()).isNull();
            });
  }

  @Test
  void fifoMessagesUseTheAggregateIdAsGroupAndTheEventIdAsDeduplicationId() throws Exception {
    String queue = sqs.createQueue("ids", true);
    OutboxMessage sent = message("order", "order-42", "{\"total\":42}");

    try (SqsPublisher publisher = publisherTo("order", queue)) {
      assertThat(publisher.publish(List.of(sent))).allMatch(PublishResult::isPublished);
    }

    Message received = sqs.receive(queue, 1, RECEIVE_TIMEOUT).get(0);
    assertThat(received.attributes())
        .containsEntry(MessageSystemAttributeName.MESSAGE_GROUP_ID, "order-42")
        .containsEntry(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID, sent.id().toString());
  }

  @Test
  void anAggregateIdSqsRefusesAsGroupIdIsHashedIntoAStableGroup() throws Exception {
    String queue = sqs.createQueue("hashed", true);
    String longId = "order with spaces " + "x".repeat(200);
    List<OutboxMessage> batch =
        List.of(message("order", longId, "{\"n\":1}"), message("order", longId, "{\"n\":2}"));

    try (SqsPublisher publisher = publisherTo("order", queue)) {
      assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);
    }

    List<Message> received = sqs.receive(queue, 2, RECEIVE_TIMEOUT);
    assertThat(received).extracting(Message::body).containsExactly("{\"n\":1}", "{\"n\":2}");
    assertThat(received)
        .extracting(m -> m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
        .containsOnly(SqsText.groupId(longId))
        .allMatch(g -> g.startsWith("sha256-") && g.length() == 71);
    assertThat(SqsHeaders.read(received.get(0).messageAttributes()))
        .containsEntry(OutboxHeaders.AGGREGATE_ID, longId);
  }

  @Test
  void aFifoMessageSentTwiceWithinTheDeduplicationWindowIsDeliveredOnce() throws Exception {
    String queue = sqs.createQueue("dedup", true);
    OutboxMessage event = message("order", "order-7", "{\"once\":true}");

    try (SqsPublisher publisher = publisherTo("order", queue)) {
      assertThat(publisher.publish(List.of(event))).allMatch(PublishResult::isPublished);
      // a relay retry after a lost acknowledgement sends the very same event again
      assertThat(publisher.publish(List.of(event))).allMatch(PublishResult::isPublished);
    }

    assertThat(sqs.approximateDepth(queue)).isEqualTo(1);
    assertThat(sqs.receive(queue, 1, RECEIVE_TIMEOUT))
        .extracting(Message::body)
        .containsExactly("{\"once\":true}");
    assertThat(sqs.approximateDepth(queue)).isZero();
  }

  @Test
  void fifoKeepsEachAggregatesOrderAcrossManyBatchRequests() throws Exception {
    String queue = sqs.createQueue("order", true);
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      // aggregate 0 has half of the batch, the others share the rest
      String aggregate = i % 2 == 0 ? "agg-0" : "agg-" + (1 + i % 7);
      batch.add(message("order", aggregate, "{\"i\":" + i + "}"));
    }

    try (SqsPublisher publisher = publisherTo("order", queue)) {
      assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);
    }

    assertThat(sqs.batchRequests()).hasSizeGreaterThanOrEqualTo(20);
    Map<String, List<Integer>> received = new LinkedHashMap<>();
    for (Message m : sqs.receive(queue, 200, RECEIVE_TIMEOUT)) {
      received
          .computeIfAbsent(
              m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
              g -> new ArrayList<>())
          .add(Integer.parseInt(m.body().replaceAll("\\D", "")));
    }
    Map<String, List<Integer>> expected =
        batch.stream()
            .collect(
                Collectors.groupingBy(
                    OutboxMessage::aggregateId,
                    Collectors.mapping(
                        m -> Integer.parseInt(m.payload().replaceAll("\\D", "")),
                        Collectors.toList())));
    assertThat(received).isEqualTo(expected);
  }

  @Test
  void moreThanTenHeadersAllArriveWithTheRestInOneJsonAttribute() throws Exception {
    String queue = sqs.createQueue("headers", false);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    headers.put("tracestate", "vendor=1");
    for (int i = 0; i < 10; i++) {
      headers.put("user-header-" + i, "value " + i);
    }
    headers.put("has space", "name SQS refuses");
    headers.put("AWS.reserved", "prefix SQS refuses");
    headers.put("empty", "");
    headers.put(OutboxHeaders.EVENT_ID, "a stored header may not shadow the event id");
    OutboxMessage sent = message("h", "a", "{}", headers);

    try (SqsPublisher publisher = publisherTo("h", queue)) {
      assertThat(publisher.publish(List.of(sent))).allMatch(PublishResult::isPublished);
    }

    Message received = sqs.receive(queue, 1, RECEIVE_TIMEOUT).get(0);
    assertThat(received.messageAttributes())
        .hasSize(10)
        .containsKeys(
            OutboxHeaders.EVENT_ID,
            OutboxHeaders.EVENT_TYPE,
            OutboxHeaders.AGGREGATE_TYPE,
            OutboxHeaders.AGGREGATE_ID,
            OutboxHeaders.CREATED_AT,
            "traceparent",
            "tracestate",
            "user-header-0",
            "user-header-1",
            SqsHeaders.OVERFLOW_ATTRIBUTE);
    Map<String, String> read = SqsHeaders.read(received);
    Map<String, String> expected = new LinkedHashMap<>(headers);
    expected.put(OutboxHeaders.EVENT_ID, sent.id().toString());
    expected.put(OutboxHeaders.EVENT_TYPE, sent.eventType());
    expected.put(OutboxHeaders.AGGREGATE_TYPE, sent.aggregateType());
    expected.put(OutboxHeaders.AGGREGATE_ID, sent.aggregateId());
    expected.put(OutboxHeaders.CREATED_AT, OutboxHeaders.formatCreatedAt(sent.createdAt()));
    assertThat(read).isEqualTo(expected);
  }

  @Test
  void headerValuesWithCharactersSqsRefusesArriveEscapedInTheJsonAttribute() throws Exception {
    String queue = sqs.createQueue("escaped", false);
    Map<String, String> headers =
        Map.of(
            "odd",
            "bell\u0007 nul\u0000 del\u007f and \uffff",
            "名前 with space",
            "値 😀 \"quoted\"",
            "plain",
            "café ✓");
    OutboxMessage sent = message("e", "a", "{}", headers);

    try (SqsPublisher publisher = publisherTo("e", queue)) {
      assertThat(publisher.publish(List.of(sent))).allMatch(PublishResult::isPublished);
    }

    Message received = sqs.receive(queue, 1, RECEIVE_TIMEOUT).get(0);
    assertThat(received.messageAttributes())
        .containsKey("plain")
        .doesNotContainKeys("odd", "名前 with space");
    assertThat(SqsHeaders.read(received.messageAttributes())).containsAllEntriesOf(headers);
  }

  /** Publishes {@code batch} while SQS refuses every entry whose body holds {@code reject-me}. */
  private static List<PublishResult> publishRejecting(
      String aggregateType, String queue, List<OutboxMessage> batch) throws InterruptedException {
    sqs.rejectEntriesContaining("reject-me");
    try (SqsPublisher publisher = publisherTo(aggregateType, queue)) {
      return publisher.publish(batch);
    } finally {
      sqs.rejectEntriesContaining(null);
    }
  }

  private static List<SendMessageBatchRequestEntry> sentEntries() {
    return sqs.batchRequests().stream()
        .map(SendMessageBatchRequest::entries)
        .flatMap(List::stream)
        .toList();
  }
}

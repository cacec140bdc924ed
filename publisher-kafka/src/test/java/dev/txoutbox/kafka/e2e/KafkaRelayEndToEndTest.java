package dev.txoutbox.kafka.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.DeadLetter;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.kafka.guice.KafkaPublisherModule;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.testing.kafka.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Writer → relay → Kafka → consumer, on the real PostgreSQL and a real broker. */
class KafkaRelayEndToEndTest {

  private static final Pattern STEP = Pattern.compile("\"step\":\\s*(\\d+)");

  private final EmbeddedKafka kafka = SharedKafka.broker();
  private RelayFixture fixture;

  @BeforeEach
  void openDatabase() {
    fixture = new RelayFixture("kafka_e2e");
  }

  @AfterEach
  void dropDatabase() {
    fixture.close();
  }

  @Test
  void tenThousandEventsAcrossAHundredAggregatesArriveInOrderPerAggregate() throws Exception {
    kafka.createTopic("e2e.order", 6, Map.of());
    int aggregates = 100;
    int perAggregate = 100;
    try (KafkaPublisher publisher =
            KafkaPublisher.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix("e2e.")
                .build();
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(fixture.db.dataSource())
                .schema(fixture.db.schema())
                .publisher(publisher)
                .config(RelayConfig.builder().batchSize(500).workers(1).build())
                .build()) {
      relay.start();
      // One writer, so transactions commit in insert order while the relay drains them.
      for (int n = 0; n < perAggregate; n++) {
        int step = n;
        fixture.write(
            IntStream.range(0, aggregates)
                .mapToObj(
                    a ->
                        OutboxEvent.of(
                            "order",
                            "order-" + a,
                            "order.step",
                            "{\"aggregate\":" + a + ",\"step\":" + step + "}"))
                .collect(Collectors.toList()));
      }
      await().atMost(RelayFixture.patience()).until(() -> fixture.admin.pendingCount() == 0);
    }

    List<ConsumerRecord<String, byte[]>> records =
        kafka.read("e2e.order", aggregates * perAggregate, RelayFixture.patience());
    assertThat(records).hasSize(aggregates * perAggregate);
    assertThat(fixture.admin.deadLetterCount()).isZero();
    Map<String, List<Integer>> stepsByAggregate = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      Matcher step = STEP.matcher(new String(record.value(), StandardCharsets.UTF_8));
      assertThat(step.find()).isTrue();
      stepsByAggregate
          .computeIfAbsent(record.key(), k -> new ArrayList<>())
          .add(Integer.valueOf(step.group(1)));
    }
    List<Integer> inOrder = IntStream.range(0, perAggregate).boxed().collect(Collectors.toList());
    assertThat(stepsByAggregate).hasSize(aggregates);
    stepsByAggregate.forEach(
        (aggregate, steps) -> assertThat(steps).as(aggregate).isEqualTo(inOrder));
  }

  @Test
  void anOversizedRecordBecomesADeadLetterWithoutBlockingTheOthers() {
    kafka.createTopic("e2e.parcel", 1, Map.of("max.message.bytes", "16384"));
    RelayFixture.CountingListener listener = new RelayFixture.CountingListener();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      events.add(OutboxEvent.of("parcel", "p-" + i, "parcel.sent", "{\"i\":" + i + "}"));
    }
    events.add(
        25,
        OutboxEvent.of(
            "parcel", "p-huge", "parcel.sent", "{\"pad\":\"" + "z".repeat(40_000) + "\"}"));
    List<UUID> ids = fixture.write(events);
    UUID huge = ids.get(25);

    try (KafkaPublisher publisher =
            KafkaPublisher.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix("e2e.")
                .build();
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(fixture.db.dataSource())
                .schema(fixture.db.schema())
                .publisher(publisher)
                .listener(listener)
                .build()) {
      relay.start();
      await().atMost(RelayFixture.patience()).until(() -> fixture.admin.pendingCount() == 0);
    }

    assertThat(fixture.admin.deadLetterCount()).isEqualTo(1);
    List<DeadLetter> deadLetters = fixture.admin.deadLetters(null, 10);
    assertThat(deadLetters).extracting(DeadLetter::id).containsExactly(huge);
    assertThat(deadLetters.get(0).lastError()).contains("RecordTooLargeException");
    assertThat(listener.retries).hasValue(0);
    Set<String> arrived =
        kafka.read("e2e.parcel", 50, RelayFixture.patience()).stream()
            .map(RelayFixture::eventId)
            .collect(Collectors.toSet());
    Set<String> expected =
        ids.stream().filter(id -> !id.equals(huge)).map(UUID::toString).collect(Collectors.toSet());
    assertThat(arrived).isEqualTo(expected);
  }

  @Test
  void guiceWiresTheOutboxModuleToTheKafkaPublisherModule() {
    kafka.createTopic("e2e.invoice", 1, Map.of());
    Injector injector =
        Guice.createInjector(
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(DataSource.class).toInstance(fixture.db.dataSource());
              }
            },
            OutboxModule.builder().schema(fixture.db.schema()).bindDslContext().build(),
            new KafkaPublisherModule(
                KafkaPublisher.builder()
                    .bootstrapServers(kafka.bootstrapServers())
                    .topicPrefix("e2e.")));
    Outbox outbox = injector.getInstance(Outbox.class);
    DSLContext dsl = injector.getInstance(DSLContext.class);
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    try (Publisher publisher = injector.getInstance(Publisher.class)) {
      relay.start();
      UUID id =
          dsl.transactionResult(
              tx -> outbox.record(tx.dsl(), "invoice", "i-1", "invoice.issued", "{\"total\":42}"));

      List<ConsumerRecord<String, byte[]>> records =
          kafka.read("e2e.invoice", 1, RelayFixture.patience());
      assertThat(records).hasSize(1);
      assertThat(records.get(0).key()).isEqualTo("i-1");
      assertThat(RelayFixture.header(records.get(0), OutboxHeaders.EVENT_ID))
          .isEqualTo(id.toString());
    } finally {
      relay.close();
    }
  }
}

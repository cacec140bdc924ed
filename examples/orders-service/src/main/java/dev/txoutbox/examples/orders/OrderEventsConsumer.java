package dev.txoutbox.examples.orders;

import dev.txoutbox.inbox.InboxEvent;
import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.kafka.KafkaHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A downstream service reading {@code order.created} events from Kafka and adding each order to its
 * customer's totals ({@code customer_totals}), exactly once per event thanks to the consumer's
 * {@link OutboxInbox} in its own schema: an event already processed is dropped, and counted as a
 * re-read when its record was read before (the group re-joined with offsets it had not committed,
 * as after a broker outage or a rebalance) or as a broker duplicate when it is another record of
 * the same event (the relay sent it again after a lost acknowledgement).
 *
 * <p>Each poll's records are processed in one transaction: for every record, mark the event and,
 * when it is new, update the totals. After the commit the offsets are committed asynchronously; a
 * crash or an outage in between replays records, which the marks absorb. If the transaction fails,
 * the consumer rewinds to the first record of the poll and tries again a second later, so a
 * database hiccup loses nothing.
 *
 * <p>One thread ({@code orders-consumer}) polls; {@link #close()} stops it. Thread-safe.
 */
final class OrderEventsConsumer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OrderEventsConsumer.class);
  private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

  private final KafkaConsumer<String, byte[]> consumer;
  private final String topic;
  private final DSLContext dsl;
  private final OutboxInbox inbox;
  private final CustomerTotalsUpsert addToTotals;
  private final RunTally tally;
  private final Thread thread;
  private final AtomicBoolean closed = new AtomicBoolean();

  OrderEventsConsumer(
      String bootstrapServers,
      String topic,
      String groupId,
      DSLContext dsl,
      OutboxInbox inbox,
      String consumerSchema,
      RunTally tally) {
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG,
                groupId,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                500),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    this.topic = topic;
    this.dsl = dsl;
    this.inbox = inbox;
    this.addToTotals = new CustomerTotalsUpsert(consumerSchema);
    this.tally = tally;
    this.thread = new Thread(this::run, "orders-consumer");
  }

  void start() {
    thread.start();
  }

  private void run() {
    try {
      consumer.subscribe(List.of(topic));
      while (!closed.get()) {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) {
          continue;
        }
        if (processAll(records)) {
          consumer.commitAsync(
              (offsets, error) -> {
                if (error != null) {
                  log.debug("offset commit failed; the records will be redelivered", error);
                }
              });
        } else {
          rewind(records);
          Thread.sleep(RETRY_DELAY.toMillis());
        }
      }
    } catch (WakeupException e) {
      // close() woke us
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("the order consumer stopped", e);
    } finally {
      try {
        consumer.commitSync(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.debug("final offset commit failed", e);
      }
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /** Processes one poll in one transaction; returns false if it rolled back. */
  private boolean processAll(ConsumerRecords<String, byte[]> records) {
    List<String> processed = new ArrayList<>();
    Map<String, Boolean> consumed = new LinkedHashMap<>(); // position -> already processed
    int[] skipped = {0};
    try {
      dsl.transaction(
          configuration -> {
            DSLContext tx = configuration.dsl();
            for (ConsumerRecord<String, byte[]> record : records) {
              UUID eventId;
              try {
                eventId = InboxEvent.from(KafkaHeaders.read(record)).eventId();
              } catch (IllegalArgumentException notAnEvent) {
                // Never processable: skip it rather than block the partition.
                log.warn("skipping a record: {}", notAnEvent.getMessage());
                skipped[0]++;
                continue;
              }
              boolean processedNow = inbox.firstTime(tx, OrdersModule.CONSUMER_NAME, eventId);
              if (processedNow) {
                addToTotals.apply(tx, new String(record.value(), StandardCharsets.UTF_8));
                processed.add(String.valueOf(record.key()));
              }
              consumed.put(
                  record.topic() + "-" + record.partition() + "@" + record.offset(), !processedNow);
            }
          });
    } catch (RuntimeException e) {
      log.warn(
          "processing {} records failed; retrying them in {} ms",
          records.count(),
          RETRY_DELAY.toMillis(),
          e);
      return false;
    }
    // Counted only once committed.
    processed.forEach(tally::received);
    consumed.forEach(tally::consumed);
    tally.addSkipped(skipped[0]);
    return true;
  }

  /** Moves each partition back to the first record of {@code records}, so they come again. */
  private void rewind(ConsumerRecords<String, byte[]> records) {
    Map<TopicPartition, Long> first = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      first.merge(
          new TopicPartition(record.topic(), record.partition()), record.offset(), Math::min);
    }
    first.forEach(consumer::seek);
  }

  /** Stops polling, commits what was processed and closes the Kafka consumer. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (thread.getState() == Thread.State.NEW) {
      consumer.close(Duration.ofSeconds(5));
      return;
    }
    consumer.wakeup();
    try {
      thread.join(Duration.ofSeconds(15).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

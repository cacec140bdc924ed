package dev.txoutbox.examples.orders;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.kafka.guice.KafkaPublisherModule;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * One run of the order service: writers create orders (row + {@code order.created} event in one
 * transaction), the relay publishes the events to Kafka, the consumer processes each event once
 * into {@code customer_totals}; optionally the broker goes down in the middle. Prints a progress
 * line every second and returns the {@link Summary} once every event arrived or the drain timeout
 * passed. Everything it started is closed before it returns. Not thread-safe: one run per instance.
 */
final class OrdersExample {

  /** Events of aggregate type {@code order} go to topic {@value #TOPIC}. */
  static final String TOPIC_PREFIX = "txoutbox-example.";

  static final String TOPIC = TOPIC_PREFIX + CreateOrder.AGGREGATE_TYPE;
  static final int PARTITIONS = 3;
  static final String CONSUMER_GROUP = "txoutbox-orders-example";

  /** The relay: 500 events a cycle, one worker, woken by each commit. */
  static final RelayConfig RELAY_CONFIG =
      RelayConfig.builder().name("orders").batchSize(500).build();

  private static final Duration TICK = Duration.ofMillis(100);
  private static final Duration PRINT_EVERY = Duration.ofSeconds(1);

  private final RunOptions options;
  private final DataSource dataSource;
  private final KafkaBroker broker;
  private final PrintStream out;
  private final RunTally tally = new RunTally();
  private final String customerPrefix = "c" + UUID.randomUUID().toString().substring(0, 8) + "-";
  private final AtomicLong peakPending = new AtomicLong();
  private final AtomicReference<String> brokerState = new AtomicReference<>("up");
  private final AtomicReference<Duration> outageDown = new AtomicReference<>(Duration.ZERO);
  private final AtomicReference<String> outageFailure = new AtomicReference<>();

  private OrdersExample(
      RunOptions options, DataSource dataSource, KafkaBroker broker, PrintStream out) {
    this.options = options;
    this.dataSource = dataSource;
    this.broker = broker;
    this.out = out;
  }

  /**
   * Runs the example on {@code dataSource} and {@code broker}, which the caller owns and closes.
   *
   * @throws IllegalArgumentException if an outage is asked for on a broker the example did not
   *     start
   */
  static Summary run(RunOptions options, DataSource dataSource, KafkaBroker broker, PrintStream out)
      throws InterruptedException {
    if (options.brokerOutage() && !broker.isEmbedded()) {
      throw new IllegalArgumentException(
          "--broker-outage stops the embedded broker; it cannot stop the cluster given by"
              + " --bootstrap-servers");
    }
    return new OrdersExample(options, dataSource, broker, out).run();
  }

  private Summary run() throws InterruptedException {
    OrdersSchema.migrate(dataSource, options.schema());
    OrdersSchema.migrateConsumer(dataSource, options.consumerSchema());
    broker.ensureTopic(TOPIC, PARTITIONS);
    Injector injector =
        Guice.createInjector(
            new OrdersModule(dataSource, options.schema(), options.consumerSchema(), tally),
            OutboxModule.builder()
                .schema(options.schema())
                .relay(RELAY_CONFIG)
                .bindDslContext()
                .build(),
            new KafkaPublisherModule(
                KafkaPublisher.builder()
                    .bootstrapServers(broker.bootstrapServers())
                    .topicPrefix(TOPIC_PREFIX)));
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    KafkaPublisher publisher = injector.getInstance(KafkaPublisher.class);
    OrderEventsConsumer consumer = null;
    try {
      consumer =
          new OrderEventsConsumer(
              broker.bootstrapServers(),
              TOPIC,
              CONSUMER_GROUP,
              injector.getInstance(DSLContext.class),
              injector.getInstance(OutboxInbox.class),
              options.consumerSchema(),
              tally);
      consumer.start();
      relay.start();
      return drive(injector);
    } finally {
      // The relay first, so nothing is published through a closed publisher; each step runs
      // even if the one before it failed.
      try {
        relay.close();
      } finally {
        try {
          publisher.close();
        } finally {
          if (consumer != null) {
            consumer.close();
          }
        }
      }
    }
  }

  private Summary drive(Injector injector) throws InterruptedException {
    OutboxAdmin admin = injector.getInstance(OutboxAdmin.class);
    OrderWriters writers =
        new OrderWriters(
            injector.getInstance(CreateOrder.class),
            tally,
            options.orders(),
            options.writers(),
            customerPrefix);
    Thread outage =
        options.brokerOutage() ? new Thread(() -> outage(writers), "broker-outage") : null;
    long start = System.nanoTime();
    long writersDoneAt = 0;
    long nextPrint = start + PRINT_EVERY.toNanos();
    boolean timedOut = false;
    writers.start();
    if (outage != null) {
      outage.start();
    }
    try {
      while (true) {
        Thread.sleep(TICK.toMillis());
        long now = System.nanoTime();
        boolean writersDone = writers.isDone();
        if (writersDone && writersDoneAt == 0) {
          writersDoneAt = now;
        }
        boolean outageDone = outage == null || !outage.isAlive();
        boolean complete = writersDone && outageDone && tally.missing() == 0;
        if (now >= nextPrint || complete) {
          progress(admin, now - start);
          nextPrint += PRINT_EVERY.toNanos();
        }
        if (complete) {
          break;
        }
        if (writersDoneAt != 0
            && outageDone
            && now - writersDoneAt > options.drainTimeout().toNanos()) {
          timedOut = true;
          break;
        }
      }
    } finally {
      writers.stop();
      if (outage != null) {
        outage.join();
      }
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    OutboxStatus status = admin.status();
    long written = tally.written();
    long lost = tally.missing();
    boolean totalsMatch =
        CustomerTotals.match(
            injector.getInstance(DSLContext.class),
            options.schema(),
            options.consumerSchema(),
            customerPrefix,
            written);
    String failure = null;
    if (writers.failure() != null) {
      failure = "writing orders failed: " + writers.failure();
    } else if (outageFailure.get() != null) {
      failure = outageFailure.get();
    } else if (timedOut) {
      failure =
          String.format(
              Locale.ROOT,
              "%,d event(s) still missing %s after the last order was written",
              lost,
              Summary.seconds(options.drainTimeout()));
    }
    return new Summary(
        written,
        tally.published(),
        written - lost,
        tally.reReads(),
        tally.brokerDuplicates(),
        lost,
        Math.max(0, tally.received() - (written - lost)),
        tally.skipped(),
        tally.retried(),
        status.pending(),
        status.deadLetters(),
        peakPending.get(),
        outageDown.get(),
        totalsMatch,
        elapsed,
        failure);
  }

  private void progress(OutboxAdmin admin, long elapsedNanos) {
    String pending;
    try {
      long count = admin.pendingCount();
      if (!"up".equals(brokerState.get())) {
        peakPending.accumulateAndGet(count, Math::max);
      }
      pending = String.format(Locale.ROOT, "%,7d", count);
    } catch (RuntimeException e) {
      pending = "      ?";
    }
    out.printf(
        Locale.ROOT,
        "%6.1fs  written %,7d/%,d  outbox pending %s  published %,7d  received %,7d"
            + "  re-read %,5d  dup %,3d  kafka %s%n",
        elapsedNanos / 1e9,
        tally.written(),
        options.orders(),
        pending,
        tally.published(),
        tally.received(),
        tally.reReads(),
        tally.brokerDuplicates(),
        brokerState.get());
  }

  /** Stops the broker once a third of the orders are written, and starts it again later. */
  private void outage(OrderWriters writers) {
    try {
      while (tally.written() < options.orders() / 3 && !writers.isDone()) {
        Thread.sleep(TICK.toMillis());
      }
      out.printf(
          Locale.ROOT,
          "------  stopping the Kafka broker for %s: new events wait in the outbox%n",
          Summary.seconds(options.outage()));
      brokerState.set("STOPPING");
      broker.stop();
      long down = System.nanoTime();
      brokerState.set("DOWN");
      Thread.sleep(options.outage().toMillis());
      brokerState.set("STARTING");
      out.println("------  starting the Kafka broker again");
      broker.start();
      outageDown.set(Duration.ofNanos(System.nanoTime() - down));
      brokerState.set("up");
      out.printf(
          Locale.ROOT,
          "------  Kafka is back after %s down: the relay drains the outbox%n",
          Summary.seconds(outageDown.get()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outageFailure.set("interrupted during the broker outage");
    } catch (RuntimeException e) {
      outageFailure.set("the broker did not come back: " + e.getMessage());
    }
  }
}

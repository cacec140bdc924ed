package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writers at a fixed rate over a few aggregates, and relays in ordered mode publishing through a
 * publisher that checks the order: the backlog, the latency from commit to acknowledgement, and
 * order violations (an event first acknowledged after a later one of its aggregate). The writers
 * use {@code lockPerAggregate}. With {@code --publisher kafka} the events go to a real KRaft broker
 * (one topic of 3 partitions), and the topic is read back at the end to check each aggregate's
 * order as a consumer sees it.
 *
 * <p>How a relay learns of new events ({@code --wakeup}): {@code in-process} (the default) models
 * services that run their relay, each instance's writers waking its own relay after commit ({@link
 * Outbox#transactionListener()}); {@code notify} uses the LISTEN/NOTIFY trigger, as for writers in
 * other processes; {@code poll} relies on the 10–100 ms poll alone.
 *
 * <pre>
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.LiveOrderedBenchmark \
 *     [--seconds 60] [--rate 1000] [--aggregates 50] [--relays 2] [--ordering per_aggregate|none] \
 *     [--publisher noop|kafka] [--max-in-flight 1] [--wakeup in-process|notify|poll] [--warmup 0]
 * </pre>
 */
public final class LiveOrderedBenchmark {

  private static final Logger log = LoggerFactory.getLogger(LiveOrderedBenchmark.class);
  static final String SCHEMA = "live_bench";
  private static final String TOPIC = "live-orders";
  private static final int WRITERS = 8;

  private LiveOrderedBenchmark() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception | Error e) {
      log.error("benchmark failed", e);
      System.exit(1);
    }
    System.exit(0);
  }

  /**
   * Wraps the broker's publisher (or none, for the no-op case): times each event's first
   * acknowledgement and checks the order of first acknowledgements per aggregate.
   */
  private static final class CheckingBroker implements Publisher {
    final Map<UUID, Long> publishedAt = new ConcurrentHashMap<>();
    final Map<UUID, Long> sequenceOf = new ConcurrentHashMap<>();
    final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong duplicates = new AtomicLong();
    private final Publisher delegate;

    CheckingBroker(Publisher delegate) {
      this.delegate = delegate;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      List<PublishResult> results =
          delegate == null
              ? Collections.nCopies(messages.size(), PublishResult.published())
              : delegate.publish(messages);
      long now = System.nanoTime();
      for (int i = 0; i < messages.size(); i++) {
        OutboxMessage m = messages.get(i);
        if (!results.get(i).isPublished()) {
          continue;
        }
        if (publishedAt.putIfAbsent(m.id(), now) != null) {
          duplicates.incrementAndGet();
          continue;
        }
        sequenceOf.put(m.id(), m.sequence());
        Long before = lastSequence.put(m.aggregateId(), m.sequence());
        if (before != null && before > m.sequence()) {
          violations.add(m.aggregateId() + ": " + m.sequence() + " after " + before);
        }
      }
      return results;
    }

    @Override
    public void close() {
      if (delegate != null) {
        delegate.close();
      }
    }
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> options = DrainBenchmark.parse(args);
    int seconds = Integer.parseInt(options.getOrDefault("seconds", "60"));
    int rate = Integer.parseInt(options.getOrDefault("rate", "1000"));
    int aggregates = Integer.parseInt(options.getOrDefault("aggregates", "50"));
    int relayCount = Integer.parseInt(options.getOrDefault("relays", "2"));
    Ordering ordering =
        Ordering.valueOf(options.getOrDefault("ordering", "per_aggregate").toUpperCase());
    String publisherName = options.getOrDefault("publisher", "noop");
    String wakeup = options.getOrDefault("wakeup", "in-process");
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "0"));
    if (!List.of("noop", "kafka").contains(publisherName)) {
      throw new IllegalArgumentException(
          "--publisher must be noop or kafka but was " + publisherName);
    }
    if (!List.of("in-process", "notify", "poll").contains(wakeup)) {
      throw new IllegalArgumentException(
          "--wakeup must be in-process, notify or poll but was " + wakeup);
    }
    try (HikariDataSource pool =
            BenchDatabase.pool(
                BenchDatabase.url("txoutbox_bench"), WRITERS + 4 * relayCount + 2, "live-bench");
        EmbeddedKafka kafka = publisherName.equals("kafka") ? EmbeddedKafka.startDefault() : null) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
      OutboxSchema.migrate(pool, SCHEMA);
      OutboxSchema.migrateOrderingIndex(pool, SCHEMA);
      if (wakeup.equals("notify")) {
        OutboxSchema.migrateNotifyTrigger(pool, SCHEMA);
      }
      OutboxAdmin admin = OutboxAdmin.create(pool, SCHEMA);
      Publisher kafkaPublisher = null;
      if (kafka != null) {
        kafka.createTopic(TOPIC, 3, Map.of());
        kafkaPublisher =
            Publishers.create(
                "kafka",
                Map.of(
                    "bootstrap-servers",
                    kafka.bootstrapServers(),
                    "topic.order",
                    TOPIC,
                    "producer.max.in.flight.requests.per.connection",
                    options.getOrDefault("max-in-flight", "1")));
      }
      CheckingBroker broker = new CheckingBroker(kafkaPublisher);
      List<Long> cycleNanos = Collections.synchronizedList(new ArrayList<>());
      AtomicLong batches = new AtomicLong();
      AtomicLong claimedEvents = new AtomicLong();
      RelayListener cycles =
          new RelayListener() {
            @Override
            public void batchCompleted(int claimed, int published, int failed, Duration d) {
              batches.incrementAndGet();
              claimedEvents.addAndGet(claimed);
              cycleNanos.add(d.toNanos());
            }
          };
      List<OutboxRelay> relays = new ArrayList<>();
      List<Outbox> outboxes = new ArrayList<>();
      for (int i = 0; i < relayCount; i++) {
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(pool)
                .schema(SCHEMA)
                .publisher(broker)
                .listener(cycles)
                .listenForNotifications(wakeup.equals("notify"))
                .config(
                    RelayConfig.builder()
                        .name("live-" + i)
                        .ordering(ordering)
                        .workers(2)
                        .batchSize(100)
                        .minPollInterval(Duration.ofMillis(10))
                        .maxPollInterval(Duration.ofMillis(100))
                        .build())
                .build();
        relay.start();
        relays.add(relay);
      }
      // One writer per service instance: each instance's writers wake its own relay.
      List<DSLContext> instances = new ArrayList<>();
      for (OutboxRelay relay : relays) {
        Outbox.Builder builder = Outbox.builder().schema(SCHEMA).lockPerAggregate(true);
        if (wakeup.equals("in-process")) {
          builder.afterCommit(relay::wakeUp);
        }
        Outbox instanceOutbox = builder.build();
        instances.add(
            DSL.using(
                new DefaultConfiguration()
                    .set(pool)
                    .set(SQLDialect.POSTGRES)
                    .set(instanceOutbox.transactionListener())));
        outboxes.add(instanceOutbox);
      }
      Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
      AtomicInteger failedWrites = new AtomicInteger();
      CpuMeter meter = new CpuMeter(dsl);
      CpuMeter.Sample cpuBefore = meter.sample();
      ScheduledExecutorService writers = Executors.newScheduledThreadPool(WRITERS);
      long periodMicros = 1_000_000L * WRITERS / rate;
      String payload = "{\"total\":{\"amount\":\"129.90\",\"currency\":\"EUR\"}}";
      for (int w = 0; w < WRITERS; w++) {
        DSLContext instance = instances.get(w % instances.size());
        Outbox outbox = outboxes.get(w % outboxes.size());
        writers.scheduleAtFixedRate(
            () -> {
              String aggregate = "order-" + ThreadLocalRandom.current().nextInt(aggregates);
              try {
                UUID id =
                    instance.transactionResult(
                        tx ->
                            outbox.record(tx.dsl(), "order", aggregate, "order.changed", payload));
                committedAt.put(id, System.nanoTime());
              } catch (RuntimeException e) {
                failedWrites.incrementAndGet();
              }
            },
            w * periodMicros / WRITERS,
            periodMicros,
            TimeUnit.MICROSECONDS);
      }
      // Writers and relays run for the warm-up first (JIT, the producer's metadata, a child
      // broker's JIT); the figures count only events committed after it.
      TimeUnit.SECONDS.sleep(warmup);
      long maxBacklog = 0;
      long start = System.nanoTime();
      for (int s = 1; s <= seconds; s++) {
        long until = start + TimeUnit.SECONDS.toNanos(s);
        TimeUnit.NANOSECONDS.sleep(Math.max(0, until - System.nanoTime()));
        long backlog = admin.pendingCount();
        maxBacklog = Math.max(maxBacklog, backlog);
        if (s % 10 == 0) {
          log.info("{} s: {} written, backlog {}", s, committedAt.size(), backlog);
        }
      }
      writers.shutdown();
      writers.awaitTermination(30, TimeUnit.SECONDS);
      long writeNanos = System.nanoTime() - start;
      long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (admin.pendingCount() > 0 && System.nanoTime() < drainDeadline) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      CpuMeter.Sample cpu = meter.sample().minus(cpuBefore);
      relays.forEach(r -> r.close(Duration.ofSeconds(10)));
      broker.close();
      String downstream = "";
      if (kafka != null) {
        downstream = consumerOrder(kafka, broker.sequenceOf, committedAt.size());
      }

      List<Long> latencies = new ArrayList<>();
      // The same latencies by the 10 s window of their commit, to tell warm-up from steady state.
      Map<Integer, List<Long>> byWindow = new java.util.TreeMap<>();
      long unpublished = 0;
      long warmupEvents = 0;
      for (Map.Entry<UUID, Long> e : committedAt.entrySet()) {
        Long published = broker.publishedAt.get(e.getKey());
        if (published == null) {
          unpublished++;
        } else if (e.getValue() < start) {
          warmupEvents++;
        } else {
          long latency = Math.max(0, published - e.getValue());
          latencies.add(latency);
          int window = (int) TimeUnit.NANOSECONDS.toSeconds(e.getValue() - start) / 10;
          byWindow.computeIfAbsent(window, w -> new ArrayList<>()).add(latency);
        }
      }
      Collections.sort(latencies);
      int written = committedAt.size();
      String report =
          String.format(
              "# Live ordered benchmark%n%n"
                  + "%d writers at %d events/s for %d s over %d aggregates (lockPerAggregate),"
                  + " %d relays of 2 workers x 100 in %s, polling 10-100 ms, wake-up %s,"
                  + " publisher %s.%n%n"
                  + "| written | write rate | failed writes | max backlog | p50 ms | p99 ms | max ms"
                  + " | unpublished | order violations | duplicates | CPU µs/event JVM / PG |%n"
                  + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n"
                  + "| %,d | %,.0f/s | %d | %,d | %.1f | %.1f | %.1f | %d | %d | %d | %.0f / %.0f |%n",
              WRITERS,
              rate,
              seconds,
              aggregates,
              relayCount,
              ordering,
              wakeup,
              publisherName,
              written,
              (written - warmupEvents) / (writeNanos / 1e9),
              failedWrites.get(),
              maxBacklog,
              percentileMillis(latencies, 50),
              percentileMillis(latencies, 99),
              latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1) / 1e6,
              unpublished,
              broker.violations.size(),
              broker.duplicates.get(),
              cpu.jvmNanos() / 1e3 / Math.max(1, written),
              cpu.postgresNanos() / 1e3 / Math.max(1, written));
      Collections.sort(cycleNanos);
      report +=
          String.format(
              "%nNon-empty cycles: %,d, %.1f events each; cycle duration p50 %.1f ms, p99 %.1f ms.%n",
              batches.get(),
              claimedEvents.get() / (double) Math.max(1, batches.get()),
              percentileMillis(cycleNanos, 50),
              percentileMillis(cycleNanos, 99));
      StringBuilder windows =
          new StringBuilder(String.format("%np99 ms by 10 s window of commit:"));
      for (Map.Entry<Integer, List<Long>> w : byWindow.entrySet()) {
        List<Long> sorted = w.getValue();
        Collections.sort(sorted);
        windows.append(
            String.format(
                " %d-%d s %.1f;",
                w.getKey() * 10, w.getKey() * 10 + 10, percentileMillis(sorted, 99)));
      }
      if (warmup > 0) {
        report +=
            String.format(
                "%nWarm-up: %d s before the measured %d s; its %,d events are checked for order"
                    + " and delivery but not counted in the latencies.%n",
                warmup, seconds, warmupEvents);
      }
      report += windows.append(String.format("%n")) + downstream;
      broker.violations.stream().limit(10).forEach(v -> log.warn("order violation: {}", v));
      DrainBenchmark.writeReport("live-ordered", report);
    }
  }

  /**
   * Reads the topic back and checks, per aggregate (the record key), that the first occurrence of
   * each event comes in sequence order, as a consumer that drops duplicates would see it.
   */
  private static String consumerOrder(
      EmbeddedKafka kafka, Map<UUID, Long> sequenceOf, int written) {
    List<ConsumerRecord<String, byte[]>> records = kafka.readAll(TOPIC, Duration.ofSeconds(60));
    Map<String, Long> last = new HashMap<>();
    Set<String> seen = new HashSet<>();
    long violations = 0;
    for (ConsumerRecord<String, byte[]> record : records) {
      String id = header(record, OutboxHeaders.EVENT_ID);
      if (!seen.add(id)) {
        continue;
      }
      long sequence = sequenceOf.getOrDefault(UUID.fromString(id), -1L);
      Long before = last.put(record.key(), sequence);
      if (before != null && before > sequence) {
        violations++;
      }
    }
    return String.format(
        "%nRead back from the topic: %,d records, %,d distinct events of %,d written, %d order"
            + " violations per key.%n",
        records.size(), seen.size(), written, violations);
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    if (header == null) {
      throw new IllegalStateException("record without header " + name);
    }
    return new String(header.value(), StandardCharsets.UTF_8);
  }

  private static double percentileMillis(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)) / 1e6;
  }
}

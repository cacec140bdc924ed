package dev.txoutbox.testing.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A real single-node KRaft Kafka broker in a child JVM, for tests: no Docker, no installation. The
 * broker runs {@code kafka.Kafka} from {@code org.apache.kafka:kafka_2.13}, which must be on the
 * test class path or module path (this kit declares it optional: add it beside the kit, at the
 * version of your {@code kafka-clients}). The child JVM runs on a class path made of this JVM's
 * class path and module path, so a test running on the module path can start it too.
 *
 * <p>Why a child JVM rather than a broker inside the test's JVM: the broker can be stopped and
 * started again (an outage test), it never shares the test's heap, threads or logging
 * configuration, and it dies with the test JVM even after {@code kill -9}.
 *
 * <p>The broker can be {@linkplain #stop() stopped} (SIGTERM, a clean shutdown) and {@linkplain
 * #start() started} again on the same port with the same data, which is what a test of a broker
 * outage needs. {@link #close()} stops it and deletes its data. A JVM shutdown hook, and the child
 * watching its standard input for the parent's death, make sure no broker outlives the tests.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
 *   kafka.createTopic("orders", 3, Map.of());
 *   ... kafka.bootstrapServers() ...
 * }
 * }</pre>
 *
 * <p>This class is thread-safe.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final Path directory;
  private final Path serverProperties;
  private final Path log;
  private final String clusterId = Uuid.randomUuid().toString();
  private final int brokerPort;
  private final List<String> jvmOptions;
  private final Thread shutdownHook;
  private Process process;
  private boolean closed;

  private EmbeddedKafka(Builder builder) throws IOException {
    this.directory = Files.createTempDirectory("txoutbox-embedded-kafka-");
    this.serverProperties = directory.resolve("server.properties");
    this.log = directory.resolve("broker.log");
    this.brokerPort = freePort();
    int controllerPort = freePort();
    this.jvmOptions = List.copyOf(builder.jvmOptions);
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("process.roles", "broker,controller");
    properties.put("node.id", "1");
    properties.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    properties.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    properties.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    properties.put("controller.listener.names", "CONTROLLER");
    properties.put("inter.broker.listener.name", "PLAINTEXT");
    properties.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    properties.put("log.dirs", directory.resolve("data").toString());
    properties.put("num.partitions", "1");
    properties.put("num.network.threads", "2");
    properties.put("num.io.threads", "4");
    properties.put("offsets.topic.replication.factor", "1");
    properties.put("offsets.topic.num.partitions", "1");
    properties.put("transaction.state.log.replication.factor", "1");
    properties.put("transaction.state.log.min.isr", "1");
    properties.put("share.coordinator.state.topic.replication.factor", "1");
    properties.put("share.coordinator.state.topic.min.isr", "1");
    properties.put("group.initial.rebalance.delay.ms", "0");
    properties.put("auto.create.topics.enable", "true");
    properties.putAll(builder.brokerProperties);
    Files.writeString(
        serverProperties,
        properties.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
    Files.writeString(directory.resolve("logback.xml"), LOGBACK, StandardCharsets.UTF_8);
    this.shutdownHook = new Thread(this::destroyNow, "embedded-kafka-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** A builder for a broker with the test defaults (one partition per auto-created topic). */
  public static Builder builder() {
    return new Builder();
  }

  /** Creates and starts a broker with the defaults; the caller closes it. */
  public static EmbeddedKafka startDefault() {
    return builder().start();
  }

  /** The {@code bootstrap.servers} value for clients, such as {@code 127.0.0.1:40123}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  /** Whether the broker process is alive. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * Starts the broker (again) on the same port with the same data, and waits until it serves
   * requests. Does nothing if it is running.
   *
   * @throws IllegalStateException if it was closed, or did not come up in time
   */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("the broker was closed");
    }
    if (isRunning()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Dlogback.configurationFile=" + directory.resolve("logback.xml"));
    command.add("-cp");
    command.add(childClassPath());
    command.add(EmbeddedKafkaMain.class.getName());
    command.add(serverProperties.toString());
    command.add(clusterId);
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the broker JVM", e);
    }
    awaitReady();
  }

  /**
   * Stops the broker with SIGTERM (a clean shutdown) and waits for the process to end. Its data
   * stays, so {@link #start()} brings the same broker back. Does nothing if it is not running.
   */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    Process stopping = process;
    process = null;
    stopping.destroy();
    try {
      if (!stopping.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        stopping.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      stopping.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Creates a topic with replication factor 1 and waits until every partition has a leader, so a
   * producer's first records do not wait for a leader election on a loaded machine.
   *
   * @param configs topic settings such as {@code max.message.bytes}
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!allPartitionsLed(admin, name, partitions)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + name + " has partitions without a leader");
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic " + name, e);
    } catch (Exception e) {
      throw new IllegalStateException("could not create topic " + name, e);
    }
  }

  private static boolean allPartitionsLed(Admin admin, String topic, int partitions) {
    try {
      TopicDescription description =
          admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
      return description.partitions().size() == partitions
          && description.partitions().stream().allMatch(p -> p.leader() != null);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
  }

  /** A new admin client for this broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
  }

  /**
   * Reads a topic from the beginning of every partition until {@code count} records arrived or
   * {@code timeout} passed, without a consumer group. Returns what arrived, in partition order
   * within each partition.
   */
  public List<ConsumerRecord<String, byte[]>> read(String topic, int count, Duration timeout) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      assignAll(consumer, topic, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  private KafkaConsumer<String, byte[]> consumer() {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
            5_000);
    return new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
  }

  private static List<TopicPartition> assignAll(
      KafkaConsumer<String, byte[]> consumer, String topic, Duration timeout) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, timeout).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .collect(Collectors.toList());
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return partitions;
  }

  /**
   * Reads every record in the topic now, from the beginning of every partition up to the end
   * offsets at the time of the call, waiting at most {@code timeout}. Duplicates, if any, are kept.
   *
   * @throws IllegalStateException if the records could not all be read in time
   */
  public List<ConsumerRecord<String, byte[]>> readAll(String topic, Duration timeout) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = assignAll(consumer, topic, timeout);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!ends.entrySet().stream()
          .allMatch(end -> consumer.position(end.getKey(), timeout) >= end.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "read " + records.size() + " records of " + topic + " in " + timeout + ", not all");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /** The last lines of the broker's log, for failure messages. */
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no broker log: " + e + ")";
    }
  }

  /** Stops the broker and deletes its data. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down; the hook runs anyway
    }
    deleteDirectory();
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    try (Admin admin = admin()) {
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "the broker exited with " + process.exitValue() + ":\n" + logTail());
        }
        try {
          if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.TimeoutException e) {
          // not up yet
        }
        if (System.nanoTime() > deadline) {
          destroyNow();
          throw new IllegalStateException(
              "the broker did not start within " + STARTUP_TIMEOUT + ":\n" + logTail());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      destroyNow();
      throw new IllegalStateException("interrupted while the broker was starting", e);
    }
  }

  private void destroyNow() {
    Process running = process;
    if (running != null) {
      running.destroyForcibly();
    }
  }

  private void deleteDirectory() {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      // a leftover temp directory is harmless
    }
  }

  /** This JVM's class path followed by its module path: the broker jars may be on either. */
  static String childClassPath() {
    List<String> entries = new ArrayList<>();
    for (String property : List.of("java.class.path", "jdk.module.path")) {
      String value = System.getProperty(property);
      if (value != null && !value.isEmpty()) {
        for (String entry : value.split(java.io.File.pathSeparator)) {
          if (!entry.isEmpty() && !entries.contains(entry)) {
            entries.add(entry);
          }
        }
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static final String LOGBACK =
      "<configuration>\n"
          + "  <appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">\n"
          + "    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern>"
          + "</encoder>\n"
          + "  </appender>\n"
          + "  <root level=\"WARN\"><appender-ref ref=\"OUT\"/></root>\n"
          + "  <logger name=\"kafka.server.KafkaRaftServer\" level=\"INFO\"/>\n"
          + "</configuration>\n";

  /** Settings for an {@link EmbeddedKafka}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, String> brokerProperties = new LinkedHashMap<>();
    private final List<String> jvmOptions =
        new ArrayList<>(List.of("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC"));

    private Builder() {}

    /** Sets a {@code server.properties} entry, such as {@code message.max.bytes}. */
    public Builder brokerProperty(String name, String value) {
      brokerProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value));
      return this;
    }

    /** Adds an option for the broker's JVM, such as {@code -Xmx1g}. */
    public Builder jvmOption(String option) {
      jvmOptions.add(Objects.requireNonNull(option, "option"));
      return this;
    }

    /** Creates the broker and starts it; the caller closes it. */
    public EmbeddedKafka start() {
      EmbeddedKafka kafka;
      try {
        kafka = new EmbeddedKafka(this);
      } catch (IOException e) {
        throw new UncheckedIOException("could not prepare the broker directory", e);
      }
      try {
        kafka.start();
      } catch (RuntimeException e) {
        kafka.close();
        throw e;
      }
      return kafka;
    }
  }
}

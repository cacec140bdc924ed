package dev.txoutbox.cli;

import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.testing.sqs.ElasticMq;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Trains the container image's class-data sharing archive, run by {@code mvn package -Pimage}
 * between the two image builds: the first image (without the archive) is unpacked, and its own
 * entrypoint, in its own file system, runs {@code migrate} and then a relay that publishes {@value
 * #EVENTS} events, routed to Kafka and to SQS, from an embedded PostgreSQL; the classes that relay
 * loaded ({@code -XX:DumpLoadedClassList}) are then dumped by the image's own Java runtime into a
 * static archive ({@code -Xshare:dump}) that the final image's entrypoint maps with {@code
 * -XX:SharedArchiveFile}.
 *
 * <p>The archive must be made in the image's file system: the JVM maps it only when the class path
 * and the jars' sizes and modification times are those it was dumped with. Jib gives every file the
 * same time and the two builds lay the class path out identically, so the layers of the first image
 * are those of the final one. The archive is a layer of its own, so a new CLI version changes it
 * and the small layers only.
 *
 * <p>Usage: {@code ImageClassArchive FIRST_IMAGE_TAR WORK_DIR LAYER_DIR}; writes {@code
 * LAYER_DIR/opt/java/lib/server/txoutbox.jsa}. Exits non-zero, and the build fails, when any step
 * fails.
 */
public final class ImageClassArchive {

  static final String ARCHIVE = "/opt/java/lib/server/txoutbox.jsa";
  static final int EVENTS = 3_000;
  private static final String CLASS_LIST = "/tmp/txoutbox.classlist";
  private static final Duration DRAINED_WITHIN = Duration.ofMinutes(5);

  /** Each other step's bound: generous, as the build may share a busy machine. */
  private static final Duration STEP_WITHIN = Duration.ofMinutes(5);

  private ImageClassArchive() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException(
          "usage: ImageClassArchive FIRST_IMAGE_TAR WORK_DIR LAYER_DIR");
    }
    Path work = Paths.get(args[1]);
    Path layer = Paths.get(args[2]);
    long started = System.nanoTime();
    ImageRoot image = ImageRoot.read(Paths.get(args[0]), work);
    Path root = image.unpack(work.resolve("root"));
    int classes;
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
        EmbeddedKafka kafka = EmbeddedKafka.startDefault();
        ElasticMq sqs = ElasticMq.start()) {
      // The image has no /etc/hosts: the address, not localhost.
      String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres?user=postgres";
      Map<String, String> env = Map.of("OUTBOX_JDBC_URL", url, "OUTBOX_DB_USER", "postgres");
      check(image.run(env, image.entrypoint("migrate"), STEP_WITHIN), "migrate");
      fill(url);
      Files.writeString(root.resolve("tmp/routes.properties"), routes(kafka, sqs, root));
      relayUntilDrained(image, env, url);
      classes = Files.readAllLines(root.resolve(CLASS_LIST.substring(1))).size();
    }
    check(
        image.run(
            Map.of(),
            List.of(
                "/opt/java/bin/java",
                "-Xshare:dump",
                "-XX:SharedClassListFile=" + CLASS_LIST,
                "-XX:SharedArchiveFile=/tmp/txoutbox.jsa",
                "-cp",
                "@/app/jib-classpath-file"),
            STEP_WITHIN),
        "-Xshare:dump");
    // The archive maps (-Xshare:on refuses to start otherwise) with the entrypoint's class path.
    check(
        image.run(
            Map.of(),
            image.entrypointWithJvmOptions(
                List.of("-Xshare:on", "-XX:SharedArchiveFile=/tmp/txoutbox.jsa"), "--version"),
            STEP_WITHIN),
        "--version on the archive");
    Path archive = layer.resolve(ARCHIVE.substring(1));
    Files.createDirectories(archive.getParent());
    Files.copy(root.resolve("tmp/txoutbox.jsa"), archive, StandardCopyOption.REPLACE_EXISTING);
    System.out.printf(
        "ImageClassArchive: %d classes, %d MB in %s, trained in %d s%n",
        classes,
        Files.size(archive) >> 20,
        archive,
        Duration.ofNanos(System.nanoTime() - started).toSeconds());
  }

  private static void fill(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO outbox_events (id, aggregate_type, aggregate_id, event_type, payload, headers)"
              + " SELECT gen_random_uuid(), CASE WHEN g % 3 = 0 THEN 'payment' ELSE 'order' END,"
              + " (g % 50)::text, 'training.event', jsonb_build_object('n', g),"
              + " jsonb_build_object('traceparent',"
              + " '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')"
              + " FROM generate_series(1, "
              + EVENTS
              + ") g");
    }
  }

  private static String routes(EmbeddedKafka kafka, ElasticMq sqs, Path root) {
    String queue = sqs.createQueue("training", false);
    return "route.aggregate-type.payment=sqs\n"
        + "route.default=kafka\n"
        + "kafka.bootstrap-servers="
        + kafka.bootstrapServers()
        + "\n"
        + "sqs.sqs-region=eu-west-1\n"
        + "sqs.sqs-endpoint="
        + sqs.endpoint()
        + "\n"
        + "sqs.queue.payment="
        + sqs.queueUrl(queue)
        + "\n";
  }

  /** Runs the image's relay with the class list on, until every event is published; SIGTERM. */
  private static void relayUntilDrained(ImageRoot image, Map<String, String> env, String url)
      throws Exception {
    Map<String, String> relayEnv = new HashMap<>(env);
    relayEnv.put("AWS_ACCESS_KEY_ID", "training");
    relayEnv.put("AWS_SECRET_ACCESS_KEY", "training");
    List<String> command =
        image.command(
            image.entrypointWithJvmOptions(
                List.of("-XX:DumpLoadedClassList=" + CLASS_LIST),
                "relay",
                "--publisher-config",
                "/tmp/routes.properties"));
    Path log = Files.createTempFile("txoutbox-training", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(image.environment(relayEnv));
    Process relay = pb.start();
    try {
      long deadline = System.nanoTime() + DRAINED_WITHIN.toNanos();
      while (published(url) < EVENTS) {
        if (!relay.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the training relay published "
                  + published(url)
                  + " of "
                  + EVENTS
                  + " events; its log:\n"
                  + Files.readString(log, StandardCharsets.UTF_8));
        }
        relay.waitFor(100, TimeUnit.MILLISECONDS);
      }
      // SIGTERM to the relay's JVM (unshare and the shell only pass it on), then its exit, which
      // closes the class list.
      for (ProcessHandle p : relay.descendants().toList()) {
        if (p.info().command().orElse("").endsWith("/java")) {
          p.destroy();
        }
      }
      if (!relay.waitFor(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the training relay did not stop within 60 s");
      }
    } finally {
      relay.destroyForcibly();
    }
  }

  private static int published(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT count(*) FROM outbox_events WHERE processed_at IS NOT NULL")) {
      r.next();
      return r.getInt(1);
    }
  }

  private static void check(JarProcess p, String step) throws Exception {
    try (p) {
      if (p.exitCode() != 0) {
        throw new IllegalStateException(
            step + " in the image exited " + p.exitCode() + ":\n" + p.out() + p.err());
      }
    }
  }
}

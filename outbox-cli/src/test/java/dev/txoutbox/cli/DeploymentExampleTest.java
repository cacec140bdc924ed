package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The Kubernetes example, {@code deploy/kubernetes/relay.yaml}, read as Kubernetes reads it: its
 * containers' arguments are real flags of this CLI that pass every check, and its probes, scrape
 * annotations and secrets agree with them.
 */
class DeploymentExampleTest {

  private static final Path EXAMPLE = Paths.get("..", "deploy", "kubernetes", "relay.yaml");

  private static JsonNode deployment;
  private static JsonNode cronJob;

  @BeforeAll
  static void read() throws Exception {
    assertThat(EXAMPLE).as("the example beside the module").isRegularFile();
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<JsonNode> documents =
        yaml.readValues(yaml.getFactory().createParser(EXAMPLE.toFile()), JsonNode.class).readAll();
    assertThat(documents)
        .extracting(d -> d.path("kind").asText())
        .containsExactly("Deployment", "CronJob");
    deployment = documents.get(0);
    cronJob = documents.get(1);
  }

  private static JsonNode relayContainer() {
    JsonNode containers = deployment.at("/spec/template/spec/containers");
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  private static List<String> args(JsonNode container) {
    List<String> args = new ArrayList<>();
    container.path("args").forEach(a -> args.add(a.asText()));
    assertThat(args).isNotEmpty();
    return args;
  }

  /**
   * The parse of {@code args} by the CLI's own command tree: the subcommand's result. Also read by
   * {@link ConsoleDeploymentExampleTest}.
   */
  static ParseResult parse(List<String> args) {
    CommandLine cli =
        Cli.commandLine(
            new TxoutboxCommand(
                new CliContext(
                    Map.of(),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    t -> true)));
    ParseResult root = cli.parseArgs(args.toArray(String[]::new));
    assertThat(root.subcommand()).as("a command in " + args).isNotNull();
    return root.subcommand();
  }

  @Test
  void scalingOutIsReplicasOfOneSelectedPodTemplate() {
    assertThat(deployment.at("/spec/replicas").isInt()).isTrue();
    assertThat(deployment.at("/spec/replicas").asInt()).isGreaterThan(1);
    assertThat(deployment.at("/spec/selector/matchLabels"))
        .isEqualTo(deployment.at("/spec/template/metadata/labels"));
  }

  @Test
  void probesAndScrapeUseTheEndpointTheRelayArgumentsOpen() {
    ParseResult relay = parse(args(relayContainer()));
    assertThat(relay.commandSpec().name()).isEqualTo("relay");
    assertProbesAndScrapeUseTheEndpointOf(relay, relayContainer(), deployment);
  }

  /**
   * {@code command}'s endpoint is port 9400 on every interface (probes come from the kubelet, not
   * from localhost), the container's one port, the port of its three {@code /health} probes and of
   * the Prometheus scrape annotations. Also {@link FleetDeploymentExampleTest}'s.
   */
  static void assertProbesAndScrapeUseTheEndpointOf(
      ParseResult command, JsonNode container, JsonNode deployment) {
    int port = command.matchedOptionValue("--metrics-port", -1);
    assertThat(port).isEqualTo(9400);
    assertThat(command.<String>matchedOptionValue("--metrics-host", null)).isEqualTo("0.0.0.0");
    JsonNode ports = container.path("ports");
    assertThat(ports).hasSize(1);
    assertThat(ports.get(0).path("containerPort").asInt()).isEqualTo(port);
    String portName = ports.get(0).path("name").asText();
    for (String probe : List.of("startupProbe", "readinessProbe", "livenessProbe")) {
      JsonNode get = container.path(probe).path("httpGet");
      assertThat(get.path("path").asText()).as(probe).isEqualTo("/health");
      assertThat(get.path("port").asText()).as(probe).isEqualTo(portName);
    }
    JsonNode annotations = deployment.at("/spec/template/metadata/annotations");
    assertThat(annotations.path("prometheus.io/scrape").asText()).isEqualTo("true");
    assertThat(annotations.path("prometheus.io/port").asText()).isEqualTo(String.valueOf(port));
    assertThat(annotations.path("prometheus.io/path").asText()).isEqualTo("/metrics");
  }

  /**
   * The relay's arguments, with the mounted publisher file replaced by one holding example
   * settings, pass every check of the CLI: the run gets as far as the (unreachable) database.
   */
  @Test
  void theRelayArgumentsPassEveryCheckOfTheCli(@TempDir Path dir) throws Exception {
    List<String> args = args(relayContainer());
    int file = args.indexOf("--publisher-config") + 1;
    assertThat(file).isPositive();
    assertThat(mountPaths(relayContainer())).anyMatch(m -> args.get(file).startsWith(m + "/"));
    Path settings = dir.resolve("publisher.properties");
    Files.writeString(
        settings, "amqp-uri=amqp://outbox:s3cret@127.0.0.1:1/%2F\nexchange=billing\n");
    args.set(file, settings.toString());
    assertPassesEveryCheck(args, "jdbc:postgresql://127.0.0.1:1/billing");
  }

  /**
   * Runs {@code args} against the unreachable database {@code jdbcUrl} (as OUTBOX_JDBC_URL): every
   * check passed once the command waits for the database, as for an outage, until stopped. Also
   * {@link FleetDeploymentExampleTest}'s.
   */
  static void assertPassesEveryCheck(List<String> args, String jdbcUrl) throws Exception {
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", jdbcUrl)
            .runUntilWaitingForTheDatabase(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.relayLogLines(CliRunner.WAITING_FOR_THE_DATABASE))
        .singleElement()
        .asString()
        .contains("cannot reach the database at " + jdbcUrl);
    assertThat(r.err()).doesNotContain("txoutbox:");
  }

  @Test
  void theCleanupArgumentsPassEveryCheckOfTheCli() {
    JsonNode containers = cronJob.at("/spec/jobTemplate/spec/template/spec/containers");
    assertThat(containers).hasSize(1);
    List<String> args = args(containers.get(0));
    assertThat(parse(args).commandSpec().name()).isEqualTo("cleanup");
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/billing")
            .run(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith("txoutbox: cannot reach the database");
  }

  /** Both read the database from the same secret, under the variables the CLI reads. */
  @Test
  void theDatabaseComesFromASecretUnderTheCliVariables() {
    JsonNode cleanup = cronJob.at("/spec/jobTemplate/spec/template/spec/containers/0");
    for (JsonNode container : List.of(relayContainer(), cleanup)) {
      List<String> fromSecret = new ArrayList<>();
      for (JsonNode env : container.path("env")) {
        JsonNode ref = env.at("/valueFrom/secretKeyRef");
        if (!ref.isMissingNode()) {
          assertThat(ref.path("name").asText()).isEqualTo("txoutbox-db");
          fromSecret.add(env.path("name").asText());
        }
      }
      assertThat(fromSecret)
          .containsExactly("OUTBOX_JDBC_URL", "OUTBOX_DB_USER", "OUTBOX_DB_PASSWORD");
    }
  }

  /**
   * The image's user (ImageIT checks it is 65532), a read-only root file system with a writable
   * /tmp, and a grace period longer than the relay's shutdown timeout.
   */
  @Test
  void thePodRunsAsTheImagesUserAndGetsTimeToFinishItsBatch() {
    JsonNode pod = deployment.at("/spec/template/spec");
    assertThat(pod.at("/securityContext/runAsUser").asInt()).isEqualTo(65532);
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(relayContainer().at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(mountPaths(relayContainer())).contains("/tmp");
    ParseResult relay = parse(args(relayContainer()));
    Duration timeout = relay.matchedOptionValue("--shutdown-timeout", null);
    assertThat(timeout).isNotNull();
    assertThat(pod.path("terminationGracePeriodSeconds").asLong())
        .isGreaterThan(timeout.toSeconds());
    assertThat(relayContainer().at("/resources/requests/cpu").isMissingNode()).isFalse();
    assertThat(relayContainer().at("/resources/requests/memory").isMissingNode()).isFalse();
  }

  private static List<String> mountPaths(JsonNode container) {
    List<String> paths = new ArrayList<>();
    container.path("volumeMounts").forEach(m -> paths.add(m.path("mountPath").asText()));
    return paths;
  }
}

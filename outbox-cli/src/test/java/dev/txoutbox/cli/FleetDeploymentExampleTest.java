package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParseResult;

/**
 * The fleet's Kubernetes example, {@code deploy/kubernetes/fleet/fleet.yaml}, read as Kubernetes
 * reads it: its arguments are {@code fleet run} flags that pass every check of the CLI, its probes
 * and scrape use the endpoint they open, the node id is the pod's name, and no secret is a value.
 */
class FleetDeploymentExampleTest {

  private static final Path EXAMPLE =
      Paths.get("..", "deploy", "kubernetes", "fleet", "fleet.yaml");

  private static JsonNode deployment;

  @BeforeAll
  static void read() throws Exception {
    assertThat(EXAMPLE).as("the example beside the module").isRegularFile();
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<JsonNode> documents =
        yaml.readValues(yaml.getFactory().createParser(EXAMPLE.toFile()), JsonNode.class).readAll();
    assertThat(documents).extracting(d -> d.path("kind").asText()).containsExactly("Deployment");
    deployment = documents.get(0);
  }

  private static JsonNode container() {
    JsonNode containers = deployment.at("/spec/template/spec/containers");
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  private static List<String> args() {
    List<String> args = new ArrayList<>();
    container().path("args").forEach(a -> args.add(a.asText()));
    return args;
  }

  /** The parse of the arguments: {@code fleet}'s subcommand's. */
  private static ParseResult run() {
    ParseResult fleet = DeploymentExampleTest.parse(args());
    assertThat(fleet.subcommand()).as("a fleet command").isNotNull();
    return fleet.subcommand();
  }

  @Test
  void severalNodesRunFleetRunWithThePodNameAsNodeId() {
    assertThat(deployment.at("/spec/replicas").asInt()).isGreaterThan(1);
    ParseResult run = run();
    assertThat(run.commandSpec().qualifiedName()).isEqualTo("txoutbox fleet run");
    assertThat(run.<String>matchedOptionValue("--node-id", null)).isEqualTo("$(POD_NAME)");
    JsonNode podName = null;
    for (JsonNode e : container().path("env")) {
      if (e.path("name").asText().equals("POD_NAME")) {
        podName = e.at("/valueFrom/fieldRef/fieldPath");
      }
    }
    assertThat(podName).as("POD_NAME from the pod's metadata").isNotNull();
    assertThat(podName.asText()).isEqualTo("metadata.name");
  }

  @Test
  void probesAndScrapeUseTheEndpointTheArgumentsOpen() throws Exception {
    DeploymentExampleTest.assertProbesAndScrapeUseTheEndpointOf(run(), container(), deployment);
    // its comments point to the assignments document the node serves, and note nothing missing
    assertThat(Files.readString(EXAMPLE))
        .contains("/fleet: its assignments as JSON")
        .doesNotContain("NOTE");
    assertThat(FleetRunCommand.ASSIGNMENTS_PATH).isEqualTo("/fleet");
  }

  /**
   * The arguments, with a pod-like node id, pass every check of the CLI: the run gets as far as the
   * (unreachable) control database and waits for it.
   */
  @Test
  void theArgumentsPassEveryCheckOfTheCli() throws Exception {
    List<String> args = args();
    args.set(args.indexOf("$(POD_NAME)"), "txoutbox-fleet-7d9f8b6c4-x2x9z");
    DeploymentExampleTest.assertPassesEveryCheck(args, "jdbc:postgresql://127.0.0.1:1/control");
  }

  /**
   * The pod gets time to stop its relays, runs as the image's user on a read-only root with a
   * writable /tmp, and reads every password from a Secret.
   */
  @Test
  void thePodStopsCleanlyAndHoldsNoSecretValue() {
    JsonNode pod = deployment.at("/spec/template/spec");
    Duration timeout = run().matchedOptionValue("--shutdown-timeout", null);
    assertThat(timeout).isNotNull();
    assertThat(pod.path("terminationGracePeriodSeconds").asLong())
        .isGreaterThan(timeout.toSeconds());
    assertThat(pod.at("/securityContext/runAsUser").asInt()).isEqualTo(65532);
    assertThat(container().at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    List<String> mounts = new ArrayList<>();
    container().path("volumeMounts").forEach(m -> mounts.add(m.path("mountPath").asText()));
    assertThat(mounts).contains("/tmp");
    for (JsonNode e : container().path("env")) {
      if (e.path("name").asText().contains("PASSWORD")) {
        assertThat(e.at("/valueFrom/secretKeyRef").isMissingNode())
            .as(e.path("name").asText() + " comes from a Secret")
            .isFalse();
      }
    }
  }
}

package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParseResult;

/**
 * The console's Kubernetes example, {@code deploy/kubernetes/console.yaml}, read as Kubernetes
 * reads it: its container runs this CLI's {@code console} command with real flags, on loopback only
 * (reached by port-forward), with the admin secret read from a file of a mounted Secret volume,
 * never from a flag or a plain environment variable.
 */
class ConsoleDeploymentExampleTest {

  private static final Path EXAMPLE = Paths.get("..", "deploy", "kubernetes", "console.yaml");

  private static JsonNode deployment() throws Exception {
    assertThat(EXAMPLE).as("the example beside the module").isRegularFile();
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<JsonNode> documents =
        yaml.readValues(yaml.getFactory().createParser(EXAMPLE.toFile()), JsonNode.class).readAll();
    List<JsonNode> deployments =
        documents.stream().filter(d -> d.path("kind").asText().equals("Deployment")).toList();
    assertThat(deployments).hasSize(1);
    assertThat(documents)
        .as("no Service: the console is reached by kubectl port-forward")
        .noneMatch(d -> d.path("kind").asText().equals("Service"));
    return deployments.get(0);
  }

  @Test
  void theConsoleRunsOnLoopbackWithItsAdminSecretFromAMountedSecretFile() throws Exception {
    JsonNode deployment = deployment();
    JsonNode containers = deployment.at("/spec/template/spec/containers");
    assertThat(containers).hasSize(1);
    JsonNode container = containers.get(0);
    List<String> args = new ArrayList<>();
    container.path("args").forEach(a -> args.add(a.asText()));

    ParseResult console = DeploymentExampleTest.parse(args);
    assertThat(console.commandSpec().name()).isEqualTo("console");
    assertThat(console.<String>matchedOptionValue("--bind", null)).isEqualTo("127.0.0.1");
    assertThat(console.<Integer>matchedOptionValue("--port", -1)).isEqualTo(8089);

    Object secretOption = console.matchedOptionValue("--admin-secret-file", null);
    String secretFile = String.valueOf(secretOption);
    assertThat(secretOption).as("--admin-secret-file").isNotNull();
    JsonNode mount = null;
    for (JsonNode m : container.path("volumeMounts")) {
      if (secretFile.startsWith(m.path("mountPath").asText() + "/")) {
        mount = m;
      }
    }
    assertThat(mount).as("a volume mounted where " + secretFile + " is").isNotNull();
    assertThat(mount.path("readOnly").asBoolean()).isTrue();
    String volume = mount.path("name").asText();
    JsonNode secretVolume = null;
    for (JsonNode v : deployment.at("/spec/template/spec/volumes")) {
      if (v.path("name").asText().equals(volume)) {
        secretVolume = v.path("secret");
      }
    }
    assertThat(secretVolume).as("volume " + volume + " is a Secret").isNotNull();
    assertThat(secretVolume.path("secretName").asText()).isNotEmpty();
    // No secret in a flag: the password of the database comes from a Secret too.
    assertThat(args).noneMatch(a -> a.startsWith("--admin-secret") && !a.endsWith("-file"));
    container
        .path("env")
        .forEach(
            e -> {
              if (e.path("name").asText().contains("PASSWORD")) {
                assertThat(e.path("value").isMissingNode())
                    .as(e.path("name").asText() + " comes from a Secret")
                    .isTrue();
              }
            });
  }
}

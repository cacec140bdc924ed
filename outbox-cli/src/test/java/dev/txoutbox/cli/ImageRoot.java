package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An OCI image archive ({@code mvn package -Pimage}'s tar) read and unpacked as a container runtime
 * would: its index, manifest and config, and its layers extracted in order into a root directory in
 * which commands run with {@code unshare} and {@code chroot}: new mount and PID namespaces with a
 * /proc and a /dev of their own, as the image's user when this process is root, otherwise as the
 * mapped root of a user namespace. Nothing of this machine is visible to them but the network.
 *
 * <p>Used by {@link ImageIT} and by {@link ImageClassArchive}, which trains the image's class-data
 * sharing archive at build time.
 */
final class ImageRoot {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path blobs;
  private final JsonNode index;
  private final JsonNode manifest;
  private final JsonNode config;
  private Path root;

  private ImageRoot(Path blobs, JsonNode index, JsonNode manifest, JsonNode config) {
    this.blobs = blobs;
    this.index = index;
    this.manifest = manifest;
    this.config = config;
  }

  /** Reads the archive {@code tar}, extracting its blobs under {@code dir}. */
  static ImageRoot read(Path tar, Path dir) throws Exception {
    Path image = Files.createDirectories(dir.resolve("image"));
    run(List.of(tool("tar"), "-xf", tar.toString(), "-C", image.toString()));
    Path blobs = image.resolve("blobs/sha256");
    JsonNode index = JSON.readTree(image.resolve("index.json").toFile());
    if (index.path("manifests").size() != 1) {
      throw new IllegalStateException(tar + " holds " + index.path("manifests").size() + " images");
    }
    JsonNode manifest =
        JSON.readTree(
            blobPath(blobs, index.path("manifests").get(0).path("digest").asText()).toFile());
    JsonNode config =
        JSON.readTree(blobPath(blobs, manifest.path("config").path("digest").asText()).toFile());
    return new ImageRoot(blobs, index, manifest, config);
  }

  JsonNode index() {
    return index;
  }

  JsonNode manifest() {
    return manifest;
  }

  JsonNode config() {
    return config;
  }

  /** The blob a {@code sha256:} digest names. */
  Path blob(String digest) {
    return blobPath(blobs, digest);
  }

  /** Extracts the layers in order into {@code root}, where {@link #command} then runs. */
  Path unpack(Path root) throws Exception {
    Files.createDirectories(root);
    for (JsonNode layer : manifest.path("layers")) {
      run(
          List.of(
              tool("tar"),
              "-xzf",
              blob(layer.path("digest").asText()).toString(),
              "-C",
              "" + root));
    }
    // Where the container runtime mounts its /dev.
    Files.createDirectories(root.resolve("dev"));
    this.root = root;
    return root;
  }

  /** The unpacked root directory. */
  Path root() {
    if (root == null) {
      throw new IllegalStateException("unpack the image first");
    }
    return root;
  }

  /** The image's entrypoint, then {@code args}. */
  List<String> entrypoint(String... args) {
    List<String> command = strings(config.path("config").path("Entrypoint"));
    command.addAll(List.of(args));
    return command;
  }

  /**
   * The image's entrypoint with {@code jvmOptions} after its own (before its {@code -cp}, so that
   * an option given twice takes this value), then {@code args}.
   */
  List<String> entrypointWithJvmOptions(List<String> jvmOptions, String... args) {
    List<String> command = entrypoint(args);
    command.addAll(command.indexOf("-cp"), jvmOptions);
    return command;
  }

  /**
   * The command line that runs {@code imageCommand} (its first element a path in the image) in the
   * unpacked root, as a container runtime would.
   */
  List<String> command(List<String> imageCommand) {
    boolean isRoot = "root".equals(System.getProperty("user.name"));
    List<String> command = new ArrayList<>();
    command.add(tool("unshare"));
    if (!isRoot) {
      command.add("--map-root-user");
    }
    command.addAll(
        List.of(
            "--mount",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount-proc=" + root().resolve("proc")));
    // The container's /dev, mounted by a shell of this machine before chroot replaces it.
    command.addAll(
        List.of(
            tool("sh"),
            "-c",
            tool("mount") + " --rbind /dev \"$0/dev\" && exec \"$@\"",
            root().toString(),
            tool("chroot")));
    if (isRoot) {
      command.add("--userspec=" + config.path("config").path("User").asText());
    }
    command.add(root().toString());
    command.addAll(imageCommand);
    return command;
  }

  /** The image's environment with {@code env} added. */
  Map<String, String> environment(Map<String, String> env) {
    Map<String, String> environment = new HashMap<>(env);
    for (String variable : strings(config.path("config").path("Env"))) {
      int eq = variable.indexOf('=');
      environment.put(variable.substring(0, eq), variable.substring(eq + 1));
    }
    return environment;
  }

  /** Runs {@code imageCommand} in the image to completion, for up to a minute. */
  JarProcess run(Map<String, String> env, List<String> imageCommand) throws Exception {
    return run(env, imageCommand, Duration.ofSeconds(60));
  }

  /** Runs {@code imageCommand} in the image to completion, for up to {@code within}. */
  JarProcess run(Map<String, String> env, List<String> imageCommand, Duration within)
      throws Exception {
    return JarProcess.runCommand(command(imageCommand), environment(env), within);
  }

  /** The absolute path of a system tool (the image's PATH, given to the child, has none). */
  static String tool(String name) {
    return Stream.of("/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/")
        .map(d -> Paths.get(d + name))
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(name + " is not installed"))
        .toString();
  }

  static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private static void run(List<String> command) throws Exception {
    try (JarProcess p = JarProcess.runCommand(command, Map.of())) {
      if (p.exitCode() != 0) {
        throw new IllegalStateException(command + " failed: " + p.err());
      }
    }
  }

  private static Path blobPath(Path blobs, String digest) {
    if (!digest.startsWith("sha256:")) {
      throw new IllegalArgumentException("not a sha256 digest: " + digest);
    }
    return blobs.resolve(digest.substring("sha256:".length()));
  }
}

package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txoutbox.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OCI image {@code mvn package -Pimage} writes to {@code target/txoutbox-image.tar}: its
 * manifest and config as a registry or a container runtime reads them, the files of its layers,
 * and, unpacked into a directory, its entrypoint run with {@code unshare} and {@code chroot} as a
 * container runtime would run it (only the image profile runs this class).
 */
class ImageIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VERSION = System.getProperty("txoutbox.version", "0.1.0-SNAPSHOT");

  @TempDir static Path dir;
  private static Path blobs;
  private static JsonNode index;
  private static JsonNode manifest;
  private static JsonNode config;

  /** Every layer's entries, path to mode, in layer order; a later layer's entry wins. */
  private static final Map<String, Integer> files = new LinkedHashMap<>();

  private static final Map<String, byte[]> smallFiles = new HashMap<>();

  @BeforeAll
  static void readImage() throws Exception {
    Path tar = Paths.get(System.getProperty("txoutbox.image", "target/txoutbox-image.tar"));
    Path image = Files.createDirectories(dir.resolve("image"));
    run(List.of("tar", "-xf", tar.toString(), "-C", image.toString()));
    blobs = image.resolve("blobs/sha256");
    index = JSON.readTree(image.resolve("index.json").toFile());
    assertThat(index.path("manifests")).hasSize(1);
    manifest = JSON.readTree(blob(index.path("manifests").get(0).path("digest").asText()));
    config = JSON.readTree(blob(manifest.path("config").path("digest").asText()));
    for (JsonNode layer : manifest.path("layers")) {
      try (InputStream in =
          new GZIPInputStream(Files.newInputStream(blobPath(layer.path("digest").asText())))) {
        readTar(in);
      }
    }
  }

  @Test
  void theImageIsOneOciManifestNamedAfterTheVersion() throws Exception {
    assertThat(
            JSON.readTree(dir.resolve("image/oci-layout").toFile())
                .path("imageLayoutVersion")
                .asText())
        .isEqualTo("1.0.0");
    JsonNode entry = index.path("manifests").get(0);
    assertThat(entry.path("mediaType").asText())
        .isEqualTo("application/vnd.oci.image.manifest.v1+json");
    assertThat(entry.path("annotations").path("org.opencontainers.image.ref.name").asText())
        .isEqualTo("txoutbox:" + VERSION);
    assertThat(manifest.path("config").path("mediaType").asText())
        .isEqualTo("application/vnd.oci.image.config.v1+json");
  }

  @Test
  void theConfigRunsTheCliAsANonRootUserWithTheMetricsPortExposed() {
    assertThat(config.path("os").asText()).isEqualTo("linux");
    assertThat(config.path("architecture").asText()).isEqualTo("amd64");
    JsonNode c = config.path("config");
    assertThat(strings(c.path("Entrypoint")))
        .containsExactly(
            "/opt/java/bin/java", "-cp", "@/app/jib-classpath-file", "@/app/jib-main-class-file");
    assertThat(strings(c.path("Cmd"))).containsExactly("--help");
    assertThat(iterable(c.path("ExposedPorts").fieldNames())).containsExactly("9400/tcp");
    assertThat(c.path("User").asText()).isEqualTo("65532:65532");
    assertThat(strings(c.path("Env"))).contains("JAVA_HOME=/opt/java", "PATH=/opt/java/bin");
    assertThat(c.path("Labels").path("org.opencontainers.image.version").asText())
        .isEqualTo(VERSION);
  }

  /** Each layer is the blob its digest names, and the config lists one diff id per layer. */
  @Test
  void everyLayerMatchesItsDigest() throws Exception {
    JsonNode layers = manifest.path("layers");
    // Released dependencies, the reactor's own (snapshot) jars, the CLI's jar, the class path
    // files, and the two extra directories (/etc; the Java runtime with its libraries): a new
    // version of the CLI changes only the small layers.
    assertThat(layers).hasSize(6);
    assertThat(config.path("rootfs").path("diff_ids")).hasSize(layers.size());
    for (JsonNode layer : layers) {
      assertThat(layer.path("mediaType").asText())
          .isEqualTo("application/vnd.oci.image.layer.v1.tar+gzip");
      String digest = layer.path("digest").asText();
      byte[] bytes = Files.readAllBytes(blobPath(digest));
      assertThat(bytes).hasSize(layer.path("size").asInt());
      assertThat("sha256:" + HexFormat.of().formatHex(sha256(bytes))).isEqualTo(digest);
    }
  }

  @Test
  void theLayersHoldTheRuntimeItsLibrariesAndEveryJarOfTheClassPath() {
    assertThat(files.get("opt/java/bin/java")).isEqualTo(0755);
    assertThat(files.get("lib64/ld-linux-x86-64.so.2")).isEqualTo(0755);
    assertThat(files)
        .containsKeys("lib/x86_64-linux-gnu/libc.so.6", "opt/java/lib/security/cacerts");
    assertThat(files).doesNotContainKey("lib/x86_64-linux-gnu/libX11.so.6");
    assertThat(files.get("tmp/")).isEqualTo(0777);
    assertThat(files).containsKey("proc/");
    assertThat(new String(smallFiles.get("etc/passwd"), StandardCharsets.UTF_8))
        .contains("nonroot:x:65532:65532:");
    assertThat(new String(smallFiles.get("app/jib-main-class-file"), StandardCharsets.UTF_8))
        .isEqualTo("dev.txoutbox.cli.Main");
    String[] classPath =
        new String(smallFiles.get("app/jib-classpath-file"), StandardCharsets.UTF_8)
            .strip()
            .split(":");
    // The CLI's own jar through the wildcard entry, every dependency by name.
    assertThat(classPath[0]).isEqualTo("/app/classpath/*");
    assertThat(files).containsKey("app/classpath/outbox-cli-" + VERSION + ".jar");
    assertThat(Stream.of(classPath).map(p -> p.substring(p.lastIndexOf('/') + 1)))
        .anyMatch(j -> j.startsWith("postgresql-"))
        .anyMatch(j -> j.startsWith("kafka-clients-"))
        .anyMatch(j -> j.startsWith("amqp-client-"))
        .anyMatch(j -> j.startsWith("sqs-"))
        .anyMatch(j -> j.startsWith("outbox-core-"));
    for (String jar : Stream.of(classPath).skip(1).toList()) {
      assertThat(files).as("a layer holds " + jar).containsKey(jar.substring(1));
    }
  }

  /**
   * The layers unpacked in order, and the entrypoint run in them as user 65532 with nothing of this
   * machine visible but the network: {@code --version}, and {@code status} against PostgreSQL.
   */
  @Test
  void theEntrypointRunsInTheImagesFileSystem() throws Exception {
    Path root = Files.createDirectories(dir.resolve("rootfs"));
    for (JsonNode layer : manifest.path("layers")) {
      run(
          List.of(
              "tar", "-xzf", blobPath(layer.path("digest").asText()).toString(), "-C", "" + root));
    }
    try (TestDatabase db = TestDatabase.create("cli_image");
        JarProcess version = inImage(root, Map.of(), "--version");
        JarProcess status =
            inImage(
                root,
                Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres"),
                "--schema",
                db.schema(),
                "status",
                "--json")) {
      assertThat(version.exitCode()).as(version.err()).isZero();
      assertThat(version.out()).isEqualTo("txoutbox " + VERSION + "\n");
      assertThat(status.exitCode()).as(status.err()).isZero();
      assertThat(status.out()).startsWith("{\"schema\":\"" + db.schema() + "\",\"pending\":0,");
    }
  }

  /**
   * The image's entrypoint and {@code args} in {@code root}: as root, chroot to user 65532 in new
   * mount and PID namespaces (with a /proc of their own, as a container has); otherwise in a user
   * namespace too, as the mapped root.
   */
  private static JarProcess inImage(Path root, Map<String, String> env, String... args)
      throws Exception {
    boolean isRoot = "root".equals(System.getProperty("user.name"));
    List<String> command = new ArrayList<>();
    command.add(tool("unshare"));
    if (!isRoot) {
      command.add("--map-root-user");
    }
    command.addAll(List.of("--mount", "--pid", "--fork", "--mount-proc=" + root.resolve("proc")));
    command.add(tool("chroot"));
    if (isRoot) {
      command.add("--userspec=" + config.path("config").path("User").asText());
    }
    command.add(root.toString());
    command.addAll(strings(config.path("config").path("Entrypoint")));
    command.addAll(List.of(args));
    Map<String, String> environment = new HashMap<>(env);
    for (String variable : strings(config.path("config").path("Env"))) {
      int eq = variable.indexOf('=');
      environment.put(variable.substring(0, eq), variable.substring(eq + 1));
    }
    return JarProcess.runCommand(command, environment);
  }

  /** The absolute path of a system tool (the image's PATH, given to the child, has none). */
  private static String tool(String name) {
    return Stream.of("/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/")
        .map(d -> Paths.get(d + name))
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(name + " is not installed"))
        .toString();
  }

  private static void run(List<String> command) throws Exception {
    try (JarProcess p = JarProcess.runCommand(command, Map.of())) {
      assertThat(p.exitCode()).as(command + ": " + p.err()).isZero();
    }
  }

  private static Path blobPath(String digest) {
    assertThat(digest).startsWith("sha256:");
    return blobs.resolve(digest.substring("sha256:".length()));
  }

  private static byte[] blob(String digest) throws IOException {
    return Files.readAllBytes(blobPath(digest));
  }

  private static byte[] sha256(byte[] bytes) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(bytes);
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private static <T> List<T> iterable(Iterator<T> it) {
    List<T> values = new ArrayList<>();
    it.forEachRemaining(values::add);
    return values;
  }

  /**
   * Reads a POSIX (ustar + pax) tar into {@link #files}, keeping the content of files under 64 KiB
   * in {@link #smallFiles}.
   */
  private static void readTar(InputStream in) throws IOException {
    String paxPath = null;
    byte[] header;
    while ((header = in.readNBytes(512)).length == 512 && header[0] != 0) {
      String name = field(header, 0, 100);
      String prefix = field(header, 345, 155);
      int mode = (int) octal(header, 100, 8);
      long size = octal(header, 124, 12);
      char type = (char) header[156];
      byte[] content = size < 65536 ? in.readNBytes((int) size) : null;
      if (content == null) {
        in.skipNBytes(size);
      }
      in.skipNBytes((512 - size % 512) % 512);
      if (type == 'x') {
        paxPath = paxValue(new String(content, StandardCharsets.UTF_8), "path");
        continue;
      }
      String path = paxPath != null ? paxPath : prefix.isEmpty() ? name : prefix + "/" + name;
      paxPath = null;
      if (type == '5' && !path.endsWith("/")) {
        path += "/";
      }
      files.put(path, mode & 07777);
      if (content != null && type == '0') {
        smallFiles.put(path, content);
      }
    }
  }

  private static String paxValue(String records, String key) {
    // Records are "LENGTH KEY=VALUE\n".
    for (String record : records.split("\n")) {
      int space = record.indexOf(' ');
      if (record.startsWith(key + "=", space + 1)) {
        return record.substring(space + 2 + key.length());
      }
    }
    return null;
  }

  private static String field(byte[] header, int from, int length) {
    int end = from;
    while (end < from + length && header[end] != 0) {
      end++;
    }
    return new String(header, from, end - from, StandardCharsets.UTF_8);
  }

  private static long octal(byte[] header, int from, int length) {
    String digits = field(header, from, length).trim();
    return digits.isEmpty() ? 0 : Long.parseLong(digits, 8);
  }
}

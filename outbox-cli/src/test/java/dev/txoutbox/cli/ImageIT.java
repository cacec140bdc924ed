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
  private static ImageRoot image;
  private static JsonNode index;
  private static JsonNode manifest;
  private static JsonNode config;

  /** Every layer's entries, path to mode, in layer order; a later layer's entry wins. */
  private static final Map<String, Integer> files = new LinkedHashMap<>();

  private static final Map<String, byte[]> smallFiles = new HashMap<>();

  @BeforeAll
  static void readImage() throws Exception {
    Path tar = Paths.get(System.getProperty("txoutbox.image", "target/txoutbox-image.tar"));
    image = ImageRoot.read(tar, dir);
    index = image.index();
    manifest = image.manifest();
    config = image.config();
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
    assertThat(ImageRoot.strings(c.path("Entrypoint")))
        .containsExactly(
            "/opt/java/bin/java",
            "-XX:SharedArchiveFile=" + ImageClassArchive.ARCHIVE,
            "-cp",
            "@/app/jib-classpath-file",
            "@/app/jib-main-class-file");
    assertThat(ImageRoot.strings(c.path("Cmd"))).containsExactly("--help");
    assertThat(iterable(c.path("ExposedPorts").fieldNames())).containsExactly("9400/tcp");
    assertThat(c.path("User").asText()).isEqualTo("65532:65532");
    assertThat(ImageRoot.strings(c.path("Env")))
        .contains("JAVA_HOME=/opt/java", "PATH=/opt/java/bin");
    assertThat(c.path("Labels").path("org.opencontainers.image.version").asText())
        .isEqualTo(VERSION);
  }

  /** Each layer is the blob its digest names, and the config lists one diff id per layer. */
  @Test
  void everyLayerMatchesItsDigest() throws Exception {
    JsonNode layers = manifest.path("layers");
    // Released dependencies, the reactor's own (snapshot) jars, the CLI's jar, the class path
    // files, and the three extra directories (/etc; the Java runtime with its libraries; the
    // class-data sharing archive): a new version of the CLI changes only the small layers and the
    // archive's.
    assertThat(layers).hasSize(7);
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
    unpacked();
    try (TestDatabase db = TestDatabase.create("cli_image");
        JarProcess version = image.run(Map.of(), image.entrypoint("--version"));
        JarProcess status =
            image.run(
                Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres"),
                image.entrypoint("--schema", db.schema(), "status", "--json"))) {
      assertThat(version.exitCode()).as(version.err()).isZero();
      assertThat(version.out()).isEqualTo("txoutbox " + VERSION + "\n");
      assertThat(status.exitCode()).as(status.err()).isZero();
      assertThat(status.out()).startsWith("{\"schema\":\"" + db.schema() + "\",\"pending\":0,");
    }
  }

  /**
   * The trained class-data sharing archive maps with the entrypoint's class path ({@code
   * -Xshare:on} refuses to start otherwise), and the classes a command loads, the CLI's, jOOQ's and
   * the driver's, come from it rather than from the jars.
   */
  @Test
  void theEntrypointLoadsItsClassesFromTheTrainedArchive() throws Exception {
    assertThat(files).containsKey(ImageClassArchive.ARCHIVE.substring(1));
    Path root = unpacked();
    Path log = root.resolve("tmp/class-load.log");
    Files.deleteIfExists(log);
    try (TestDatabase db = TestDatabase.create("cli_image_cds");
        JarProcess status =
            image.run(
                Map.of(
                    "OUTBOX_JDBC_URL",
                    TestDatabase.jdbcUrl(),
                    "OUTBOX_DB_USER",
                    "postgres",
                    "JAVA_TOOL_OPTIONS",
                    "-Xshare:on -Xlog:class+load=info:file=/tmp/class-load.log"),
                image.entrypoint("--schema", db.schema(), "status", "--json"))) {
      assertThat(status.exitCode()).as(status.err()).isZero();
    }
    List<String> loaded = Files.readAllLines(log);
    assertThat(loaded)
        .anyMatch(l -> l.contains(" dev.txoutbox.cli.Main source: shared objects file"))
        .anyMatch(l -> l.contains(" org.jooq.impl.DSL source: shared objects file"))
        .anyMatch(l -> l.contains(" org.postgresql.Driver source: shared objects file"));
    long shared = loaded.stream().filter(l -> l.contains("source: shared objects file")).count();
    assertThat(shared).as("classes from the archive").isGreaterThan(loaded.size() * 3L / 4);
  }

  private static Path unpackedRoot;

  /** The layers unpacked in order, once for the class. */
  private static synchronized Path unpacked() throws Exception {
    if (unpackedRoot == null) {
      unpackedRoot = image.unpack(Files.createDirectories(dir.resolve("rootfs")));
    }
    return unpackedRoot;
  }

  private static Path blobPath(String digest) {
    return image.blob(digest);
  }

  private static byte[] sha256(byte[] bytes) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(bytes);
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

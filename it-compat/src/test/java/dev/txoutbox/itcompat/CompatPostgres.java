package dev.txoutbox.itcompat;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.LogicalServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL major versions this module's suites run on, as its pom chooses them, each an
 * embedded {@link LogicalServer} from the zonky binaries jar the build copied to {@code
 * <compat.binaries>/postgres-<major>.jar} (the jars of all versions hold the same resource name, so
 * they cannot share a class path).
 */
final class CompatPostgres {

  /** Where the build copies the binaries jars: a system property set by the module's pom. */
  static final String BINARIES_PROPERTY = "compat.binaries";

  /** The major versions to run on, comma-separated: a system property set by the module's pom. */
  static final String MAJORS_PROPERTY = "compat.postgres";

  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  private CompatPostgres() {}

  /** The major versions {@value #MAJORS_PROPERTY} names, in its order. */
  static List<Integer> majors() {
    String majors = System.getProperty(MAJORS_PROPERTY, "");
    if (majors.isBlank()) {
      throw new IllegalStateException(
          MAJORS_PROPERTY + " must be set (it-compat's pom sets it) but was not");
    }
    return Arrays.stream(majors.split(",")).map(String::trim).map(Integer::valueOf).toList();
  }

  /** Starts an embedded server of PostgreSQL {@code major}, which the caller closes. */
  static LogicalServer start(int major) throws IOException {
    String binaries = System.getProperty(BINARIES_PROPERTY);
    if (binaries == null) {
      throw new IllegalStateException(
          BINARIES_PROPERTY + " must be set (it-compat's pom sets it) but was not");
    }
    return LogicalServer.embedded(Path.of(binaries, "postgres-" + major + ".jar"), Map.of());
  }

  /** A fresh schema of {@code server}, with the outbox tables migrated into it: {@code name_N}. */
  static OutboxTables freshOutbox(LogicalServer server, String name) {
    OutboxTables tables = OutboxTables.in(name + "_" + SCHEMAS.incrementAndGet());
    OutboxSchema.migrate(server.dataSource(), tables);
    return tables;
  }
}

package dev.txoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Every outbox migration on the Flyway found on the class path, which the build makes both our own
 * version and the oldest one we claim (the surefire execution {@code lowest-flyway}).
 */
class FlywayVersionTest {

  @Test
  void theOutboxMigrationsRunOnTheFlywayOnTheClassPath() {
    String expected = System.getProperty("txoutbox.expectedFlywayVersion");
    assertThat(expected).as("set by the build").isNotBlank();
    String jar = Flyway.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    assertThat(jar).endsWith("/flyway-core-" + expected + ".jar");

    try (TestDatabase db = TestDatabase.createEmpty("flyway_version", 2)) {
      OutboxTables tables = OutboxTables.of(db.schema(), "v_");
      assertThat(OutboxSchema.migrate(db.dataSource(), tables)).isEqualTo(3);
      assertThat(OutboxSchema.migrateNotifyTrigger(db.dataSource(), tables)).isEqualTo(1);
      assertThat(OutboxSchema.migrateOrderingIndex(db.dataSource(), tables)).isEqualTo(2);
      assertThat(OutboxSchema.migrate(db.dataSource(), tables)).isZero();
      assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isEqualTo(3);
    }
  }
}

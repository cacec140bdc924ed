package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;

import org.jooq.Constants;
import org.junit.jupiter.api.Test;

/**
 * The jOOQ on this module's test class path is the one the build asked for (the parent's, or a
 * jooq-3.20 / jooq-3.21 profile's), so a green {@link PostgresVersionsTest} speaks of that runtime.
 */
class JooqRuntimeTest {

  /** The jOOQ version the pom resolved: a system property set by the module's pom. */
  static final String JOOQ_PROPERTY = "compat.jooq";

  @Test
  void theSuiteRunsOnTheJooqVersionTheBuildNames() throws ReflectiveOperationException {
    // Read at run time: Constants.VERSION itself is a constant the compiler copies into this class.
    Object loaded = Constants.class.getField("VERSION").get(null);
    assertThat(loaded)
        .as("jOOQ on the class path, on Java %s", Runtime.version())
        .isEqualTo(System.getProperty(JOOQ_PROPERTY));
  }
}

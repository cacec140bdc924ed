package dev.txoutbox.internal;

import dev.txoutbox.schema.OutboxTables;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The database a builder was given, as the one rule the relay's and the admin's builders share:
 * exactly one of a data source or a jOOQ context, rendered onto the outbox's tables.
 */
public final class OutboxDatabase {

  private OutboxDatabase() {}

  /**
   * A context on {@code dataSource} or {@code dsl}, whichever was given, that renders the generated
   * model onto {@code tables} (schema and table prefix), its settings passed through {@code
   * settings} last.
   *
   * @param owner what was being built, for the message ({@code "the relay"})
   * @throws IllegalStateException unless exactly one of {@code dataSource} and {@code dsl} is given
   */
  public static DSLContext mapped(
      String owner,
      @Nullable DataSource dataSource,
      @Nullable DSLContext dsl,
      OutboxTables tables,
      UnaryOperator<Settings> settings) {
    if ((dataSource == null) == (dsl == null)) {
      throw new IllegalStateException(
          owner
              + " must be given exactly one of dataSource(...) or dsl(...) but was given "
              + (dsl == null ? "neither" : "both"));
    }
    DSLContext base = dsl != null ? dsl : DSL.using(dataSource, SQLDialect.POSTGRES);
    return DSL.using(base.configuration().derive(settings.apply(tables.settings(base.settings()))));
  }
}

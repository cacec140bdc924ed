package dev.txoutbox.console;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.schema.OutboxTables;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * One outbox the console shows, by its name in URLs: its tables, the admin over them and the
 * console's own queries, all on connections with the console's statement timeout. Thread-safe.
 */
final class ConsoleOutbox {

  private final String name;
  private final OutboxTables tables;
  private final DSLContext catalog;
  private final DSLContext dsl;
  private final OutboxAdmin admin;
  private final EventQueries events;
  private final Samples samples;
  private final Duration statusMaxAge;
  private final Object statusLock = new Object();
  private volatile @Nullable CachedStatus cached;

  /** A status and when it was read ({@link System#nanoTime()}). */
  private record CachedStatus(OutboxStatus status, long readAt) {}

  ConsoleOutbox(
      String name,
      DataSource dataSource,
      OutboxTables tables,
      Duration timeout,
      Clock clock,
      int sampleCapacity,
      Duration statusMaxAge) {
    this.name = name;
    this.tables = tables;
    this.catalog = DSL.using(new TimeoutConnections(dataSource, timeout), SQLDialect.POSTGRES);
    this.dsl = DSL.using(catalog.configuration().derive(tables.settings(catalog.settings())));
    this.admin = OutboxAdmin.builder().dsl(catalog).tables(tables).clock(clock).build();
    this.events = new EventQueries(dsl, tables);
    this.samples = new Samples(sampleCapacity);
    this.statusMaxAge = statusMaxAge;
  }

  /**
   * The admin's {@link OutboxAdmin#status()}, the costliest read on a large backlog (it counts the
   * pending events), read at most once per {@code statusMaxAge} however many pages, tabs and the
   * sampler ask; concurrent askers wait for one read.
   */
  OutboxStatus status() {
    CachedStatus c = cached;
    if (c != null && System.nanoTime() - c.readAt() < statusMaxAge.toNanos()) {
      return c.status();
    }
    synchronized (statusLock) {
      c = cached;
      if (c != null && System.nanoTime() - c.readAt() < statusMaxAge.toNanos()) {
        return c.status();
      }
      OutboxStatus status = admin.status();
      cached = new CachedStatus(status, System.nanoTime());
      return status;
    }
  }

  /** Forgets the cached status: an action changed the counts. */
  void statusChanged() {
    cached = null;
  }

  /** The charts' last hour, filled by the {@link Sampler}. */
  Samples samples() {
    return samples;
  }

  String name() {
    return name;
  }

  OutboxTables tables() {
    return tables;
  }

  /** For catalog queries ({@code pg_replication_slots}): no render mapping. */
  DSLContext catalog() {
    return catalog;
  }

  /** For queries of the generated model, rendered onto {@link #tables()}. */
  DSLContext dsl() {
    return dsl;
  }

  OutboxAdmin admin() {
    return admin;
  }

  EventQueries events() {
    return events;
  }
}

package dev.txoutbox.internal.writer;

import dev.txoutbox.HeadersProvider;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.schema.OutboxTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.TransactionListener;
import org.jooq.impl.DSL;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jooq.impl.DefaultConnectionProvider;
import org.jspecify.annotations.Nullable;

/** The {@link Outbox} writer: validation, then multi-row INSERTs in the caller's transaction. */
public final class DefaultOutbox implements Outbox {

  /**
   * Rows per INSERT statement: 7 bind values a row stays well below PostgreSQL's 65,535 bind
   * parameters per statement.
   */
  public static final int MAX_ROWS_PER_STATEMENT = 5000;

  /**
   * Payload and header text per INSERT statement: 64 MiB, far below PostgreSQL's 1 GiB limit on one
   * protocol message. A single larger row gets a statement of its own.
   */
  static final long MAX_BYTES_PER_STATEMENT = 64L * 1024 * 1024;

  /**
   * The largest {@code maxPayloadBytes}: 40 MiB. The binary jsonb of JSON text can be 6 times the
   * text ({@code [0,0,…]}: 2 bytes of text, 12 of jsonb per element), and PostgreSQL refuses jsonb
   * over 268,435,455 bytes: 6 × 40 MiB stays below it.
   */
  public static final int MAX_PAYLOAD_BYTES_LIMIT = 40 * 1024 * 1024;

  private final InsertSql insertSql;
  private final EventValidator validator;
  private final boolean allowAutoCommit;
  private final boolean externallyManagedTransactions;
  private final @Nullable AggregateLocks locks;
  private final CommitWakeUp wakeUp;

  public DefaultOutbox(
      OutboxTables tables,
      @Nullable PayloadSerializer serializer,
      HeadersProvider headersProvider,
      boolean allowAutoCommit,
      boolean externallyManagedTransactions,
      boolean lockPerAggregate,
      int maxPayloadBytes,
      List<Runnable> afterCommit) {
    this.insertSql = new InsertSql(tables);
    this.validator = new EventValidator(serializer, headersProvider, maxPayloadBytes);
    this.allowAutoCommit = allowAutoCommit;
    this.externallyManagedTransactions = externallyManagedTransactions;
    this.locks = lockPerAggregate ? new AggregateLocks(tables) : null;
    this.wakeUp = new CommitWakeUp(afterCommit);
  }

  @Override
  public UUID record(DSLContext tx, OutboxEvent event) {
    Objects.requireNonNull(tx, "tx");
    EventRow row = validator.validate(event, "event");
    return write(tx, List.of(row)).get(0);
  }

  @Override
  public List<UUID> recordAll(DSLContext tx, List<OutboxEvent> events) {
    Objects.requireNonNull(tx, "tx");
    Objects.requireNonNull(events, "events");
    if (events.isEmpty()) {
      return List.of();
    }
    List<EventRow> rows = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      rows.add(validator.validate(events.get(i), "events[" + i + "]"));
    }
    return write(tx, rows);
  }

  @Override
  public TransactionListener transactionListener() {
    return wakeUp;
  }

  /** Writes on one connection of {@code tx}: the one checked is the one written on. */
  private List<UUID> write(DSLContext tx, List<EventRow> rows) {
    return tx.connectionResult(connection -> write(tx, connection, rows));
  }

  private List<UUID> write(DSLContext tx, Connection connection, List<EventRow> rows)
      throws SQLException {
    // The caller's configuration on this one connection: its listeners and settings still apply.
    DSLContext dsl =
        DSL.using(tx.configuration().derive(new DefaultConnectionProvider(connection)));
    if (!connection.getAutoCommit()) {
      requireBoundToTransaction(tx);
      List<UUID> ids = insert(dsl, connection, rows);
      wakeUp.eventsWritten();
      return ids;
    }
    if (!allowAutoCommit) {
      throw new IllegalStateException(
          "Outbox.record needs the caller's transaction, but the connection is in auto-commit"
              + " mode: call it inside dsl.transaction(tx -> outbox.record(tx.dsl(), ...)), or"
              + " build the Outbox with allowAutoCommit(true) to write the events on their own");
    }
    List<UUID> ids =
        locks == null && statementEnd(rows, 0) == rows.size()
            ? insert(dsl, connection, rows)
            : insertInOwnTransaction(connection, dsl, rows);
    wakeUp.committed();
    return ids;
  }

  /**
   * A connection that is not in auto-commit mode, taken from a plain {@code DataSource} outside any
   * jOOQ transaction, is one nobody commits: the pool rolls it back when jOOQ returns it.
   */
  private void requireBoundToTransaction(DSLContext tx) {
    if (!externallyManagedTransactions
        && tx.configuration().connectionProvider() instanceof DataSourceConnectionProvider) {
      throw new IllegalStateException(
          "Outbox.record was given a DSLContext that is not bound to a transaction: it takes a"
              + " new connection from its DataSource for each statement, so the events would not"
              + " commit with your business rows (the pool rolls them back). Pass the"
              + " transaction's context: dsl.transaction(tx -> outbox.record(tx.dsl(), ...)). If"
              + " a framework manages the transaction and the DataSource hands out its connection"
              + " (Spring's TransactionAwareDataSourceProxy, a JTA data source), build the Outbox"
              + " with externallyManagedTransactions(true)");
    }
  }

  /**
   * In auto-commit mode every statement commits on its own: a call needing several (several chunks,
   * or the aggregate locks and the INSERT) runs them in one transaction of its own, so it writes
   * all of its events or none.
   */
  private List<UUID> insertInOwnTransaction(
      Connection connection, DSLContext dsl, List<EventRow> rows) throws SQLException {
    connection.setAutoCommit(false);
    try {
      List<UUID> ids = insert(dsl, connection, rows);
      connection.commit();
      return ids;
    } catch (RuntimeException | SQLException e) {
      try {
        connection.rollback();
      } catch (SQLException rollback) {
        e.addSuppressed(rollback);
      }
      throw e;
    } finally {
      connection.setAutoCommit(true);
    }
  }

  private List<UUID> insert(DSLContext dsl, Connection connection, List<EventRow> rows)
      throws SQLException {
    if (locks != null) {
      locks.lock(dsl, rows);
    }
    long now = System.currentTimeMillis();
    List<UUID> ids = new ArrayList<>(rows.size());
    for (int from = 0, to; from < rows.size(); from = to) {
      to = statementEnd(rows, from);
      UUID[] chunk = new UUID[to - from];
      for (int i = 0; i < chunk.length; i++) {
        chunk[i] = UuidV7.next(now);
        ids.add(chunk[i]);
      }
      insertSql.execute(dsl, connection, rows.subList(from, to), chunk);
    }
    return ids;
  }

  /**
   * The end (exclusive) of the statement starting at row {@code from}: at most {@link
   * #MAX_ROWS_PER_STATEMENT} rows and {@link #MAX_BYTES_PER_STATEMENT} bytes, at least one row.
   */
  private static int statementEnd(List<EventRow> rows, int from) {
    int limit = Math.min(rows.size(), from + MAX_ROWS_PER_STATEMENT);
    long bytes = rows.get(from).wireBytes();
    int to = from + 1;
    while (to < limit && bytes + rows.get(to).wireBytes() <= MAX_BYTES_PER_STATEMENT) {
      bytes += rows.get(to).wireBytes();
      to++;
    }
    return to;
  }
}

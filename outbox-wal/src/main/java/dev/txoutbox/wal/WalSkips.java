package dev.txoutbox.wal;

import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.SecretMasking;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.postgresql.replication.LogSequenceNumber;

/**
 * Moves a slot past a transaction the server cannot decode ({@code pg_replication_slot_advance},
 * which reads the WAL without calling the output plugin's change callbacks), and keeps a record of
 * each such move in the table {@code <schema>.<prefix>outbox_wal_skips}, created on the first move,
 * so that {@code txoutbox wal-slot show}, in another process, can tell. The catalog functions have
 * no generated model: named fields and plain SQL.
 */
final class WalSkips {

  /** The record table's name after the table prefix. */
  static final String TABLE = "outbox_wal_skips";

  /** How long a move waits for the server to release the slot of the stream that failed: 10 s. */
  private static final long RELEASE_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static final Field<String> SLOT = DSL.field(DSL.name("slot_name"), String.class);
  private static final Field<Long> XID = DSL.field(DSL.name("xid"), Long.class);
  private static final Field<String> COMMIT_LSN = DSL.field(DSL.name("commit_lsn"), String.class);
  private static final Field<String> FROM_LSN = DSL.field(DSL.name("from_lsn"), String.class);
  private static final Field<String> TO_LSN = DSL.field(DSL.name("to_lsn"), String.class);
  private static final Field<String> ERROR = DSL.field(DSL.name("error"), String.class);
  private static final Field<OffsetDateTime> SKIPPED_AT =
      DSL.field(DSL.name("skipped_at"), SQLDataType.TIMESTAMPWITHTIMEZONE);

  private WalSkips() {}

  /**
   * One move past a transaction: its {@code xid}, its commit's position, and the slot's confirmed
   * position before and after.
   */
  record Move(long xid, long commitLsn, long fromLsn, long toLsn) {}

  /**
   * Moves {@code slot} just past the commit of the transaction {@code stuck} began, on {@code
   * replication} (a connection with the REPLICATION privilege), once the stream that failed has
   * released the slot: the server refuses to move a slot a stream holds (55006), so it tries again
   * every 50 ms for up to 10 s while {@code running}.
   *
   * @throws SQLException if the server refuses the move, or still holds the slot after 10 s
   */
  static Move advance(
      Connection replication, String slot, PgOutput.Begin stuck, BooleanSupplier running)
      throws SQLException {
    DSLContext dsl = DSL.using(replication, SQLDialect.POSTGRES);
    // Past the commit record's first byte: decoding skips a commit that starts before the slot's
    // confirmed position, and the next transaction's commit record starts after this one ends.
    String to = LogSequenceNumber.valueOf(stuck.finalLsn() + 1).asString();
    long deadline = System.nanoTime() + RELEASE_NANOS;
    while (true) {
      try {
        String from =
            dsl.fetchSingle(
                    "SELECT confirmed_flush_lsn::text FROM pg_catalog.pg_replication_slots"
                        + " WHERE slot_name = {0}",
                    slot)
                .get(0, String.class);
        String moved =
            dsl.fetchSingle(
                    "SELECT end_lsn::text FROM pg_catalog.pg_replication_slot_advance({0},"
                        + " {1}::pg_lsn)",
                    slot, to)
                .get(0, String.class);
        return new Move(
            Integer.toUnsignedLong(stuck.xid()),
            stuck.finalLsn(),
            LogSequenceNumber.valueOf(from).asLong(),
            LogSequenceNumber.valueOf(moved).asLong());
      } catch (DataAccessException e) {
        if (!"55006".equals(e.sqlState())
            || System.nanoTime() - deadline >= 0
            || !running.getAsBoolean()) {
          throw new SQLException(e.getMessage(), e.sqlState(), e);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      }
    }
  }

  /**
   * Records {@code move} of {@code slot} and the server's {@code error} (credentials masked, cut to
   * {@link RelayKernel#MAX_ERROR_LENGTH}), creating the table first if it is missing.
   *
   * @throws DataAccessException if the table cannot be created or written
   */
  static void record(DSLContext dsl, OutboxTables tables, String slot, Move move, String error) {
    Table<?> table = table(tables);
    dsl.transactionResult(
        cfg -> {
          DSLContext tx = cfg.dsl();
          tx.createTableIfNotExists(table)
              .column(SLOT.getName(), SQLDataType.CLOB.notNull())
              .column(XID.getName(), SQLDataType.BIGINT.notNull())
              .column(COMMIT_LSN.getName(), SQLDataType.CLOB.notNull())
              .column(FROM_LSN.getName(), SQLDataType.CLOB.notNull())
              .column(TO_LSN.getName(), SQLDataType.CLOB.notNull())
              .column(ERROR.getName(), SQLDataType.CLOB.notNull())
              .column(SKIPPED_AT.getName(), SQLDataType.TIMESTAMPWITHTIMEZONE.notNull())
              .execute();
          return tx.insertInto(table)
              .set(SLOT, slot)
              .set(XID, move.xid())
              .set(COMMIT_LSN, lsn(move.commitLsn()))
              .set(FROM_LSN, lsn(move.fromLsn()))
              .set(TO_LSN, lsn(move.toLsn()))
              .set(ERROR, RelayKernel.errorText(SecretMasking.maskText(error)))
              .set(SKIPPED_AT, DSL.currentOffsetDateTime())
              .execute();
        });
  }

  /**
   * The recorded moves of {@code slot}, oldest first; none if the table does not exist (no slot of
   * this outbox was ever moved).
   */
  static List<WalSlot.SkippedTransaction> find(DSLContext dsl, OutboxTables tables, String slot) {
    Name name = name(tables);
    String regclass =
        dsl.select(DSL.field("to_regclass({0})", String.class, DSL.val(name.toString())))
            .fetchSingle()
            .value1();
    if (regclass == null) {
      return List.of();
    }
    return dsl.select(XID, COMMIT_LSN, FROM_LSN, TO_LSN, ERROR, SKIPPED_AT)
        .from(table(tables))
        .where(SLOT.eq(slot))
        .orderBy(SKIPPED_AT, XID)
        .fetch(
            r ->
                new WalSlot.SkippedTransaction(
                    r.value1(), r.value2(), r.value3(), r.value4(), r.value5(), r.value6()));
  }

  /** {@code pg_lsn}'s text form of {@code lsn}, such as {@code 0/1737D40}. */
  static String lsn(long lsn) {
    return LogSequenceNumber.valueOf(lsn).asString();
  }

  private static Name name(OutboxTables tables) {
    return DSL.name(tables.schema(), tables.tablePrefix() + TABLE);
  }

  private static Table<?> table(OutboxTables tables) {
    return DSL.table(name(tables));
  }
}

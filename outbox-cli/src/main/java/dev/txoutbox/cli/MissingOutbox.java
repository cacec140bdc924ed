package dev.txoutbox.cli;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The error of a command that found no outbox tables in its schema (and table prefix). When the
 * database holds an outbox elsewhere, it names the flags that reach it before offering {@code
 * migrate}, which would create a second, empty outbox where the command looked. Stateless.
 */
final class MissingOutbox {

  /** The most outboxes found elsewhere that the message names. */
  static final int MAX_SHOWN = 5;

  /** The events table without a prefix: an outbox's table name ends with it. */
  private static final String EVENTS_TABLE = OutboxTables.defaults().eventsTable();

  private static final String FIND =
      "select n.nspname, c.relname from pg_catalog.pg_class c"
          + " join pg_catalog.pg_namespace n on n.oid = c.relnamespace"
          + " where c.relkind in ('r', 'p') and right(c.relname, length(?)) = ?"
          + " and n.nspname <> 'information_schema' and n.nspname not like 'pg\\_%'"
          + " order by n.nspname, c.relname limit ?";

  private MissingOutbox() {}

  /**
   * Checks, for a command that would otherwise fail later with a less helpful message (the relay),
   * that {@code root}'s outbox events table exists. A database that cannot be asked now is not an
   * error here: the relay waits out outages.
   *
   * @throws CliException if the table does not exist, with {@link #describe}'s message
   */
  static void require(DataSource dataSource, TxoutboxCommand root, OutboxTables tables) {
    String table = tables.schema() + "." + tables.eventsTable();
    boolean exists;
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement("select to_regclass(?) is not null")) {
      s.setString(1, '"' + tables.schema() + "\".\"" + tables.eventsTable() + '"');
      try (ResultSet rs = s.executeQuery()) {
        exists = !rs.next() || rs.getBoolean(1);
      }
    } catch (SQLException e) {
      return;
    }
    if (!exists) {
      throw new CliException(describe(root, "table " + table + " does not exist"));
    }
  }

  /**
   * The one line for {@code root}'s command, whose database said {@code reason} (already masked).
   * The database is asked for outbox tables in other schemas or with other prefixes; if that fails
   * too, the message offers {@code migrate} alone.
   */
  static String describe(TxoutboxCommand root, String reason) {
    String schema = root.schema == null ? OutboxSchema.DEFAULT_SCHEMA : root.schema;
    String prefix = root.tablePrefix == null ? "" : root.tablePrefix;
    String message =
        "no outbox tables in schema '"
            + schema
            + "'"
            + (prefix.isEmpty() ? "" : " with table prefix '" + prefix + "'")
            + " ("
            + reason
            + ")";
    List<OutboxTables> elsewhere = elsewhere(root, schema, prefix);
    if (elsewhere.isEmpty()) {
      return message + "; run 'txoutbox migrate' first";
    }
    return message
        + "; the database has "
        + (elsewhere.size() == 1 ? "an outbox" : "outboxes")
        + " elsewhere: give "
        + elsewhere.stream().map(t -> flags(t, prefix)).collect(Collectors.joining(", or "))
        + " (or run 'txoutbox migrate' to create a new, empty one here)";
  }

  /** The flags that reach {@code tables} from a command line that gave {@code givenPrefix}. */
  private static String flags(OutboxTables tables, String givenPrefix) {
    String prefix =
        !tables.tablePrefix().isEmpty()
            ? " --table-prefix " + tables.tablePrefix()
            : givenPrefix.isEmpty() ? "" : " without --table-prefix";
    return "--schema " + tables.schema() + prefix;
  }

  /** The outboxes the database holds other than the one asked for; none if it cannot be asked. */
  private static List<OutboxTables> elsewhere(TxoutboxCommand root, String schema, String prefix) {
    List<OutboxTables> found = new ArrayList<>();
    try (Connection c =
            DatabaseTarget.resolve(root, root.context().env()).connect().getConnection();
        PreparedStatement s = c.prepareStatement(FIND)) {
      s.setString(1, EVENTS_TABLE);
      s.setString(2, EVENTS_TABLE);
      s.setInt(3, MAX_SHOWN + 1);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next() && found.size() < MAX_SHOWN) {
          String table = rs.getString(2);
          String tablePrefix = table.substring(0, table.length() - EVENTS_TABLE.length());
          boolean asked = rs.getString(1).equals(schema) && tablePrefix.equals(prefix);
          if (!asked) {
            outbox(rs.getString(1), tablePrefix).ifPresent(found::add);
          }
        }
      }
    } catch (SQLException | RuntimeException e) {
      // No better advice than migrate: the original error stands alone.
      return List.of();
    }
    return found;
  }

  /** The outbox in {@code schema} with {@code prefix}, unless the CLI could not name it. */
  private static Optional<OutboxTables> outbox(String schema, String prefix) {
    try {
      return Optional.of(OutboxTables.of(schema, prefix));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}

package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.wal.WalSlot;
import java.sql.Connection;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * {@code wal-slot show} and {@code wal-slot drop} report one figure for the WAL a slot keeps on
 * disk, from its restart lsn: the figure a drop releases. Before, {@code drop} said "holding N
 * bytes of WAL" with N the lag from the confirmed lsn, which is smaller than what the slot retains
 * while a transaction that began before the confirmed position is still open.
 */
class WalSlotRetainedWalTest {

  private static final Pattern RETAINING =
      Pattern.compile("retaining ([0-9]+) bytes of WAL since restart lsn ([0-9A-F]+/[0-9A-F]+)");

  @Test
  void dropReportsTheWalRetainedFromTheRestartLsnNotTheLag() throws Exception {
    LogicalDatabase db = LogicalDatabase.freshOutbox();
    CliRunner cli = new CliRunner().withArgs(db.options());
    String slot = WalSlot.defaultName(OutboxTables.of(db.schema, ""));
    DSLContext dsl = DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES);
    // Catalog statements: no generated model for them.
    dsl.execute("CREATE PUBLICATION " + slot + " FOR TABLE " + db.schema + ".outbox_events");
    dsl.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    try (Connection open = LogicalDatabase.dataSource().getConnection()) {
      // A transaction with an xid left open: the slot must be able to decode it later, so its
      // restart lsn stays before it however far the confirmed position moves.
      open.setAutoCommit(false);
      try (Statement st = open.createStatement()) {
        st.execute("SELECT pg_current_xact_id()");
      }
      db.write(200, 5);
      dsl.execute(
          "SELECT pg_replication_slot_advance('" + slot + "', pg_current_wal_insert_lsn())");
      WalSlot before = WalSlot.find(LogicalDatabase.dataSource(), slot).orElseThrow();
      long confirmedAheadOfRestart =
          LogicalDatabase.lsn(before.confirmedFlushLsn().orElseThrow())
              - LogicalDatabase.lsn(before.restartLsn().orElseThrow());
      // The old figure (the lag) would be smaller than this gap alone.
      assertThat(confirmedAheadOfRestart).isGreaterThan(before.lagBytes().getAsLong());

      CliRunner.Result shown = cli.run("wal-slot", "show", "--json");
      assertThat(shown.exitCode()).as(shown.err()).isZero();
      JsonNode o = JsonMapper.builder().build().readTree(shown.out());
      assertThat(o.get("retained_wal_bytes").asLong())
          .isGreaterThanOrEqualTo(confirmedAheadOfRestart)
          .isEqualTo(
              o.get("lag_bytes").asLong()
                  + LogicalDatabase.lsn(o.get("confirmed_flush_lsn").asText())
                  - LogicalDatabase.lsn(o.get("restart_lsn").asText()));
      CliRunner.Result text = cli.run("wal-slot", "show");
      assertThat(text.out().lines())
          .anyMatch(l -> l.matches("retained wal: +[0-9]+ bytes since restart lsn"));

      String[] drop = {"wal-slot", "drop", "--slot", slot};
      CliRunner.Result refused = cli.run(drop);
      assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertRetains(refused.err(), before, confirmedAheadOfRestart);

      CliRunner.Result dropped = cli.run("wal-slot", "drop", "--slot", slot, "--yes");
      assertThat(dropped.exitCode()).as(dropped.err()).isZero();
      assertThat(dropped.out()).startsWith("dropped replication slot " + slot + " (retaining ");
      assertRetains(dropped.out(), before, confirmedAheadOfRestart);
      open.rollback();
    } finally {
      dsl.execute(
          "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
              + " WHERE slot_name = ?",
          slot);
      dsl.execute("DROP PUBLICATION IF EXISTS " + slot);
    }
  }

  private static void assertRetains(String said, WalSlot before, long atLeast) {
    Matcher m = RETAINING.matcher(said);
    assertThat(m.find()).as(said).isTrue();
    assertThat(Long.parseLong(m.group(1))).isGreaterThanOrEqualTo(atLeast);
    assertThat(m.group(2)).isEqualTo(before.restartLsn().orElseThrow());
  }

  @Test
  void lsnIsReadAsOneNumberAndAnythingElseIsRefused() {
    assertThat(WalSlotCommand.lsn("1/0") - WalSlotCommand.lsn("0/FFFFFFFF")).isEqualTo(1);
    assertThat(WalSlotCommand.lsn("16/B374D848")).isEqualTo(0x16B374D848L);
    assertThatThrownBy(() -> WalSlotCommand.lsn("16B374D848"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an lsn must be two hexadecimal numbers around a slash but was '16B374D848'");
    assertThatThrownBy(() -> WalSlotCommand.lsn("0/")).isInstanceOf(IllegalArgumentException.class);
  }
}

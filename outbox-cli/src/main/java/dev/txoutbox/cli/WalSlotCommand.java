package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.RelayOption;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.wal.WalOptions;
import dev.txoutbox.wal.WalSlot;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code txoutbox wal-slot}: show and drop the replication slot of {@code relay --source wal}. */
@Command(
    name = "wal-slot",
    mixinStandardHelpOptions = true,
    description = "Shows and drops the replication slot that 'relay --source wal' reads.")
final class WalSlotCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(), "a command must be given (show or drop) but was not");
  }

  /**
   * {@code value}, or the relay's default name for {@code target}, checked by the WAL relay's own
   * rule ({@link WalOptions#SLOT_NAME} or {@link WalOptions#PUBLICATION_NAME}, whose flag it is)
   * before anything connects.
   */
  static String name(
      DatabaseCommand command, DatabaseTarget target, String value, RelayOption<String> option) {
    String name = value != null ? value : WalSlot.defaultName(target.tables());
    try {
      return option.check(name, null, OptionFlags.FLAGS);
    } catch (IllegalArgumentException e) {
      throw command.usageError(e.getMessage());
    }
  }

  static CliException missing(String slot) {
    return new CliException(
        "replication slot " + slot + " does not exist ('relay --source wal' creates it at start)");
  }

  /** {@code wal-slot show}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = {
        "Shows the slot: plugin, database, whether a relay reads it (and its process), the"
            + " confirmed and restart positions, WAL status, the WAL not yet confirmed (lag) and"
            + " the WAL it retains (from its restart position, what a drop releases), its"
            + " publication, and each transaction the relay moved it past because the server"
            + " could not decode it (its events were left to the sweeper).",
        "Exit code 1 when the slot does not exist."
      })
  static final class ShowCommand extends DatabaseCommand {

    @Option(
        names = "--slot",
        paramLabel = "NAME",
        description = "The slot. Default: txoutbox_<table prefix><schema>, as the relay's.")
    String slot;

    @Option(
        names = "--publication",
        paramLabel = "NAME",
        description = "The publication shown with it. Default: the slot's default name.")
    String publication;

    @Option(names = "--json", description = "One JSON object on stdout.")
    boolean json;

    ShowCommand(TxoutboxCommand root) {
      super(root);
    }

    @Override
    public Integer call() {
      DatabaseTarget target = target();
      String slotName = name(this, target, slot, WalOptions.SLOT_NAME);
      String publicationName = name(this, target, publication, WalOptions.PUBLICATION_NAME);
      DataSource db = connect(target);
      WalSlot found =
          WalSlot.find(db, slotName, publicationName).orElseThrow(() -> missing(slotName));
      List<WalSlot.SkippedTransaction> skipped =
          WalSlot.skippedTransactions(db, target.tables(), slotName);
      out().println(json ? json(found, skipped) : table(found, skipped));
      return ExitCodes.OK;
    }
  }

  /** {@code wal-slot drop}. */
  @Command(
      name = "drop",
      mixinStandardHelpOptions = true,
      description = {
        "Drops the slot, releasing the WAL it holds back; the publication stays. Refuses (exit"
            + " code 1) a slot a relay reads, one that cannot be a relay's (physical, another"
            + " plugin than pgoutput, another database), and, without --force, one that has no"
            + " publication of --publication's name publishing the outbox table. Without --yes"
            + " says what it would drop (exit code 2).",
        "A relay started later creates the slot anew; its sweeper publishes what was committed"
            + " in between."
      })
  static final class DropCommand extends DatabaseCommand {

    @Option(
        names = "--slot",
        required = true,
        paramLabel = "NAME",
        description = "The slot, named explicitly.")
    String slot;

    @Option(
        names = "--publication",
        paramLabel = "NAME",
        description =
            "The relay's publication, which must exist and publish the outbox table. Default:"
                + " the slot's name (the relay names both alike).")
    String publication;

    @Option(
        names = "--force",
        description =
            "Drop a pgoutput slot of this database even if no such publication exists (it may"
                + " be another reader's: a Debezium connector, a subscriber).")
    boolean force;

    @Option(names = "--yes", description = "Really drop it.")
    boolean yes;

    DropCommand(TxoutboxCommand root) {
      super(root);
    }

    @Override
    public Integer call() {
      DatabaseTarget target = target();
      String slotName = name(this, target, slot, WalOptions.SLOT_NAME);
      String publicationName =
          name(
              this,
              target,
              publication != null ? publication : slotName,
              WalOptions.PUBLICATION_NAME);
      DataSource db = connect(target);
      WalSlot found =
          WalSlot.find(db, slotName, publicationName).orElseThrow(() -> missing(slotName));
      if (!force) {
        requireRelayPublication(found, publicationName, target);
      }
      String held = held(found);
      if (!yes) {
        err()
            .println(
                "txoutbox: refusing to drop replication slot "
                    + slotName
                    + " ("
                    + (found.active() ? "active, " : "")
                    + held
                    + ") without --yes; nothing dropped");
        return ExitCodes.USAGE;
      }
      try {
        WalSlot.drop(db, slotName);
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage(), e);
      }
      out().println("dropped replication slot " + slotName + " (" + held + ")");
      return ExitCodes.OK;
    }
  }

  /**
   * Refuses a slot without the relay's publication: one that publishes the outbox table of {@code
   * target} under {@code publicationName}. Without it the slot is likely another reader's.
   */
  private static void requireRelayPublication(
      WalSlot slot, String publicationName, DatabaseTarget target) {
    String table = target.tables().schema() + "." + target.tables().eventsTable();
    boolean relays =
        slot.publication().map(p -> p.allTables() || p.tables().contains(table)).orElse(false);
    if (!relays) {
      throw new CliException(
          "replication slot "
              + slot.name()
              + " has no relay publication: "
              + (slot.publication().isPresent()
                  ? "publication " + publicationName + " does not publish " + table
                  : "publication " + publicationName + " does not exist")
              + ", so the slot may be another reader's (a Debezium connector, a subscriber)."
              + " Name the relay's with --publication, or drop the slot anyway with --force;"
              + " nothing dropped");
    }
  }

  /**
   * What dropping {@code s} releases, in the one figure {@code wal-slot show} calls retained WAL:
   * {@code retaining N bytes of WAL since restart lsn X}.
   */
  static String held(WalSlot s) {
    OptionalLong retained = retainedBytes(s);
    return retained.isPresent()
        ? "retaining "
            + retained.getAsLong()
            + " bytes of WAL since restart lsn "
            + s.restartLsn().orElseThrow()
        : "retained WAL unknown: no restart or confirmed lsn"
            + s.walStatus().map(w -> ", wal status " + w).orElse("");
  }

  /**
   * The bytes of WAL the server keeps for {@code s}: from its restart lsn, the oldest position it
   * may still have to decode again, to the server's insert position, as read with {@link
   * WalSlot#lagBytes()} (one query). Dropping the slot releases them; {@code
   * max_slot_wal_keep_size} limits them. At least the lag, which counts only from the confirmed
   * lsn: an open transaction that began before the confirmed position keeps the restart lsn behind
   * it. Empty when a position is unknown (a physical slot has no confirmed lsn, a lost one no
   * restart lsn).
   */
  static OptionalLong retainedBytes(WalSlot s) {
    if (s.lagBytes().isEmpty() || s.confirmedFlushLsn().isEmpty() || s.restartLsn().isEmpty()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(
        s.lagBytes().getAsLong() + lsn(s.confirmedFlushLsn().get()) - lsn(s.restartLsn().get()));
  }

  /**
   * The position {@code text} ({@code 16/B374D848}, as PostgreSQL writes a {@code pg_lsn}) as one
   * number.
   *
   * @throws IllegalArgumentException if {@code text} is not two hexadecimal numbers around a slash
   */
  static long lsn(String text) {
    int slash = text.indexOf('/');
    try {
      if (slash < 1 || slash == text.length() - 1) {
        throw new NumberFormatException();
      }
      return (Long.parseLong(text.substring(0, slash), 16) << 32)
          + Long.parseLong(text.substring(slash + 1), 16);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "an lsn must be two hexadecimal numbers around a slash but was '" + text + "'", e);
    }
  }

  /**
   * The slot as one JSON object; {@code publication} is null when it does not exist, {@code
   * skipped_transactions} an array, empty when the relay never moved the slot past a transaction.
   */
  static String json(WalSlot s, List<WalSlot.SkippedTransaction> skipped) {
    ObjectNode o = Json.object().put("slot", s.name());
    o.put("slot_type", s.type());
    o.put("plugin", s.plugin().orElse(null));
    o.put("database", s.database().orElse(null));
    o.put("active", s.active());
    if (s.activePid().isPresent()) {
      o.put("active_pid", s.activePid().getAsInt());
    } else {
      o.putNull("active_pid");
    }
    o.put("confirmed_flush_lsn", s.confirmedFlushLsn().orElse(null));
    o.put("restart_lsn", s.restartLsn().orElse(null));
    o.put("wal_status", s.walStatus().orElse(null));
    putLong(o, "safe_wal_size", s.safeWalSize());
    putLong(o, "lag_bytes", s.lagBytes());
    putLong(o, "retained_wal_bytes", retainedBytes(s));
    Optional<WalSlot.Publication> pub = s.publication();
    if (pub.isPresent()) {
      ObjectNode p = o.putObject("publication").put("name", pub.get().name());
      p.put("all_tables", pub.get().allTables());
      ArrayNode tables = p.putArray("tables");
      pub.get().tables().forEach(tables::add);
      ArrayNode publishes = p.putArray("publishes");
      pub.get().publishes().forEach(publishes::add);
    } else {
      o.putNull("publication");
    }
    ArrayNode skips = o.putArray("skipped_transactions");
    for (WalSlot.SkippedTransaction t : skipped) {
      ObjectNode k = skips.addObject().put("xid", t.xid());
      k.put("commit_lsn", t.commitLsn());
      k.put("from_lsn", t.fromLsn());
      k.put("to_lsn", t.toLsn());
      k.put("skipped_at", t.skippedAt().toString());
      k.put("error", t.error());
    }
    return Json.write(o);
  }

  private static void putLong(ObjectNode o, String key, OptionalLong value) {
    if (value.isPresent()) {
      o.put(key, value.getAsLong());
    } else {
      o.putNull(key);
    }
  }

  static String table(WalSlot s, List<WalSlot.SkippedTransaction> skipped) {
    String publication =
        s.publication()
            .map(
                p ->
                    p.name()
                        + ": "
                        + String.join(", ", p.publishes())
                        + " of "
                        + (p.allTables() ? "all tables" : String.join(", ", p.tables())))
            .orElse("- (does not exist)");
    return String.join(
            System.lineSeparator(),
            List.of(
                row("slot", s.name()),
                row("slot type", s.type()),
                row("plugin", s.plugin().orElse("-")),
                row("database", s.database().orElse("-")),
                row(
                    "active",
                    s.active()
                        ? "yes"
                            + (s.activePid().isPresent()
                                ? ", process " + s.activePid().getAsInt()
                                : "")
                        : "no"),
                row("confirmed flush lsn", s.confirmedFlushLsn().orElse("-")),
                row("restart lsn", s.restartLsn().orElse("-")),
                row("wal status", s.walStatus().orElse("-")),
                row("safe wal size", safeWalSize(s)),
                row("lag", s.lagBytes().isPresent() ? s.lagBytes().getAsLong() + " bytes" : "-"),
                row(
                    "retained wal",
                    retainedBytes(s).isPresent()
                        ? retainedBytes(s).getAsLong() + " bytes since restart lsn"
                        : "-"),
                row("publication", publication),
                row("skipped", skipped.isEmpty() ? "none" : skipped.size() + " transaction(s)")))
        + skipped.stream()
            .map(t -> System.lineSeparator() + row("  skipped", skipped(t)))
            .collect(Collectors.joining());
  }

  /** One transaction the slot was moved past, on one line. */
  private static String skipped(WalSlot.SkippedTransaction t) {
    return "xid "
        + t.xid()
        + ", commit at "
        + t.commitLsn()
        + ", moved "
        + t.fromLsn()
        + " to "
        + t.toLsn()
        + " at "
        + t.skippedAt()
        + ": "
        + t.error();
  }

  /** The bytes left, or why there is no number: the slot is lost, or nothing limits it. */
  static String safeWalSize(WalSlot s) {
    if (s.safeWalSize().isPresent()) {
      return s.safeWalSize().getAsLong() + " bytes";
    }
    return s.walStatus().filter("lost"::equals).isPresent() ? "- (lost)" : "- (unlimited)";
  }

  private static String row(String name, String value) {
    return String.format("%-20s %s", name + ":", Printable.of(value));
  }
}

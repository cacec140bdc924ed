package dev.txoutbox.wal;

import dev.txoutbox.schema.OutboxTables;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * A logical replication slot as {@code pg_replication_slots} shows it, with the publication the
 * relay reads through it: what an operator looks at before dropping a slot that holds WAL back.
 * {@link #find} reads one; {@link #drop} removes one that can be a relay's and that no relay reads.
 *
 * <p>Immutable and thread-safe.
 */
public final class WalSlot {

  /** The {@code slot_type} of a logical slot, the only kind a relay reads. */
  private static final String LOGICAL = "logical";

  private final String name;
  private final String type;
  private final @Nullable String plugin;
  private final @Nullable String database;
  private final boolean active;
  private final @Nullable Integer activePid;
  private final @Nullable String confirmedFlushLsn;
  private final @Nullable String restartLsn;
  private final @Nullable String walStatus;
  private final @Nullable Long safeWalSize;
  private final @Nullable Long lagBytes;
  private final @Nullable Publication publication;

  private WalSlot(Record r, @Nullable Publication publication) {
    this.name = Objects.requireNonNull(r.get(WalSetup.SLOT_NAME));
    this.type = Objects.requireNonNull(r.get(WalSetup.SLOT_TYPE));
    this.plugin = r.get(WalSetup.PLUGIN);
    this.database = r.get(WalSetup.DATABASE);
    this.active = Boolean.TRUE.equals(r.get(WalSetup.ACTIVE));
    this.activePid = r.get(WalSetup.ACTIVE_PID);
    this.confirmedFlushLsn = r.get(WalSetup.CONFIRMED_FLUSH_LSN);
    this.restartLsn = r.get(WalSetup.RESTART_LSN);
    this.walStatus = r.get(WalSetup.WAL_STATUS);
    this.safeWalSize = r.get(WalSetup.SAFE_WAL_SIZE);
    this.lagBytes = r.get(WalSetup.LAG_BYTES);
    this.publication = publication;
  }

  /**
   * {@code txoutbox_<prefix><schema>}: the slot and publication name a {@link WalRelay} of {@code
   * tables} uses unless told otherwise.
   *
   * @throws NullPointerException if {@code tables} is null
   */
  public static String defaultName(OutboxTables tables) {
    return WalRelay.defaultName(Objects.requireNonNull(tables, "tables"));
  }

  /**
   * The slot {@code slotName}, without its publication; one query.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code slotName} is not 1 to 63 characters of {@code a-z},
   *     {@code 0-9} and {@code _} (checked before any SQL)
   */
  public static Optional<WalSlot> find(DataSource dataSource, String slotName) {
    return find(dsl(dataSource), slotName);
  }

  /** As {@link #find(DataSource, String)}, on {@code dsl}. */
  public static Optional<WalSlot> find(DSLContext dsl, String slotName) {
    Objects.requireNonNull(dsl, "dsl");
    WalOptions.SLOT_NAME.check(slotName);
    return Optional.ofNullable(WalSetup.slot(dsl, slotName)).map(r -> new WalSlot(r, null));
  }

  /**
   * The slot {@code slotName} and, if it exists, the publication {@code publicationName}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if a name is not valid (checked before any SQL)
   */
  public static Optional<WalSlot> find(
      DataSource dataSource, String slotName, String publicationName) {
    return find(dsl(dataSource), slotName, publicationName);
  }

  /** As {@link #find(DataSource, String, String)}, on {@code dsl}. */
  public static Optional<WalSlot> find(DSLContext dsl, String slotName, String publicationName) {
    Objects.requireNonNull(dsl, "dsl");
    WalOptions.SLOT_NAME.check(slotName);
    WalOptions.PUBLICATION_NAME.check(publicationName);
    Record slot = WalSetup.slot(dsl, slotName);
    if (slot == null) {
      return Optional.empty();
    }
    return Optional.of(new WalSlot(slot, Publication.find(dsl, publicationName)));
  }

  /**
   * Drops the slot {@code slotName} ({@code pg_drop_replication_slot}), releasing the WAL it holds.
   * A relay started afterwards creates it anew; the polling relay publishes what was committed in
   * between. The publication stays. Only a slot that can be a relay's is dropped: a logical one, of
   * the {@code pgoutput} plugin, in the database {@code dsl} is connected to. A physical slot (a
   * standby's, a backup's) or another plugin's (such as {@code test_decoding}, {@code wal2json}) is
   * refused. A {@code pgoutput} slot of another reader in this database (a Debezium connector, a
   * subscriber) looks the same: name the slot with care.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code slotName} is not valid (checked before any SQL)
   * @throws IllegalStateException if the slot does not exist, is physical, has another plugin than
   *     {@code pgoutput}, is in another database, or is active (a relay reads it: the message names
   *     the process); nothing is dropped then
   */
  public static void drop(DataSource dataSource, String slotName) {
    drop(dsl(dataSource), slotName);
  }

  /** As {@link #drop(DataSource, String)}, on {@code dsl}. */
  public static void drop(DSLContext dsl, String slotName) {
    Objects.requireNonNull(dsl, "dsl");
    WalOptions.SLOT_NAME.check(slotName);
    WalSlot slot = find(dsl, slotName).orElseThrow(() -> WalSetup.noSuchSlot(slotName));
    if (!LOGICAL.equals(slot.type)) {
      throw new IllegalStateException(
          "replication slot "
              + slotName
              + " is a "
              + slot.type
              + " slot (a standby's or a backup's), not a relay's: nothing dropped");
    }
    if (!"pgoutput".equals(slot.plugin)) {
      throw new IllegalStateException(
          "replication slot "
              + slotName
              + " uses plugin "
              + slot.plugin
              + ", not pgoutput: not a relay's; nothing dropped");
    }
    String here = dsl.fetchSingle(DSL.currentCatalog()).value1();
    if (!here.equals(slot.database)) {
      throw new IllegalStateException(
          "replication slot "
              + slotName
              + " belongs to database "
              + slot.database
              + ", not "
              + here
              + ": connect to that database to drop it");
    }
    if (slot.active) {
      throw WalSetup.slotActive(slotName, slot.activePid);
    }
    try {
      WalSetup.dropSlot(dsl, slotName);
    } catch (DataAccessException e) {
      // Between the check and the drop: a relay started on it, or someone else dropped it.
      if ("55006".equals(e.sqlState())) {
        throw WalSetup.slotActive(slotName, null);
      }
      if ("42704".equals(e.sqlState())) {
        throw WalSetup.noSuchSlot(slotName);
      }
      throw e;
    }
  }

  /**
   * The transactions a {@link WalRelay} moved the slot {@code slotName} past because the server
   * failed {@value StuckTransaction#SKIP_AFTER} times in a row to decode them, oldest first, as
   * recorded in {@code <schema>.<prefix>outbox_wal_skips} of {@code tables}; empty if there are
   * none. Their events stayed pending for the polling relay.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code slotName} is not valid (checked before any SQL)
   */
  public static List<SkippedTransaction> skippedTransactions(
      DataSource dataSource, OutboxTables tables, String slotName) {
    Objects.requireNonNull(tables, "tables");
    WalOptions.SLOT_NAME.check(slotName);
    return WalSkips.find(dsl(dataSource), tables, slotName);
  }

  private static DSLContext dsl(DataSource dataSource) {
    return DSL.using(Objects.requireNonNull(dataSource, "dataSource"), SQLDialect.POSTGRES);
  }

  /** The slot's name. */
  public String name() {
    return name;
  }

  /**
   * {@code logical} (a relay's, and any other decoding reader's) or {@code physical} (a standby's,
   * a backup's), as {@code pg_replication_slots.slot_type} says.
   */
  public String type() {
    return type;
  }

  /** The output plugin, {@code pgoutput} for a relay's slot; empty for a physical slot. */
  public Optional<String> plugin() {
    return Optional.ofNullable(plugin);
  }

  /** The database the slot decodes; empty for a physical slot. */
  public Optional<String> database() {
    return Optional.ofNullable(database);
  }

  /** Whether a connection reads the slot now (a running relay). */
  public boolean active() {
    return active;
  }

  /** The server process of the connection that reads the slot, if one does. */
  public OptionalInt activePid() {
    return activePid == null ? OptionalInt.empty() : OptionalInt.of(activePid);
  }

  /** The position up to which the reader confirmed, such as {@code 0/1A2B3C8}. */
  public Optional<String> confirmedFlushLsn() {
    return Optional.ofNullable(confirmedFlushLsn);
  }

  /** The oldest position whose WAL the slot keeps. */
  public Optional<String> restartLsn() {
    return Optional.ofNullable(restartLsn);
  }

  /**
   * {@code reserved}, {@code extended}, {@code unreserved} or {@code lost} (the WAL it needs is
   * gone: drop it).
   */
  public Optional<String> walStatus() {
    return Optional.ofNullable(walStatus);
  }

  /**
   * Bytes of WAL that can still be written before the slot is lost; empty when {@code
   * max_slot_wal_keep_size} is unlimited ({@code -1}), and also when the slot is already lost (see
   * {@link #walStatus()}), which tells the two apart.
   */
  public OptionalLong safeWalSize() {
    return safeWalSize == null ? OptionalLong.empty() : OptionalLong.of(safeWalSize);
  }

  /**
   * Bytes of WAL between the server's current insert position ({@code pg_current_wal_insert_lsn()})
   * and the slot's confirmed one, at the time of {@link #find}: what the slot holds back, as {@link
   * WalRelay#slotLagBytes()} reports it. Grows while the relay is stopped or behind; empty for a
   * physical slot.
   */
  public OptionalLong lagBytes() {
    return lagBytes == null ? OptionalLong.empty() : OptionalLong.of(lagBytes);
  }

  /** The publication asked for, if it was and it exists. */
  public Optional<Publication> publication() {
    return Optional.ofNullable(publication);
  }

  @Override
  public String toString() {
    return "WalSlot{name="
        + name
        + ", type="
        + type
        + ", plugin="
        + plugin
        + ", database="
        + database
        + ", active="
        + active
        + (activePid == null ? "" : ", activePid=" + activePid)
        + ", confirmedFlushLsn="
        + confirmedFlushLsn
        + ", walStatus="
        + walStatus
        + ", lagBytes="
        + lagBytes
        + (publication == null ? "" : ", publication=" + publication)
        + "}";
  }

  /** A publication as {@code pg_publication} shows it. Immutable and thread-safe. */
  public static final class Publication {

    private final String name;
    private final boolean allTables;
    private final List<String> tables;
    private final List<String> publishes;

    private Publication(
        String name, boolean allTables, List<String> tables, List<String> publishes) {
      this.name = name;
      this.allTables = allTables;
      this.tables = List.copyOf(tables);
      this.publishes = List.copyOf(publishes);
    }

    static @Nullable Publication find(DSLContext dsl, String name) {
      Record pub = WalSetup.publication(dsl, name);
      if (pub == null) {
        return null;
      }
      return new Publication(
          name,
          Boolean.TRUE.equals(pub.get(WalSetup.PUB_ALL_TABLES)),
          WalSetup.publishedTables(dsl, name),
          WalSetup.publishes(pub));
    }

    /** The publication's name. */
    public String name() {
      return name;
    }

    /** Whether it was created {@code FOR ALL TABLES}. */
    public boolean allTables() {
      return allTables;
    }

    /** The tables it publishes, as {@code schema.table}, sorted. */
    public List<String> tables() {
      return tables;
    }

    /**
     * The operations it publishes, of {@code insert}, {@code update}, {@code delete} and {@code
     * truncate} in that order; a relay's publishes {@code insert} only.
     */
    public List<String> publishes() {
      return publishes;
    }

    @Override
    public String toString() {
      return "Publication{name="
          + name
          + ", tables="
          + (allTables ? "all" : tables)
          + ", publishes="
          + publishes
          + "}";
    }
  }

  /**
   * A transaction the relay moved its slot past because the server could not decode it: its events
   * were not published from the stream and stayed pending for the polling relay, which publishes
   * them or dead-letters those it cannot read either. Immutable and thread-safe.
   */
  public static final class SkippedTransaction {

    private final long xid;
    private final String commitLsn;
    private final String fromLsn;
    private final String toLsn;
    private final String error;
    private final OffsetDateTime skippedAt;

    SkippedTransaction(
        long xid,
        String commitLsn,
        String fromLsn,
        String toLsn,
        String error,
        OffsetDateTime skippedAt) {
      this.xid = xid;
      this.commitLsn = commitLsn;
      this.fromLsn = fromLsn;
      this.toLsn = toLsn;
      this.error = error;
      this.skippedAt = skippedAt;
    }

    /** The transaction's id ({@code xid}, 32 bits), as the server's Begin message gave it. */
    public long xid() {
      return xid;
    }

    /** The position of the transaction's commit record, such as {@code 0/1737D40}. */
    public String commitLsn() {
      return commitLsn;
    }

    /** The slot's confirmed position before the move. */
    public String fromLsn() {
      return fromLsn;
    }

    /** The slot's confirmed position after the move, just past the commit. */
    public String toLsn() {
      return toLsn;
    }

    /** The server's error on the last failure to decode it (credentials masked). */
    public String error() {
      return error;
    }

    /** When the slot was moved, by the database's clock. */
    public OffsetDateTime skippedAt() {
      return skippedAt;
    }

    @Override
    public String toString() {
      return "SkippedTransaction{xid="
          + xid
          + ", commitLsn="
          + commitLsn
          + ", from="
          + fromLsn
          + ", to="
          + toLsn
          + ", skippedAt="
          + skippedAt
          + "}";
    }
  }
}

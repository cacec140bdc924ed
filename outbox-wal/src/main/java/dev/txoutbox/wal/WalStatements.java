package dev.txoutbox.wal;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.internal.kernel.RelayKernel.Statement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Query;

/**
 * The WAL relay's statements of every batch, the settings, the claim, its second look at unclaimed
 * ids and the deletion of the published rows: jOOQ builds them from the generated classes ({@link
 * WalStore}) once per relay, and each batch runs the rendered SQL through the transaction's JDBC
 * connection and reads the ids by position, as the polling relay does. Rendering them for each
 * batch cost the relay more JVM CPU than the database spent on a batch of a few events. The rarer
 * statements (the ordering check, failures) stay {@link WalStore}'s. Immutable and thread-safe.
 */
final class WalStatements {

  /** Stands for a batch's time in the statements rendered once. */
  private static final OffsetDateTime NOW =
      OffsetDateTime.of(1970, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);

  /** Stands for a batch's ids in the statements rendered once. */
  private static final UUID[] IDS = {new UUID(0x7761_6c5f_6261_7463L, 1)};

  private final Statement settings;
  private final CompletionMode mode;
  private final Statement claim;
  private final Statement complete;
  private final Statement visible;

  /**
   * @param dsl renders the statements: the relay's, with the outbox's schema and table prefix
   */
  WalStatements(DSLContext dsl, Ordering ordering, Duration lockTimeout, CompletionMode mode) {
    this.mode = mode;
    this.settings =
        new Statement(dsl, WalStore.settingsQuery(dsl, ordering, lockTimeout), List.of());
    this.claim =
        switch (mode) {
          case MARK_PROCESSED ->
              new Statement(
                  dsl, (Query) WalStore.claimQuery(dsl, IDS, NOW), List.<Object>of(IDS, NOW));
          case DELETE ->
              new Statement(
                  dsl, (Query) WalStore.claimSeenQuery(dsl, IDS), List.<Object>of((Object) IDS));
        };
    this.complete =
        switch (mode) {
          case MARK_PROCESSED ->
              new Statement(
                  dsl, WalStore.completeQuery(dsl, mode, IDS, NOW), List.<Object>of(NOW, IDS));
          case DELETE ->
              new Statement(
                  dsl, WalStore.completeQuery(dsl, mode, IDS, NOW), List.<Object>of((Object) IDS));
        };
    this.visible =
        new Statement(dsl, (Query) WalStore.visibleQuery(dsl, IDS), List.<Object>of((Object) IDS));
  }

  /** {@link WalStore#settingsQuery}. */
  void settings(DSLContext tx) {
    // jOOQ's rendering of the settings statement, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = settings.prepare(c, List.of());
              ResultSet rs = s.executeQuery()) {
            rs.next();
          }
        });
  }

  /**
   * {@link WalStore#claimQuery}: the claim of {@link CompletionMode#MARK_PROCESSED}.
   *
   * @throws IllegalStateException in {@link CompletionMode#DELETE}, whose claim is {@link
   *     #claimSeen}
   */
  Set<UUID> claim(DSLContext tx, UUID[] ids, OffsetDateTime now) {
    if (mode != CompletionMode.MARK_PROCESSED) {
      throw new IllegalStateException("the claim of " + mode + " is claimSeen");
    }
    Set<UUID> out = new HashSet<>();
    // jOOQ's rendering of the claim, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = claim.prepare(c, List.of(ids, now));
              ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              out.add(rs.getObject(1, UUID.class));
            }
          }
        });
    return out;
  }

  /**
   * {@link WalStore#claimSeenQuery}: the claim of {@link CompletionMode#DELETE}; each id seen maps
   * to whether it was locked.
   *
   * @throws IllegalStateException in {@link CompletionMode#MARK_PROCESSED}
   */
  Map<UUID, Boolean> claimSeen(DSLContext tx, UUID[] ids) {
    if (mode != CompletionMode.DELETE) {
      throw new IllegalStateException("the claim of " + mode + " is claim");
    }
    Map<UUID, Boolean> out = new HashMap<>();
    // jOOQ's rendering of the claim, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = claim.prepare(c, List.<Object>of((Object) ids));
              ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              out.put(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class) != null);
            }
          }
        });
    return out;
  }

  /**
   * {@link WalStore#visibleQuery}: those of {@code ids} whose rows this transaction can see, the
   * second look of {@link CompletionMode#MARK_PROCESSED}'s claim, frequent while writers commit as
   * fast as they can (a commit is in the stream before it is visible).
   */
  Set<UUID> visible(DSLContext tx, UUID[] ids) {
    Set<UUID> out = new HashSet<>();
    // jOOQ's rendering of the look, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = visible.prepare(c, List.<Object>of((Object) ids));
              ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              out.add(rs.getObject(1, UUID.class));
            }
          }
        });
    return out;
  }

  /**
   * How long after its claim a published batch gets its {@code processed_at} written again with the
   * time of the outcome, in {@link CompletionMode#MARK_PROCESSED}: the claim already marked its
   * rows, so a batch the broker answered sooner keeps the claim's time (never more than this before
   * the outcome) at no second row version, and only a publish that was held up (a broker outage, a
   * slow broker) costs one more {@code UPDATE}.
   */
  static final Duration RESTAMP_AFTER = Duration.ofSeconds(1);

  /**
   * {@link WalStore#completeQuery}: deletes the published rows in {@link CompletionMode#DELETE}, or
   * sets their {@code processed_at} to {@code answered}, the time of the outcome, when that is at
   * least {@link #RESTAMP_AFTER} after {@code claimed}, the time their claim marked them with.
   */
  void complete(DSLContext tx, List<UUID> ids, OffsetDateTime claimed, OffsetDateTime answered) {
    if (ids.isEmpty()) {
      return;
    }
    if (mode == CompletionMode.MARK_PROCESSED
        && Duration.between(claimed, answered).compareTo(RESTAMP_AFTER) < 0) {
      return; // marked by the claim, close enough to the outcome
    }
    UUID[] values = ids.toArray(UUID[]::new);
    List<Object> binds =
        switch (mode) {
          case MARK_PROCESSED -> List.of(answered, values);
          case DELETE -> List.of((Object) values);
        };
    // jOOQ's rendering of the statement, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = complete.prepare(c, binds)) {
            s.executeUpdate();
          }
        });
  }
}

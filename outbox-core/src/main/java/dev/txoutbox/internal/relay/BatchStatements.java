package dev.txoutbox.internal.relay;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.spi.OutboxMessage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The unordered relay's statements of every cycle, the claim, the plan setting and the completion:
 * jOOQ builds them from the generated classes once per relay ({@link RelayStore#claimQuery}, {@link
 * RelayStore#completion}), and each cycle runs the rendered SQL through the transaction's JDBC
 * connection and reads the claimed rows by position. Rendering each cycle and materialising jOOQ
 * records cost the relay more JVM CPU than the database spent on the batch. Thread-safe.
 */
final class BatchStatements {

  /** Stands for a cycle's time in the statements rendered once. */
  private static final OffsetDateTime NOW =
      OffsetDateTime.of(1970, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);

  /** Stands for a cycle's ids in the completion rendered once. */
  private static final UUID[] IDS = {new UUID(0x7478_6f75_7462_6f78L, 1)};

  /** {@link RelayStore#pinPlansById}, without names to map or values to bind. */
  private static final RenderedOnce PIN_PLANS_BY_ID =
      new RenderedOnce(DSL.using(SQLDialect.POSTGRES), RelayStore.pinPlansById(), List.of());

  private final Map<Integer, RenderedOnce> claims = new ConcurrentHashMap<>();
  private final Map<CompletionMode, RenderedOnce> completions = new ConcurrentHashMap<>();

  /**
   * The rows {@link RelayStore#claim} claims, in seq order, and then {@link #pinPlansById} for the
   * rest of the transaction, in the same round trip: the claim is planned as before the setting,
   * and every statement by id after it (the completion, the deferral, the failures) after it.
   *
   * @throws RuntimeException if any claimed row cannot be read
   */
  Claimed<OutboxMessage> claimAndPinPlans(DSLContext tx, int limit, OffsetDateTime now) {
    RenderedOnce claim =
        claims.computeIfAbsent(
            limit,
            l ->
                new RenderedOnce(
                        tx,
                        RelayStore.claimQuery(tx, RelayStore.MESSAGE_COLUMNS, l, NOW),
                        List.of(NOW, l))
                    .followedBy(tx, RelayStore.pinPlansById()));
    List<OutboxMessage> batch = new ArrayList<>(limit);
    // jOOQ's rendering of the claim, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = claim.prepare(c, List.of(now, limit))) {
            s.execute(); // the claim, then the setting, in one round trip
            try (ResultSet rs = s.getResultSet()) {
              while (rs.next()) {
                batch.add(read(rs));
              }
            }
          }
        });
    batch.sort(Comparator.comparingLong(OutboxMessage::sequence));
    return new Claimed<>(batch, batch.size() == limit);
  }

  /** A row of the claim, whose columns are {@link RelayStore#MESSAGE_COLUMNS} in their order. */
  private static OutboxMessage read(ResultSet rs) throws SQLException {
    return OutboxMessage.builder()
        .id(rs.getObject(1, UUID.class))
        .sequence(rs.getLong(2))
        .aggregateType(rs.getString(3))
        .aggregateId(rs.getString(4))
        .eventType(rs.getString(5))
        .payload(rs.getString(6))
        .headers(RelayStore.headers(rs.getString(7)))
        .createdAt(rs.getObject(8, OffsetDateTime.class).toInstant())
        .attempt(rs.getInt(9) + 1)
        .build();
  }

  /** Runs {@link RelayStore#pinPlansById}: sequential scans off for the rest of the transaction. */
  void pinPlansById(DSLContext tx) {
    // jOOQ's rendering of the setting, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s = PIN_PLANS_BY_ID.prepare(c, List.of());
              ResultSet rs = s.executeQuery()) {
            rs.next();
          }
        });
  }

  /** Marks or deletes the published events, in one statement, as {@link RelayStore#complete}. */
  void complete(DSLContext tx, List<UUID> ids, CompletionMode mode, OffsetDateTime now) {
    if (ids.isEmpty()) {
      return;
    }
    RenderedOnce completion =
        completions.computeIfAbsent(
            mode,
            m ->
                new RenderedOnce(
                    tx,
                    RelayStore.completion(tx, IDS, m, NOW),
                    m == CompletionMode.DELETE
                        ? List.<Object>of((Object) IDS)
                        : List.of(NOW, IDS)));
    UUID[] values = ids.toArray(UUID[]::new);
    // jOOQ's rendering of the completion, run through JDBC: see the class comment.
    tx.connection(
        c -> {
          try (PreparedStatement s =
              completion.prepare(
                  c,
                  mode == CompletionMode.DELETE
                      ? List.<Object>of((Object) values)
                      : List.of(now, values))) {
            s.executeUpdate();
          }
        });
  }
}

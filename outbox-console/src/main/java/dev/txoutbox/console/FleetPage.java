package dev.txoutbox.console;

import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.FleetStatus;
import dev.txoutbox.spi.SecretMasking;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The fleet page's data: a relay fleet's registry, members and leases read from its control
 * database through outbox-fleet's {@link FleetStatus}, under the console's statement timeout. This
 * is the only class of the console that names a type of outbox-fleet, an optional dependency: it is
 * loaded only for a console given {@link OutboxConsole.Builder#fleet(DataSource, String)}.
 * Thread-safe.
 */
final class FleetPage {

  /** A type of outbox-fleet, looked up to tell whether it is on the class path. */
  static final String FLEET_CLASS = "dev.txoutbox.fleet.FleetStatus";

  private final DSLContext dsl;
  private final String schema;

  FleetPage(DataSource controlDataSource, String schema, Duration statementTimeout) {
    this.dsl =
        DSL.using(new TimeoutConnections(controlDataSource, statementTimeout), SQLDialect.POSTGRES);
    this.schema = schema;
  }

  /** The control schema, for the start line. */
  String schema() {
    return schema;
  }

  /** The JSON of {@code api/fleet}. */
  Map<String, Object> json() {
    FleetStatus status = dsl.connectionResult(c -> FleetStatus.read(c, schema));
    OffsetDateTime now = status.readAt();
    Map<String, Integer> held = new HashMap<>();
    List<Map<String, Object>> outboxes = new ArrayList<>();
    int served = 0;
    int unserved = 0;
    for (FleetStatus.Lease lease : status.leases()) {
      FleetOutbox o = lease.outbox();
      String state;
      if (o == null) {
        state = "invalid";
      } else if (!o.enabled()) {
        state = "disabled";
      } else if (lease.live()) {
        state = "served";
      } else {
        state = "unserved";
      }
      if (state.equals("served")) {
        served++;
        held.merge(String.valueOf(lease.owner()), 1, Integer::sum);
      } else if (state.equals("unserved")) {
        unserved++;
      }
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("name", lease.name());
      json.put("state", state);
      json.put("invalid", lease.invalid());
      json.put("kind", o == null ? null : o.kind().dbName());
      json.put("database", o == null ? null : SecretMasking.maskUri(o.jdbcUrl()));
      json.put("tables", o == null ? null : o.tables().toString());
      json.put("publisher", o == null ? null : o.publisher());
      json.put("weight", o == null ? null : o.weight());
      json.put("version", o == null ? null : o.version());
      json.put("owner", lease.live() ? lease.owner() : null);
      json.put("lastOwner", lease.live() ? null : lease.owner());
      json.put("term", lease.term());
      json.put("acquiredAt", instant(lease.acquiredAt()));
      json.put("expiresAt", instant(lease.expiresAt()));
      json.put("expiresInSeconds", seconds(now, lease.expiresAt()));
      json.put("lastRenewal", instant(lease.lastRenewal()));
      json.put("lastRenewalAgeSeconds", seconds(lease.lastRenewal(), now));
      outboxes.add(json);
    }
    List<Map<String, Object>> nodes = new ArrayList<>();
    int alive = 0;
    for (FleetStatus.Node n : status.nodes()) {
      alive += n.alive() ? 1 : 0;
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("nodeId", n.nodeId());
      json.put("alive", n.alive());
      json.put("outboxes", held.getOrDefault(n.nodeId(), 0));
      json.put("startedAt", instant(n.startedAt()));
      json.put("heartbeatAt", instant(n.heartbeatAt()));
      json.put("heartbeatAgeSeconds", seconds(n.heartbeatAt(), now));
      json.put("expiresAt", instant(n.expiresAt()));
      nodes.add(json);
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("controlSchema", schema);
    json.put("readAt", instant(now));
    json.put("aliveNodes", alive);
    json.put("served", served);
    json.put("unserved", unserved);
    json.put("nodes", nodes);
    json.put("outboxes", outboxes);
    return json;
  }

  private static java.time.@Nullable Instant instant(@Nullable OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }

  private static @Nullable Double seconds(
      @Nullable OffsetDateTime from, @Nullable OffsetDateTime to) {
    return from == null || to == null ? null : Duration.between(from, to).toMillis() / 1000.0;
  }
}

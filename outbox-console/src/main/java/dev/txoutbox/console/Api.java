package dev.txoutbox.console;

import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.OutboxAdmin;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's routes, independent of any HTTP server: the pages (the shell the script renders),
 * the assets, and the JSON API the pages read, which mirrors them. GET and HEAD read; only POST
 * acts, and only past the {@link Guard}. Thread-safe.
 */
final class Api {

  private static final Logger log = LoggerFactory.getLogger(Api.class);

  /** Where every action, and every refused one, is written: one line each. */
  static final Logger audit = LoggerFactory.getLogger("dev.txoutbox.console.audit");

  /** Most dead-letter groups listed: 500 (the total says how many there are). */
  static final int MAX_GROUPS = 500;

  /** SQLSTATE of a statement cancelled by {@code statement_timeout}. */
  private static final String QUERY_CANCELED = "57014";

  private static final Set<String> PAGES = Set.of("", "events", "dead-letters", "relays");

  private final Map<String, ConsoleOutbox> outboxes;
  private final Guard guard;
  private final Assets assets;
  private final Duration statementTimeout;
  private final Clock clock;
  private final Sampler sampler;
  private final BulkJobs jobs = new BulkJobs();
  private final @Nullable FleetPage fleet;

  Api(
      Map<String, ConsoleOutbox> outboxes,
      Guard guard,
      Assets assets,
      Duration statementTimeout,
      Clock clock,
      Sampler sampler,
      @Nullable FleetPage fleet) {
    this.outboxes = outboxes;
    this.guard = guard;
    this.assets = assets;
    this.statementTimeout = statementTimeout;
    this.clock = clock;
    this.sampler = sampler;
    this.fleet = fleet;
  }

  Sampler sampler() {
    return sampler;
  }

  /** Stops the sampler and lets a running action finish on its own thread. */
  void close() {
    sampler.close();
    jobs.close();
  }

  ConsoleResponse handle(ConsoleRequest request) {
    sampler.startOnce();
    try {
      guard.requireAllowedHost(request);
      return route(request);
    } catch (Refusal r) {
      if (request.method().equals("POST")) {
        audit.warn(
            "refused {} from {}: {}", request.path(), request.remoteAddress(), r.getMessage());
      }
      ConsoleResponse error = ConsoleResponse.error(r.status(), r.getMessage());
      Map<String, String> headers = new LinkedHashMap<>(error.headers());
      headers.putAll(r.headers());
      return new ConsoleResponse(r.status(), headers, error.body());
    } catch (DataAccessException e) {
      if (QUERY_CANCELED.equals(e.sqlState())) {
        log.warn("{} ran past the statement timeout of {}", request.path(), statementTimeout);
        return ConsoleResponse.error(
            503,
            "the query ran longer than the console's statement timeout of "
                + dev.txoutbox.spi.DurationText.of(statementTimeout)
                + " and was cancelled: narrow the filter (a time range, a type) or try again");
      }
      log.warn("{} failed on the database", request.path(), e);
      return ConsoleResponse.error(
          503,
          "the database failed: " + Text.cut(String.valueOf(Text.masked(e.getMessage())), 300));
    } catch (RuntimeException e) {
      log.error("{} failed", request.path(), e);
      return ConsoleResponse.error(500, "internal error; the console's log has the details");
    }
  }

  /** The driver's own message, without the statement jOOQ puts before it. */
  private static String reason(DataAccessException e) {
    java.sql.SQLException cause = e.getCause(java.sql.SQLException.class);
    String message = cause != null ? cause.getMessage() : e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message;
  }

  private ConsoleResponse route(ConsoleRequest request) {
    String[] parts = request.path().split("/", -1);
    // parts[0] is the empty text before the leading slash.
    if (parts.length <= 2 && (parts.length < 2 || parts[1].isEmpty())) {
      requireRead(request);
      String first = outboxes.keySet().iterator().next();
      return redirect(request.mountPath() + "/o/" + first + "/");
    }
    return switch (parts[1]) {
      case "assets" -> {
        requireRead(request);
        yield assets.file(parts.length == 3 ? parts[2] : "");
      }
      case "o" -> page(request, parts);
      case "fleet" -> {
        requireRead(request);
        fleet();
        if (parts.length > 3 || (parts.length == 3 && !parts[2].isEmpty())) {
          throw Refusal.notFound("no page " + Text.quoted(request.path()));
        }
        yield assets.shell(request.mountPath());
      }
      case "api" -> api(request, parts);
      default -> throw Refusal.notFound("no page " + Text.quoted(request.path()));
    };
  }

  /** {@code /o/<name>/<page>[/<id>]}: the shell, which renders the page. */
  private ConsoleResponse page(ConsoleRequest request, String[] parts) {
    requireRead(request);
    ConsoleOutbox outbox = outbox(parts.length > 2 ? parts[2] : "");
    if (parts.length == 3) {
      return redirect(request.mountPath() + "/o/" + outbox.name() + "/");
    }
    boolean known =
        (parts.length == 4 && PAGES.contains(parts[3]))
            || (parts.length == 5 && parts[3].equals("events"));
    if (!known) {
      throw Refusal.notFound("no page " + Text.quoted(request.path()));
    }
    return assets.shell(request.mountPath());
  }

  private ConsoleResponse api(ConsoleRequest request, String[] parts) {
    if (parts.length == 3 && parts[2].equals("session")) {
      requireRead(request);
      return ConsoleResponse.json(200, session());
    }
    if (parts.length == 3 && parts[2].equals("fleet")) {
      requireRead(request);
      Params.parse(request.rawQuery(), Set.of());
      return ConsoleResponse.json(200, fleet().json());
    }
    if (parts.length < 5 || !parts[2].equals("o")) {
      throw Refusal.notFound("no API " + Text.quoted(request.path()));
    }
    ConsoleOutbox outbox = outbox(parts[3]);
    String rest = String.join("/", List.of(parts).subList(4, parts.length));
    OffsetDateTime now = OffsetDateTime.now(clock);
    if (rest.equals("dead-letters/requeue") || rest.equals("dead-letters/purge")) {
      requirePost(request);
      return act(request, outbox, rest.endsWith("requeue"));
    }
    requireRead(request);
    String query = request.rawQuery();
    return switch (rest) {
      case "overview" -> {
        Params.parse(query, Set.of());
        yield ConsoleResponse.json(200, overview(outbox));
      }
      case "events" -> ConsoleResponse.json(200, events(outbox, EventFilter.parse(query), now));
      case "dead-letters" -> {
        Params.parse(query, Set.of());
        yield ConsoleResponse.json(200, deadLetters(outbox.admin()));
      }
      case "dead-letters/count" -> {
        DeadLetterSelection selection =
            DeadLetterSelection.parse(
                Params.parse(query, DeadLetterSelection.PARAMETERS), outbox.admin());
        yield ConsoleResponse.json(
            200,
            Map.of(
                "selection",
                selection.describe(),
                "count",
                selection.count(outbox.admin(), outbox.dsl())));
      }
      case "chart" -> {
        Params.parse(query, Set.of());
        Map<String, Object> json = new LinkedHashMap<>(outbox.samples().json());
        json.put("intervalSeconds", sampler.interval().toMillis() / 1000.0);
        yield ConsoleResponse.json(200, json);
      }
      case "relays" -> {
        Params.parse(query, Set.of());
        yield ConsoleResponse.json(200, relays(outbox));
      }
      default -> {
        if (parts.length == 6 && parts[4].equals("jobs")) {
          Params.parse(query, Set.of());
          BulkJobs.Job job = jobs.get(parts[5]);
          if (job == null || !job.outbox.equals(outbox.name())) {
            throw Refusal.notFound(
                "no action "
                    + Text.quoted(parts[5])
                    + " (the console keeps its last "
                    + BulkJobs.KEEP
                    + ")");
          }
          yield ConsoleResponse.json(200, job.json());
        }
        if (parts.length == 6 && parts[4].equals("events")) {
          Params.parse(query, Set.of());
          yield ConsoleResponse.json(
              200, outbox.events().detail(Params.uuid("event id", parts[5]), now));
        }
        throw Refusal.notFound("no API " + Text.quoted(request.path()));
      }
    };
  }

  private Map<String, Object> session() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("readOnly", guard.readOnly());
    json.put("csrfToken", guard.csrfToken());
    json.put("csrfHeader", Guard.CSRF_HEADER);
    json.put("outboxes", List.copyOf(outboxes.keySet()));
    json.put("fleet", fleet != null);
    json.put("statementTimeoutMillis", statementTimeout.toMillis());
    return json;
  }

  private static Map<String, Object> events(
      ConsoleOutbox outbox, EventFilter filter, OffsetDateTime now) {
    EventQueries.Page page = outbox.events().list(filter, now);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("events", page.events());
    json.put("next", page.next());
    json.put("searched", page.searched());
    json.put("window", EventQueries.WINDOW);
    return json;
  }

  private static Map<String, Object> deadLetters(OutboxAdmin admin) {
    List<DeadLetterGroup> all = admin.deadLetterGroups();
    List<Map<String, Object>> groups = new ArrayList<>();
    long total = 0;
    for (DeadLetterGroup g : all) {
      total += g.count();
      if (groups.size() < MAX_GROUPS) {
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("key", DeadLetterSelection.groupKey(g));
        group.put("eventType", g.eventType());
        group.put("fingerprint", Text.masked(g.errorFingerprint()));
        group.put("count", g.count());
        group.put("newest", g.newest());
        group.put("sampleError", Text.masked(g.sampleError()));
        groups.add(group);
      }
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("total", total);
    json.put("groupCount", all.size());
    json.put("groups", groups);
    return json;
  }

  private static Map<String, Object> overview(ConsoleOutbox outbox) {
    dev.txoutbox.OutboxStatus status = outbox.status();
    return Overview.of(
        status,
        outbox.admin().tableUpkeep(),
        SlotState.read(outbox.catalog(), outbox.tables(), status::oldestPendingAge),
        RelayRows.read(outbox.dsl()));
  }

  private static Map<String, Object> relays(ConsoleOutbox outbox) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("slotName", dev.txoutbox.wal.WalSlot.defaultName(outbox.tables()));
    json.put(
        "slot",
        SlotState.read(
            outbox.catalog(), outbox.tables(), () -> outbox.status().oldestPendingAge()));
    RelayRows.Relays relays = RelayRows.read(outbox.dsl());
    json.put("relays", relays.rows());
    json.put("running", relays.running());
    json.put("heartbeatTable", outbox.tables().schema() + "." + outbox.tables().relaysTable());
    json.put("heartbeatTableMissing", relays.missing());
    json.put("staleAfterBeats", RelayRows.STALE_AFTER_BEATS);
    return json;
  }

  /**
   * A requeue or purge: guard, then the selection and the count the confirmation named, then the
   * admin's chunked action; one audit line.
   */
  private ConsoleResponse act(ConsoleRequest request, ConsoleOutbox outbox, boolean requeue) {
    String operator = guard.authorize(request);
    String type = request.header("Content-Type");
    if (type == null || !type.startsWith("application/x-www-form-urlencoded")) {
      throw new Refusal(
          415,
          "an action's body must be application/x-www-form-urlencoded but was "
              + (type == null ? "not typed" : Text.quoted(type)),
          Map.of());
    }
    Params params =
        Params.parse(
            new String(request.body(), StandardCharsets.UTF_8), DeadLetterSelection.PARAMETERS);
    long expected = params.number("expected", 0, Long.MAX_VALUE, -1);
    if (expected < 0) {
      throw Refusal.badRequest(
          "expected must be the count the confirmation named (from dead-letters/count) but was"
              + " missing");
    }
    DeadLetterSelection selection = DeadLetterSelection.parse(params, outbox.admin());
    long now = selection.count(outbox.admin(), outbox.dsl());
    if (now != expected) {
      throw new Refusal(
          409,
          "the selection ("
              + selection.describe()
              + ") now holds "
              + now
              + " dead letters, not the "
              + expected
              + " confirmed; nothing was changed: confirm again",
          Map.of());
    }
    OutboxAdmin admin = outbox.admin();
    ToLongFunction<DeadLetterSelector> action = requeue ? admin::requeue : admin::purge;
    String verb = requeue ? "requeued" : "purged";
    BulkJobs.Job job =
        jobs.start(
            outbox.name(),
            verb,
            selection.describe(),
            expected,
            progress -> selection.apply(action, outbox.dsl(), progress),
            done -> {
              outbox.statusChanged();
              audit.info(
                  "{} from {} {} {} of outbox {} ({}): {} rows{}",
                  operator,
                  request.remoteAddress(),
                  verb,
                  done.selection,
                  outbox.name(),
                  outbox.tables(),
                  done.changed.get(),
                  done.error == null ? "" : ", then failed: " + done.error);
            });
    // Done within the wait: its result. Still running: 202 and the job to poll.
    return ConsoleResponse.json(job.state.equals("running") ? 202 : 200, job.json());
  }

  private FleetPage fleet() {
    if (fleet == null) {
      throw Refusal.notFound(
          "no fleet in this console: it was started without a fleet control database");
    }
    return fleet;
  }

  private ConsoleOutbox outbox(String name) {
    ConsoleOutbox outbox = outboxes.get(name);
    if (outbox == null) {
      throw Refusal.notFound(
          "no outbox " + Text.quoted(name) + " in this console; it shows " + outboxes.keySet());
    }
    return outbox;
  }

  private static void requireRead(ConsoleRequest request) {
    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
      throw new Refusal(
          405,
          request.method() + " is not allowed here: this is a page to read (GET)",
          Map.of("Allow", "GET, HEAD"));
    }
  }

  private static void requirePost(ConsoleRequest request) {
    if (!request.method().equals("POST")) {
      throw new Refusal(
          405,
          request.method()
              + " is not allowed here: an action is a POST, and changes nothing on GET",
          Map.of("Allow", "POST"));
    }
  }

  private static ConsoleResponse redirect(String location) {
    return ConsoleResponse.of(
        302, "text/plain; charset=utf-8", new byte[0], Map.of("Location", location));
  }
}

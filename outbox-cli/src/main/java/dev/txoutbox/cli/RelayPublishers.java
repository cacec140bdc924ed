package dev.txoutbox.cli;

import dev.txoutbox.RoutingPublisher;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * The publishers of the {@code relay} command: one, named by {@code --publisher}, or several routed
 * by type when its {@code --publisher-config} file has {@code route.} keys, as {@link
 * RoutingPublisher} does in code:
 *
 * <pre>
 * route.event-type.payment.captured=sqs     # an event type's route wins
 * route.aggregate-type.order=kafka          # over its aggregate type's
 * route.default=kafka                       # the rest; without it they are dead letters
 * kafka.bootstrap-servers=kafka-1:9092      # each publisher's settings, prefixed by its name
 * sqs.queue.payment=https://…/payments
 * </pre>
 *
 * A route key's type is everything after {@code route.event-type.} or {@code
 * route.aggregate-type.}, dots included. Every value is checked here, before anything connects;
 * each error names the key or flag. Immutable.
 */
final class RelayPublishers {

  /** How a routing key starts. */
  static final String ROUTE = "route.";

  static final String ROUTE_EVENT_TYPE = "route.event-type.";
  static final String ROUTE_AGGREGATE_TYPE = "route.aggregate-type.";
  static final String ROUTE_DEFAULT = "route.default";

  /** The longest type name a route can name: the columns' 255 characters. */
  private static final int MAX_TYPE_LENGTH = 255;

  private final PublisherCatalog catalog;
  private final Map<String, PublisherSettings> settings;
  private final Map<String, String> eventTypeRoutes;
  private final Map<String, String> aggregateTypeRoutes;
  private final @Nullable String defaultRoute;

  private RelayPublishers(
      PublisherCatalog catalog,
      Map<String, PublisherSettings> settings,
      Map<String, String> eventTypeRoutes,
      Map<String, String> aggregateTypeRoutes,
      @Nullable String defaultRoute) {
    this.catalog = catalog;
    this.settings = settings;
    this.eventTypeRoutes = eventTypeRoutes;
    this.aggregateTypeRoutes = aggregateTypeRoutes;
    this.defaultRoute = defaultRoute;
  }

  /**
   * The publishers that {@code publisher} (the {@code --publisher} flag, or null), {@code
   * fileEntries} (the {@code --publisher-config} entries; its retry keys, which {@link RetryFlags}
   * reads, are left out) and {@code flags} (the publisher flags given, as settings) describe;
   * checked, not yet created.
   *
   * @throws IllegalArgumentException naming the flag or key at fault, in the command line's words
   */
  static RelayPublishers of(
      @Nullable String publisher,
      Map<String, String> fileEntries,
      Map<String, String> flags,
      PublisherCatalog catalog,
      String clientName) {
    Map<String, String> file = new LinkedHashMap<>();
    fileEntries.forEach(
        (k, v) -> {
          if (!RetryFlags.isRetryKey(k)) {
            file.put(k, v);
          }
        });
    boolean routed = file.keySet().stream().anyMatch(k -> k.startsWith(ROUTE));
    if (!routed) {
      if (publisher == null) {
        throw new IllegalArgumentException(
            "--publisher must be given, or route.* keys in --publisher-config, but neither was");
      }
      PublisherProvider provider = catalog.find(publisher);
      Map<String, String> values = new LinkedHashMap<>(file);
      values.putAll(flags);
      PublisherSettings settings = PublisherSettings.of(provider, clientName, values);
      OutputMasking.hideSettings(provider, values);
      return new RelayPublishers(
          catalog, Map.of(provider.name(), settings), Map.of(), Map.of(), null);
    }
    if (publisher != null) {
      throw new IllegalArgumentException(
          "--publisher must not be given when --publisher-config routes events (route.* keys)"
              + " but was '"
              + Printable.of(publisher)
              + "': the routes name the publishers");
    }
    if (!flags.isEmpty()) {
      String setting = flags.keySet().iterator().next();
      String flag = "--" + setting.replaceFirst("\\..*", "");
      throw new IllegalArgumentException(
          flag
              + " must not be given when --publisher-config routes events (route.* keys): write"
              + " it in the file prefixed by its publisher's name, such as kafka."
              + setting);
    }
    Map<String, String> eventRoutes = new LinkedHashMap<>();
    Map<String, String> aggregateRoutes = new LinkedHashMap<>();
    String defaultRoute = null;
    Map<String, Map<String, String>> perPublisher = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : file.entrySet()) {
      String key = e.getKey();
      if (key.equals(ROUTE_DEFAULT)) {
        defaultRoute = publisherName(key, e.getValue(), catalog);
      } else if (key.startsWith(ROUTE_EVENT_TYPE)) {
        eventRoutes.put(type(key, ROUTE_EVENT_TYPE), publisherName(key, e.getValue(), catalog));
      } else if (key.startsWith(ROUTE_AGGREGATE_TYPE)) {
        aggregateRoutes.put(
            type(key, ROUTE_AGGREGATE_TYPE), publisherName(key, e.getValue(), catalog));
      } else if (key.startsWith(ROUTE)) {
        throw new IllegalArgumentException(
            "a route key of --publisher-config must be "
                + ROUTE_EVENT_TYPE
                + "TYPE, "
                + ROUTE_AGGREGATE_TYPE
                + "TYPE or "
                + ROUTE_DEFAULT
                + " but was '"
                + Printable.of(key)
                + "'");
      } else {
        int dot = key.indexOf('.');
        String name = dot > 0 ? key.substring(0, dot) : null;
        if (name == null || !catalog.names().contains(name) || dot == key.length() - 1) {
          throw new IllegalArgumentException(
              "with route.* keys, a publisher setting of --publisher-config must start with its"
                  + " publisher's name ("
                  + String.join(", ", catalog.names())
                  + "), such as kafka.bootstrap-servers, but was '"
                  + Printable.of(key)
                  + "'");
        }
        perPublisher
            .computeIfAbsent(name, n -> new LinkedHashMap<>())
            .put(key.substring(dot + 1), e.getValue());
      }
    }
    // Hidden before any check of them can quote one.
    perPublisher.forEach((name, values) -> OutputMasking.hideSettings(catalog.find(name), values));
    Map<String, PublisherSettings> settings = new LinkedHashMap<>();
    List<String> routedNames = new ArrayList<>(eventRoutes.values());
    routedNames.addAll(aggregateRoutes.values());
    if (defaultRoute != null) {
      routedNames.add(defaultRoute);
    }
    for (String name : routedNames) {
      if (!settings.containsKey(name)) {
        PublisherProvider provider = catalog.find(name);
        Map<String, String> values = perPublisher.getOrDefault(name, Map.of());
        try {
          settings.put(name, PublisherSettings.of(provider, clientName, values));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "publisher " + name + " (" + name + ".* keys): " + e.getMessage(), e);
        }
      }
    }
    for (String name : perPublisher.keySet()) {
      if (!settings.containsKey(name)) {
        throw new IllegalArgumentException(
            "--publisher-config has settings for publisher "
                + name
                + " ("
                + name
                + ".*) but no route names it");
      }
    }
    return new RelayPublishers(catalog, settings, eventRoutes, aggregateRoutes, defaultRoute);
  }

  private static String type(String key, String prefix) {
    String type = key.substring(prefix.length());
    if (type.isBlank() || type.codePointCount(0, type.length()) > MAX_TYPE_LENGTH) {
      throw new IllegalArgumentException(
          "the type of route key '"
              + Printable.of(key)
              + "' must be 1 to "
              + MAX_TYPE_LENGTH
              + " characters after "
              + prefix
              + ", not blank, but was '"
              + Printable.of(type)
              + "'");
    }
    return type;
  }

  private static String publisherName(String key, String value, PublisherCatalog catalog) {
    try {
      return catalog.find(value).name();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          key
              + " must name a publisher, one of "
              + String.join(", ", catalog.names())
              + ", but was '"
              + Printable.of(value)
              + "'",
          e);
    }
  }

  /** Whether events are routed to several publishers by type. */
  boolean routed() {
    return !eventTypeRoutes.isEmpty() || !aggregateTypeRoutes.isEmpty() || defaultRoute != null;
  }

  /** Each publisher's settings, by publisher name, in the order the routes first name them. */
  Map<String, PublisherSettings> settings() {
    return settings;
  }

  /**
   * The publishers for the start-up line, secrets masked: {@code rabbit{amqp-uri=****, …}}, or the
   * routes and then each publisher's settings.
   */
  String describe() {
    StringJoiner publishers = new StringJoiner("; ");
    settings.values().forEach(s -> publishers.add(s.toString()));
    if (!routed()) {
      return publishers.toString();
    }
    StringJoiner routes = new StringJoiner(", ", "routed by " + by() + ": ", "");
    eventTypeRoutes.forEach((t, p) -> routes.add("event type '" + Printable.of(t) + "' -> " + p));
    aggregateTypeRoutes.forEach(
        (t, p) -> routes.add("aggregate type '" + Printable.of(t) + "' -> " + p));
    routes.add("otherwise -> " + (defaultRoute != null ? defaultRoute : "dead letter"));
    return routes + "; " + publishers;
  }

  private String by() {
    if (eventTypeRoutes.isEmpty()) {
      return "aggregate type";
    }
    return aggregateTypeRoutes.isEmpty() ? "event type" : "event type, then aggregate type";
  }

  /**
   * Creates the publisher: the one, or a {@link RoutingPublisher} owning one per publisher named.
   * On a failure the publishers already created are closed.
   *
   * @throws IllegalArgumentException in the command line's words when a publisher refuses its
   *     settings
   */
  Publisher create() {
    Map<String, Publisher> created = new LinkedHashMap<>();
    try {
      for (PublisherSettings s : settings.values()) {
        created.put(s.publisher(), create(s));
      }
    } catch (RuntimeException e) {
      created.values().forEach(RelayPublishers::closeQuietly);
      throw e;
    }
    if (!routed()) {
      return created.values().iterator().next();
    }
    Map<String, String> events = eventTypeRoutes;
    Map<String, String> aggregates = aggregateTypeRoutes;
    RoutingPublisher.Builder b =
        RoutingPublisher.by(by(), (OutboxMessage m) -> routeKey(m, events, aggregates));
    eventTypeRoutes.forEach((t, p) -> b.route("event type " + t, created.get(p)));
    aggregateTypeRoutes.forEach((t, p) -> b.route("aggregate type " + t, created.get(p)));
    if (defaultRoute != null) {
      b.otherwise(created.get(defaultRoute));
    }
    return b.build();
  }

  /** The route of {@code m}: its event type's, else its aggregate type's; null for the default. */
  private static @Nullable String routeKey(
      OutboxMessage m, Map<String, String> events, Map<String, String> aggregates) {
    if (events.containsKey(m.eventType())) {
      return "event type " + m.eventType();
    }
    if (aggregates.containsKey(m.aggregateType())) {
      return "aggregate type " + m.aggregateType();
    }
    return null;
  }

  private Publisher create(PublisherSettings s) {
    PublisherProvider provider = catalog.find(s.publisher());
    String where = routed() ? "publisher " + s.publisher() + " (" + s.publisher() + ".* keys)" : "";
    try {
      return provider.create(s);
    } catch (IllegalArgumentException | IllegalStateException e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      // A provider names its settings as flags (PublisherSettings' own errors, and a builder's
      // through PublisherSettings.inFlags, which maps each builder option to its setting).
      if (routed()) {
        throw new IllegalArgumentException(where + ": " + message, e);
      }
      throw new IllegalArgumentException(
          message.startsWith("--") ? message : "--publisher " + s.publisher() + ": " + message, e);
    }
  }

  private static void closeQuietly(Publisher p) {
    try {
      p.close();
    } catch (RuntimeException e) {
      // closing after a failure: the failure is what is reported
    }
  }
}

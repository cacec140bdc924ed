package dev.txoutbox.fleet;

import dev.txoutbox.RelayOption;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.wal.WalOptions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The options of a fleet, each defined once ({@link RelayOption}): a node's ({@link
 * FleetNode.Builder}) and the fields of a registry entry ({@link FleetOutbox.Builder}). The
 * builders check their values with these definitions; the command line's {@code fleet run} and
 * {@code fleet add} flags, their {@code --help} and their errors, and the option tables of
 * outbox-fleet's README are made from them. Thread-safe: constants only.
 */
public final class FleetOptions {

  private FleetOptions() {}

  // ------------------------------------------------------------------------------------- node

  /** {@link FleetNode.Builder#nodeId}. */
  public static final RelayOption<String> NODE_ID =
      RelayOption.text(
              "nodeId",
              "node-id",
              "ID",
              null,
              Pattern.compile("[A-Za-z0-9_-]{1," + FleetNode.MAX_NODE_ID_LENGTH + "}"),
              "1 to " + FleetNode.MAX_NODE_ID_LENGTH + " characters of [A-Za-z0-9_-]",
              "this node's id, unique in the fleet (a pod name fits)")
          .withDefaultText("the host name and six random hex digits");

  /** {@link FleetNode.Builder#leaseTtl}. */
  public static final RelayOption<Duration> LEASE_TTL =
      RelayOption.of(
          "leaseTtl",
          "leaseTtl",
          "lease-ttl",
          RelayOption.Type.DURATION,
          "DURATION",
          FleetNode.DEFAULT_LEASE_TTL,
          null,
          atLeast(FleetNode.MIN_LEASE_TTL),
          "how long a lease and a heartbeat last unrenewed: with the scan interval, the longest a"
              + " dead node's outboxes stay unserved");

  /** {@link FleetNode.Builder#renewInterval}, compared with {@link #LEASE_TTL}. */
  public static final RelayOption<Duration> RENEW_INTERVAL =
      RelayOption.of(
              "renewInterval",
              "renewInterval",
              "renew-interval",
              RelayOption.Type.DURATION,
              "DURATION",
              null,
              LEASE_TTL,
              new RelayOption.Rule<Duration>() {
                @Override
                public @Nullable String violation(
                    Duration v, @Nullable Duration ttl, RelayOption.Spelling s) {
                  if (ttl == null) {
                    return positive(v) ? null : "must be positive";
                  }
                  Duration third = ttl.dividedBy(3);
                  return positive(v) && v.compareTo(third) <= 0
                      ? null
                      : "must be positive and at most a third of "
                          + s.name(LEASE_TTL)
                          + " ("
                          + s.value(third)
                          + ")";
                }

                @Override
                public String describe(RelayOption.Spelling s) {
                  return "positive, at most a third of " + s.name(LEASE_TTL);
                }
              },
              "how often the node renews its leases and its heartbeat")
          .withDefaultText("a third of the lease TTL");

  /** {@link FleetNode.Builder#scanInterval}. */
  public static final RelayOption<Duration> SCAN_INTERVAL =
      RelayOption.positiveDuration(
          "scanInterval",
          "scanInterval",
          "scan-interval",
          FleetNode.DEFAULT_SCAN_INTERVAL,
          null,
          "how often the node reads the registry, takes free or expired outboxes and balances");

  /** {@link FleetNode.Builder#controlLossPolicy}. */
  public static final RelayOption<ControlLossPolicy> CONTROL_LOSS_POLICY =
      RelayOption.choice(
          "controlLossPolicy",
          "on-control-loss",
          ControlLossPolicy.class,
          ControlLossPolicy.KEEP_POLLING,
          FleetOptions::word,
          "what the node does once its renewals have failed for a lease TTL: keep-polling stops"
              + " the WAL relays and keeps the polling ones (a second polling reader is wasteful,"
              + " never wrong); stop-all stops every relay");

  /** {@link FleetNode.Builder#poolSize}. */
  public static final RelayOption<Integer> POOL_SIZE =
      RelayOption.integer(
          "poolSize",
          "pool-size",
          FleetNode.DEFAULT_POOL_SIZE,
          1,
          FleetNode.MAX_POOL_SIZE,
          "connections in each outbox's pool");

  /** The first wait of {@link FleetNode.Builder#startBackoff}. */
  public static final RelayOption<Duration> START_BACKOFF_MIN =
      RelayOption.positiveDuration(
          "startBackoffMin",
          "startBackoff",
          null,
          FleetNode.DEFAULT_MIN_BACKOFF,
          null,
          "the first wait after a failed relay start, doubling at each further failure");

  /** The longest wait of {@link FleetNode.Builder#startBackoff}. */
  public static final RelayOption<Duration> START_BACKOFF_MAX =
      RelayOption.positiveDuration(
          "startBackoffMax",
          "startBackoff",
          null,
          FleetNode.DEFAULT_MAX_BACKOFF,
          START_BACKOFF_MIN,
          "the longest wait after a failed relay start");

  /** {@link FleetNode.Builder#walSweepInterval}. */
  public static final RelayOption<Duration> WAL_SWEEP_INTERVAL =
      RelayOption.positiveDuration(
          "walSweepInterval",
          "walSweepInterval",
          "wal-sweep-interval",
          FleetNode.DEFAULT_WAL_SWEEP_INTERVAL,
          null,
          "how often the polling sweeper beside a WAL outbox's relay polls");

  // ------------------------------------------------------------------------------------ entry

  /** The name of {@link FleetOutbox#builder(String)}; the command line's {@code NAME}. */
  public static final RelayOption<String> NAME =
      RelayOption.text(
          "name",
          null,
          "NAME",
          null,
          Pattern.compile("[a-z0-9][a-z0-9_-]{0," + (FleetOutbox.MAX_NAME_LENGTH - 1) + "}"),
          "1 to "
              + FleetOutbox.MAX_NAME_LENGTH
              + " characters of [a-z0-9_-], starting with a letter or digit",
          "the outbox's name in the fleet, unique in the registry");

  /** {@link FleetOutbox.Builder#jdbcUrl}. */
  public static final RelayOption<String> JDBC_URL =
      RelayOption.of(
          "jdbcUrl",
          "jdbcUrl",
          "outbox-url",
          RelayOption.Type.TEXT,
          "URL",
          null,
          null,
          new RelayOption.Rule<String>() {
            @Override
            public @Nullable String violation(
                String url, @Nullable String other, RelayOption.Spelling s) {
              if (!url.startsWith("jdbc:postgresql:")) {
                return "must start with jdbc:postgresql:";
              }
              if (url.length() > FleetOutbox.MAX_URL_LENGTH) {
                return "must be at most " + FleetOutbox.MAX_URL_LENGTH + " characters";
              }
              // The driver's own forms: jdbc:postgresql://user:password@host and ?password=...
              return SecretMasking.secretsIn(url.substring(5)).isEmpty()
                      && !url.toLowerCase(Locale.ROOT).matches(".*[?&](ssl)?password=.*")
                  ? null
                  : "must not carry a password, which the registry never stores; give "
                      + s.name(PASSWORD)
                      + " env:NAME or file:/path instead";
            }

            @Override
            public String describe(RelayOption.Spelling s) {
              return "jdbc:postgresql:…, at most "
                  + FleetOutbox.MAX_URL_LENGTH
                  + " characters, without password";
            }

            @Override
            public String shown(String url, RelayOption.Spelling s) {
              String masked =
                  url.startsWith("jdbc:")
                      ? "jdbc:" + SecretMasking.maskUri(url.substring(5))
                      : SecretMasking.maskUri(url);
              return abbreviate(String.valueOf(masked));
            }
          },
          "the outbox database's JDBC URL");

  /** {@link FleetOutbox.Builder#user}. */
  public static final RelayOption<String> USER =
      RelayOption.text(
          "user",
          "outbox-user",
          "USER",
          null,
          Pattern.compile("[^\\s]{1,63}"),
          "1 to 63 characters without spaces",
          "the outbox database's user; none lets the driver decide (the URL's user parameter)");

  /** {@link FleetOutbox.Builder#password}: where the password is, never the password. */
  public static final RelayOption<String> PASSWORD =
      RelayOption.of(
          "password",
          "password",
          "outbox-password",
          RelayOption.Type.TEXT,
          "REF",
          null,
          null,
          new RelayOption.Rule<String>() {
            @Override
            public @Nullable String violation(
                String ref, @Nullable String other, RelayOption.Spelling s) {
              return SecretRef.parsed(ref) != null ? null : "must be " + SecretRef.RULE;
            }

            @Override
            public String describe(RelayOption.Spelling s) {
              return "env:NAME or file:/path, at most " + SecretRef.MAX_LENGTH + " characters";
            }

            @Override
            public String shown(String ref, RelayOption.Spelling s) {
              return SecretRef.HIDDEN;
            }
          },
          "where the outbox database's password is: env:NAME, a variable of the node, or"
              + " file:/path, the first line of a file; none for trust or a client certificate");

  /** {@link FleetOutbox.Builder#schema}. */
  public static final RelayOption<String> SCHEMA =
      RelayOption.of(
          "schema",
          "schema",
          "outbox-schema",
          RelayOption.Type.TEXT,
          "SCHEMA",
          OutboxSchema.DEFAULT_SCHEMA,
          null,
          accepted(
              OutboxSchema::requireSchemaName,
              "a lower-case identifier of 1 to "
                  + OutboxSchema.MAX_SCHEMA_NAME_LENGTH
                  + " characters [a-z0-9_], not starting with a digit"),
          "the schema of the outbox's tables");

  /** {@link FleetOutbox.Builder#tablePrefix}. */
  public static final RelayOption<String> TABLE_PREFIX =
      RelayOption.of(
          "tablePrefix",
          "tablePrefix",
          "outbox-table-prefix",
          RelayOption.Type.TEXT,
          "PREFIX",
          null,
          null,
          accepted(
              prefix -> OutboxTables.of(OutboxSchema.DEFAULT_SCHEMA, prefix),
              "empty or a lower-case identifier start of up to "
                  + OutboxTables.MAX_TABLE_PREFIX_LENGTH
                  + " characters [a-z0-9_], not starting with a digit; with the schema, at most "
                  + OutboxTables.MAX_PREFIX_AND_SCHEMA_LENGTH
                  + " characters"),
          "the prefix of the outbox's tables");

  /** {@link FleetOutbox.Builder#kind}. */
  public static final RelayOption<OutboxKind> KIND =
      RelayOption.choice(
          "kind",
          "kind",
          OutboxKind.class,
          OutboxKind.POLLING,
          OutboxKind::dbName,
          "how the outbox is read: polling, by the polling relay (any number of readers); wal, by"
              + " the WAL relay with a polling sweeper (one reader, its replication slot the lock;"
              + " wal_level=logical and a user with REPLICATION)");

  /** {@link FleetOutbox.Builder#slotName}, for a {@link OutboxKind#WAL} outbox only. */
  public static final RelayOption<String> SLOT_NAME =
      RelayOption.text(
              "slotName",
              "slot",
              "NAME",
              null,
              WalOptions.NAME,
              WalOptions.NAME_RULE,
              "the replication slot of a wal outbox")
          .withDefaultText(
              "the WAL relay's, txoutbox_ followed by the table prefix and the schema");

  /** {@link FleetOutbox.Builder#publisher}. */
  public static final RelayOption<String> PUBLISHER =
      RelayOption.text(
          "publisher",
          "publisher",
          "NAME",
          null,
          Pattern.compile("[a-z0-9]{1,32}"),
          "1 to 32 characters of [a-z0-9]",
          "the name of the PublisherProvider that publishes the outbox's events, such as kafka");

  /** {@link FleetOutbox.Builder#weight}. */
  public static final RelayOption<Integer> WEIGHT =
      RelayOption.integer(
          "weight",
          "weight",
          FleetOutbox.DEFAULT_WEIGHT,
          1,
          FleetOutbox.MAX_WEIGHT,
          "the outbox's share of a node when balancing (give a busy outbox more)");

  /** {@link FleetOutbox.Builder#enabled}{@code (false)}: the entry is disabled. */
  public static final RelayOption<Boolean> DISABLED =
      RelayOption.onOff(
          "disabled",
          "enabled",
          "disabled",
          "the entry is disabled: it stays in the registry and no node serves it");

  private static final List<RelayOption<?>> NODE =
      List.of(
          NODE_ID,
          LEASE_TTL,
          RENEW_INTERVAL,
          SCAN_INTERVAL,
          CONTROL_LOSS_POLICY,
          POOL_SIZE,
          START_BACKOFF_MIN,
          START_BACKOFF_MAX,
          WAL_SWEEP_INTERVAL);

  private static final List<RelayOption<?>> ENTRY =
      List.of(
          NAME,
          JDBC_URL,
          USER,
          PASSWORD,
          SCHEMA,
          TABLE_PREFIX,
          KIND,
          SLOT_NAME,
          PUBLISHER,
          WEIGHT,
          DISABLED);

  /** A node's options, in the order the documentation lists them. */
  public static List<RelayOption<?>> node() {
    return NODE;
  }

  /** A registry entry's fields, in the order the documentation lists them. */
  public static List<RelayOption<?>> entry() {
    return ENTRY;
  }

  /** The word of {@code policy} on the command line: {@code keep-polling}, {@code stop-all}. */
  private static String word(ControlLossPolicy policy) {
    return switch (policy) {
      case KEEP_POLLING -> "keep-polling";
      case STOP_ALL -> "stop-all";
    };
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  /** A duration of at least {@code min}, the bound written as the command line writes it. */
  private static RelayOption.Rule<Duration> atLeast(Duration min) {
    return new RelayOption.Rule<>() {
      @Override
      public @Nullable String violation(
          Duration v, @Nullable Duration other, RelayOption.Spelling s) {
        return v.compareTo(min) >= 0 ? null : "must be " + describe(s);
      }

      @Override
      public String describe(RelayOption.Spelling s) {
        return "at least " + DurationText.of(min);
      }
    };
  }

  /**
   * A text that {@code check} accepts (it throws {@code IllegalArgumentException} otherwise): the
   * rule of another module, said in {@code words}.
   */
  private static RelayOption.Rule<String> accepted(Consumer<String> check, String words) {
    return new RelayOption.Rule<>() {
      @Override
      public @Nullable String violation(
          String value, @Nullable String other, RelayOption.Spelling s) {
        try {
          check.accept(value);
          return null;
        } catch (IllegalArgumentException e) {
          return "must be " + words;
        }
      }

      @Override
      public String describe(RelayOption.Spelling s) {
        return words;
      }
    };
  }

  /** {@code text} cut to 80 characters and masked: what an error shows of a value. */
  static String abbreviate(String text) {
    String t = text.length() > 80 ? text.substring(0, 80) + "…" : text;
    return String.valueOf(SecretMasking.maskText(t));
  }
}

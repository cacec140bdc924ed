package dev.txoutbox.fleet;

import dev.txoutbox.RelayOption;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.SecretMasking;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One outbox the fleet serves, as the {@link FleetRegistry} stores it: where its database is (a
 * JDBC URL without password, a user, and a {@link SecretRef reference} to the password), its schema
 * and table prefix, how it is read ({@link OutboxKind}), its publisher by {@code PublisherProvider}
 * name with that provider's settings, its weight and whether it is enabled.
 *
 * <p>Every value is checked by {@link Builder#build()}, before anything is written: an error names
 * the field and the limit. No secret is ever part of an entry: a URL carrying a password is
 * rejected, and a publisher setting whose name marks a secret (see {@link
 * SecretMasking#isSecretKey}) must be a reference, resolved by the node that runs the relay.
 *
 * <p>Immutable and thread-safe.
 */
public final class FleetOutbox {

  /**
   * Longest outbox name: 24 characters, so that the relay name {@code <node>.<name>-sweeper} fits.
   */
  public static final int MAX_NAME_LENGTH = 24;

  /** Longest JDBC URL: 2,048 characters. */
  public static final int MAX_URL_LENGTH = 2048;

  /** Largest weight: 1,000,000. The smallest is 1. */
  public static final int MAX_WEIGHT = 1_000_000;

  /** Most publisher settings in one entry: 100. */
  public static final int MAX_SETTINGS = 100;

  /** Longest publisher setting value: 4,096 characters. */
  public static final int MAX_SETTING_LENGTH = 4096;

  /** Weight unless {@link Builder#weight(int)} says otherwise: 1. */
  public static final int DEFAULT_WEIGHT = 1;

  private static final Pattern SETTING_KEY = Pattern.compile("[a-z0-9][a-z0-9._-]{0,127}");

  private final String name;
  private final String jdbcUrl;
  private final @Nullable String user;
  private final @Nullable SecretRef password;
  private final OutboxTables tables;
  private final OutboxKind kind;
  private final @Nullable String slotName;
  private final String publisher;
  private final Map<String, String> publisherSettings;
  private final int weight;
  private final boolean enabled;
  private final long version;

  private FleetOutbox(Builder b, OutboxTables tables) {
    this.name = Objects.requireNonNull(b.name);
    this.jdbcUrl = Objects.requireNonNull(b.jdbcUrl);
    this.user = b.user;
    this.password = b.password;
    this.tables = tables;
    this.kind = b.kind;
    this.slotName = b.slotName;
    this.publisher = Objects.requireNonNull(b.publisher);
    this.publisherSettings = Collections.unmodifiableMap(new TreeMap<>(b.publisherSettings));
    this.weight = b.weight;
    this.enabled = b.enabled;
    this.version = b.version;
  }

  /** Starts an entry named {@code name}. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A builder holding this entry's values, to change some and {@link FleetRegistry#update}. */
  public Builder toBuilder() {
    Builder b = new Builder(name);
    b.jdbcUrl = jdbcUrl;
    b.user = user;
    b.password = password;
    b.schema = tables.schema();
    b.tablePrefix = tables.tablePrefix();
    b.kind = kind;
    b.slotName = slotName;
    b.publisher = publisher;
    b.publisherSettings.putAll(publisherSettings);
    b.weight = weight;
    b.enabled = enabled;
    b.version = version;
    return b;
  }

  /** The outbox's name in the fleet: unique, 1 to 24 characters of {@code [a-z0-9_-]}. */
  public String name() {
    return name;
  }

  /** The outbox database's JDBC URL, without password. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** The database user, or null to let the driver decide (the URL's {@code user} parameter). */
  public @Nullable String user() {
    return user;
  }

  /** Where the password is, or null for none (trust, or a client certificate). */
  public @Nullable SecretRef password() {
    return password;
  }

  /** The outbox's schema and table prefix. */
  public OutboxTables tables() {
    return tables;
  }

  /** How the outbox is read. */
  public OutboxKind kind() {
    return kind;
  }

  /**
   * The replication slot of a {@link OutboxKind#WAL} outbox, or null for the WAL relay's default.
   */
  public @Nullable String slotName() {
    return slotName;
  }

  /** The {@code PublisherProvider} name, such as {@code kafka}. */
  public String publisher() {
    return publisher;
  }

  /** The publisher's settings, secret ones as references; sorted by name. */
  public Map<String, String> publisherSettings() {
    return publisherSettings;
  }

  /** The share of a node this outbox takes when balancing: 1 to 1,000,000. */
  public int weight() {
    return weight;
  }

  /** Whether a node should serve it. A disabled entry stays in the registry, unserved. */
  public boolean enabled() {
    return enabled;
  }

  /**
   * The registry's version of this entry: 1 when added, one more at each update; 0 for an entry not
   * yet stored. A node restarts the relay of an entry whose version changed.
   */
  public long version() {
    return version;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FleetOutbox e
        && e.name.equals(name)
        && e.jdbcUrl.equals(jdbcUrl)
        && Objects.equals(e.user, user)
        && Objects.equals(e.password, password)
        && e.tables.equals(tables)
        && e.kind == kind
        && Objects.equals(e.slotName, slotName)
        && e.publisher.equals(publisher)
        && e.publisherSettings.equals(publisherSettings)
        && e.weight == weight
        && e.enabled == enabled
        && e.version == version;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, jdbcUrl, tables, kind, publisher, weight, enabled, version);
  }

  /** Every field; secrets are references, and any text is masked besides. */
  @Override
  public String toString() {
    return "FleetOutbox{name="
        + name
        + ", jdbcUrl="
        + SecretMasking.maskUri(jdbcUrl)
        + ", user="
        + user
        + ", password="
        + password
        + ", tables="
        + tables
        + ", kind="
        + kind.dbName()
        + (slotName == null ? "" : ", slotName=" + slotName)
        + ", publisher="
        + publisher
        + ", publisherSettings="
        + SecretMasking.maskSettings(publisherSettings)
        + ", weight="
        + weight
        + ", enabled="
        + enabled
        + ", version="
        + version
        + "}";
  }

  /** Builds a {@link FleetOutbox}. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private @Nullable String jdbcUrl;
    private @Nullable String user;
    private @Nullable SecretRef password;
    private String schema = "public";
    private String tablePrefix = "";
    private OutboxKind kind = OutboxKind.POLLING;
    private @Nullable String slotName;
    private @Nullable String publisher;
    private final Map<String, String> publisherSettings = new TreeMap<>();
    private int weight = DEFAULT_WEIGHT;
    private boolean enabled = true;
    private long version;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * The database, {@code jdbc:postgresql://host:port/db[?params]}, without password. Required.
     */
    public Builder jdbcUrl(String jdbcUrl) {
      this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      return this;
    }

    /** The database user. Optional. */
    public Builder user(@Nullable String user) {
      this.user = user;
      return this;
    }

    /**
     * Where the password is: {@code env:NAME} or {@code file:/path}; null for none. Defaults to
     * none.
     *
     * @throws IllegalArgumentException if it is neither form (the value is not shown)
     */
    public Builder password(@Nullable String reference) {
      if (reference == null) {
        this.password = null;
      } else {
        FleetOptions.PASSWORD.check(reference);
        this.password = SecretRef.parse(FleetOptions.PASSWORD.name(), reference);
      }
      return this;
    }

    /** The outbox's schema. Defaults to {@code public}. */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /** The outbox's table prefix. Defaults to none. */
    public Builder tablePrefix(String tablePrefix) {
      this.tablePrefix = Objects.requireNonNull(tablePrefix, "tablePrefix");
      return this;
    }

    /** How it is read. Defaults to {@link OutboxKind#POLLING}. */
    public Builder kind(OutboxKind kind) {
      this.kind = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /**
     * The replication slot of a WAL outbox; null for the WAL relay's default {@code
     * txoutbox_<prefix><schema>}. Only for {@link OutboxKind#WAL}.
     */
    public Builder slotName(@Nullable String slotName) {
      this.slotName = slotName;
      return this;
    }

    /** The {@code PublisherProvider} name, such as {@code kafka}. Required. */
    public Builder publisher(String publisher) {
      this.publisher = Objects.requireNonNull(publisher, "publisher");
      return this;
    }

    /** One publisher setting, a secret one as {@code env:NAME} or {@code file:/path}. */
    public Builder publisherSetting(String key, String value) {
      publisherSettings.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
      return this;
    }

    /** Replaces the publisher settings with {@code settings}. */
    public Builder publisherSettings(Map<String, String> settings) {
      publisherSettings.clear();
      settings.forEach(this::publisherSetting);
      return this;
    }

    /** The share of a node it takes, 1 to 1,000,000. Defaults to 1. */
    public Builder weight(int weight) {
      this.weight = weight;
      return this;
    }

    /** Whether nodes serve it. Defaults to true. */
    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    /** Set by the registry when it reads an entry. */
    Builder version(long version) {
      this.version = version;
      return this;
    }

    /**
     * Checks every value, each with its definition in {@link FleetOptions}, and builds the entry.
     *
     * @throws IllegalArgumentException naming the field and its limit when a value is invalid,
     *     missing, or a secret where a reference is expected
     */
    public FleetOutbox build() {
      return build(RelayOption.Spelling.API);
    }

    /**
     * As {@link #build()}, each error naming the fields in {@code words}: a command line passes
     * those of its flags ({@code --outbox-url}), so its errors need no rewriting. Any text value an
     * error shows is cut to 80 characters and masked.
     *
     * @throws IllegalArgumentException naming the field, in {@code words}, and its limit when a
     *     value is invalid, missing, or a secret where a reference is expected
     */
    public FleetOutbox build(RelayOption.Spelling words) {
      RelayOption.Spelling s = abbreviating(words);
      FleetOptions.NAME.check(name, null, s);
      if (jdbcUrl == null) {
        throw new IllegalArgumentException(
            s.name(FleetOptions.JDBC_URL) + " must be given but was not");
      }
      FleetOptions.JDBC_URL.check(jdbcUrl, null, s);
      if (user != null) {
        FleetOptions.USER.check(user, null, s);
      }
      FleetOptions.SCHEMA.check(schema, null, s);
      FleetOptions.TABLE_PREFIX.check(tablePrefix, null, s);
      OutboxTables tables;
      try {
        tables = OutboxTables.of(schema, tablePrefix);
      } catch (IllegalArgumentException e) { // the two together are too long
        throw new IllegalArgumentException(
            s.name(FleetOptions.TABLE_PREFIX)
                + " and "
                + s.name(FleetOptions.SCHEMA)
                + " together must be at most "
                + OutboxTables.MAX_PREFIX_AND_SCHEMA_LENGTH
                + " characters but have "
                + (tablePrefix.length() + schema.length()),
            e);
      }
      if (slotName != null) {
        if (kind != OutboxKind.WAL) {
          throw new IllegalArgumentException(
              s.name(FleetOptions.SLOT_NAME)
                  + " must be given only for "
                  + s.name(FleetOptions.KIND)
                  + " "
                  + FleetOptions.KIND.describe(OutboxKind.WAL)
                  + " but "
                  + s.name(FleetOptions.KIND)
                  + " was "
                  + FleetOptions.KIND.describe(kind));
        }
        FleetOptions.SLOT_NAME.check(slotName, null, s);
      }
      if (publisher == null) {
        throw new IllegalArgumentException(
            s.name(FleetOptions.PUBLISHER) + " must be given but was not");
      }
      FleetOptions.PUBLISHER.check(publisher, null, s);
      checkSettings();
      FleetOptions.WEIGHT.check(weight, null, s);
      return new FleetOutbox(this, tables);
    }

    private void checkSettings() {
      if (publisherSettings.size() > MAX_SETTINGS) {
        throw new IllegalArgumentException(
            "publisherSettings must have at most "
                + MAX_SETTINGS
                + " entries but has "
                + publisherSettings.size());
      }
      for (Map.Entry<String, String> s : publisherSettings.entrySet()) {
        String key = s.getKey();
        String value = s.getValue();
        if (!SETTING_KEY.matcher(key).matches()) {
          throw new IllegalArgumentException(
              "a publisher setting's name must be 1 to 128 characters of [a-z0-9._-] but was '"
                  + FleetOptions.abbreviate(key)
                  + "'");
        }
        if (value.length() > MAX_SETTING_LENGTH) {
          throw new IllegalArgumentException(
              "publisher setting "
                  + key
                  + " must be at most "
                  + MAX_SETTING_LENGTH
                  + " characters but has "
                  + value.length());
        }
        if (SecretMasking.isSecretKey(key)) {
          SecretRef.parse("publisher setting " + key, value);
        } else if (!SecretRef.isReference(value) && !SecretMasking.secretsIn(value).isEmpty()) {
          throw new IllegalArgumentException(
              "publisher setting "
                  + key
                  + " must not carry a password, the registry stores no secret, but was "
                  + SecretMasking.maskUri(value));
        }
      }
    }

    private static RelayOption.Spelling abbreviating(RelayOption.Spelling words) {
      return new RelayOption.Spelling() {
        @Override
        public String name(RelayOption<?> option) {
          return words.name(option);
        }

        @Override
        public String value(Object value) {
          String written = words.value(value);
          return value instanceof String ? FleetOptions.abbreviate(written) : written;
        }
      };
    }
  }
}

package dev.txoutbox.cli;

import dev.txoutbox.fleet.FleetException;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.FleetSchema;
import dev.txoutbox.fleet.OutboxKind;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import java.nio.file.Path;
import java.util.Map;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code txoutbox fleet add NAME ...}: adds an outbox to the registry (or, with {@code --update},
 * replaces an entry), creating the fleet's tables in the control schema if needed. The entry holds
 * no secret: its password and secret publisher settings are references ({@code env:NAME}, {@code
 * file:/path}) that the node serving it resolves. The publisher flags are those of {@code relay},
 * from the same {@link PublisherCatalog}; every value is checked before anything is written.
 */
@Command(
    name = "add",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Adds an outbox to the fleet's registry; nodes take it at their next scan.",
      "Secrets are references, never values: --outbox-password env:NAME or file:/path, and the"
          + " same for a secret publisher setting (--amqp-uri env:AMQP_URI); the node serving the"
          + " outbox reads them from its own environment or files."
    })
final class FleetAddCommand extends FleetCommand.Control {

  /** How {@code --kind} reads an {@link OutboxKind}. */
  static final EnumFlag<OutboxKind> KIND = EnumFlag.of("--kind", OutboxKind.class);

  /** The entry's fields in the words of this command's flags, for the registry's messages. */
  private static final Map<String, String> ENTRY_FLAGS =
      Map.of(
          "jdbcUrl", "--outbox-url",
          "user", "--outbox-user",
          "password", "--outbox-password",
          "slotName", "--slot",
          "weight", "--weight",
          "name", "NAME");

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      description = "The entry's name, 1 to 24 of a-z, 0-9, _ and -; unique in the registry.")
  String name;

  @Option(
      names = "--outbox-url",
      required = true,
      paramLabel = "URL",
      description = "The outbox database's JDBC URL, without password.")
  String url;

  @Option(names = "--outbox-user", paramLabel = "USER", description = "Its user.")
  String user;

  @Option(
      names = "--outbox-password",
      paramLabel = "REF",
      description =
          "Where its password is: env:NAME (a variable of the node) or file:/path (the file's first"
              + " line). Default: none.")
  String password;

  @Option(
      names = "--outbox-schema",
      paramLabel = "SCHEMA",
      description = "The schema of its outbox tables. Default: public.")
  String schema;

  @Option(
      names = "--outbox-table-prefix",
      paramLabel = "PREFIX",
      description = "The prefix of its outbox tables. Default: none.")
  String tablePrefix;

  @Option(
      names = "--kind",
      paramLabel = "KIND",
      description =
          "polling: the polling relay (any number of readers); wal: the WAL relay with a polling"
              + " sweeper, one reader, its replication slot the lock (wal_level=logical, the"
              + " user needs REPLICATION). Default: polling.")
  String kind;

  @Option(
      names = "--slot",
      paramLabel = "NAME",
      description = "The replication slot (wal). Default: txoutbox_<table prefix><schema>.")
  String slot;

  @Option(
      names = "--weight",
      paramLabel = "N",
      description =
          "Its share of a node when balancing, 1 to 1000000 (give a busy outbox more). Default: 1.")
  Integer weight;

  @Option(names = "--disabled", description = "Add it disabled: no node serves it.")
  boolean disabled;

  @Option(
      names = "--update",
      description = "Replace the entry of that name, every field; its node restarts its relay.")
  boolean update;

  @Option(
      names = "--publisher",
      required = true,
      paramLabel = "NAME",
      description = "The broker: one of the publishers listed at the end, with their flags.")
  String publisher;

  @Option(
      names = "--publisher-config",
      paramLabel = "FILE",
      description =
          "A properties file of publisher settings named like the flags without dashes;"
              + " flags override it.")
  Path publisherConfig;

  private final PublisherCatalog publishers;

  FleetAddCommand(TxoutboxCommand root, PublisherCatalog publishers) {
    super(root);
    this.publishers = publishers;
  }

  @Override
  public Integer call() {
    DatabaseTarget target = controlTarget();
    FleetOutbox entry = entry();
    DataSource db = connect(target);
    FleetSchema.migrate(db, controlSchema());
    FleetOutbox stored;
    try {
      stored = update ? registry(db).update(entry) : registry(db).add(entry);
    } catch (IllegalStateException e) {
      throw new CliException(e.getMessage() + (update ? "" : " (--update replaces an entry)"), e);
    } catch (FleetException e) {
      throw failure(e);
    }
    out()
        .println(
            (update ? "updated" : "added")
                + " outbox "
                + stored.name()
                + " (version "
                + stored.version()
                + (stored.enabled() ? "" : ", disabled")
                + ")");
    return ExitCodes.OK;
  }

  /** The entry of the flags, checked by the registry's own rules. */
  private FleetOutbox entry() {
    try {
      Map<String, String> settings =
          PublisherOptions.given(spec.commandLine().getParseResult(), publisherConfig, publishers);
      PublisherProvider provider = publishers.find(publisher);
      // The provider's own check of the setting names; values are references until a node runs.
      PublisherSettings.of(provider, "txoutbox-fleet", settings);
      FleetOutbox.Builder b =
          FleetOutbox.builder(name)
              .jdbcUrl(url)
              .user(user)
              .password(password)
              .publisher(provider.name())
              .publisherSettings(settings)
              .enabled(!disabled);
      if (schema != null) {
        b.schema(schema);
      }
      if (tablePrefix != null) {
        b.tablePrefix(tablePrefix);
      }
      if (kind != null) {
        b.kind(KIND.parse(kind));
      }
      if (slot != null) {
        b.slotName(slot);
      }
      if (weight != null) {
        b.weight(weight);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw usageError(FlagNames.of(e.getMessage(), ENTRY_FLAGS));
    }
  }
}

package dev.txoutbox.cli;

import dev.txoutbox.RelayOption;
import dev.txoutbox.fleet.FleetException;
import dev.txoutbox.fleet.FleetOptions;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.FleetSchema;
import dev.txoutbox.fleet.OutboxKind;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * {@code txoutbox fleet add NAME ...}: adds an outbox to the registry (or, with {@code --update},
 * replaces an entry), creating the fleet's tables in the control schema if needed. The entry holds
 * no secret: its password and secret publisher settings are references ({@code env:NAME}, {@code
 * file:/path}) that the node serving it resolves. The publisher flags are those of {@code relay},
 * from the same {@link PublisherCatalog}; every value is checked before anything is written.
 */
@Command(
    name = "add",
    modelTransformer = FleetAddCommand.DefinedFlags.class,
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Adds an outbox to the fleet's registry; nodes take it at their next scan.",
      "Secrets are references, never values: --outbox-password env:NAME or file:/path, and the"
          + " same for a secret publisher setting (--amqp-uri env:AMQP_URI); the node serving the"
          + " outbox reads them from its own environment or files."
    })
final class FleetAddCommand extends FleetCommand.Control {

  /** The entry's fields that are flags, in the order of their {@code Outbox:} section. */
  static final List<RelayOption<?>> ENTRY_FLAGS =
      List.of(
          FleetOptions.JDBC_URL,
          FleetOptions.USER,
          FleetOptions.PASSWORD,
          FleetOptions.SCHEMA,
          FleetOptions.TABLE_PREFIX,
          FleetOptions.KIND,
          FleetOptions.SLOT_NAME,
          FleetOptions.WEIGHT,
          FleetOptions.DISABLED);

  /** How {@code --kind} reads an {@link OutboxKind}. */
  static final EnumFlag<OutboxKind> KIND =
      OptionFlags.enumFlag(FleetOptions.KIND, OutboxKind.class);

  /** The entry's fields in the words of this command: its flags, and {@code NAME}. */
  static final RelayOption.Spelling WORDS =
      OptionFlags.named(Map.of(FleetOptions.NAME, FleetOptions.NAME.label()));

  /**
   * Adds the entry's {@code NAME} and its {@code Outbox:} section, made from the fields'
   * definitions.
   */
  static final class DefinedFlags implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec add) {
      add.addPositional(
          PositionalParamSpec.builder()
              .index("0")
              .paramLabel(FleetOptions.NAME.label())
              .type(String.class)
              .description(OptionFlags.meaning(FleetOptions.NAME))
              .build());
      OptionFlags.addGroup(
          add,
          "%nOutbox:%n",
          1,
          ENTRY_FLAGS.stream()
              .map(
                  o ->
                      o == FleetOptions.JDBC_URL
                          ? OptionFlags.required(o)
                          : OptionFlags.option(o, null))
              .toList());
      return add;
    }
  }

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

  /**
   * The entry of the flags, checked by the registry's own rules ({@link FleetOutbox.Builder#build(
   * RelayOption.Spelling)}) in the words of this command.
   */
  private FleetOutbox entry() {
    ParseResult parsed = spec.commandLine().getParseResult();
    String name = parsed.matchedPositionalValue(0, null);
    try {
      Map<String, String> settings = PublisherOptions.given(parsed, publisherConfig, publishers);
      PublisherProvider provider = publishers.find(publisher);
      // The provider's own check of the setting names; values are references until a node runs.
      PublisherSettings.of(provider, "txoutbox-fleet", settings);
      String password = OptionFlags.given(parsed, FleetOptions.PASSWORD);
      if (password != null) {
        // Checked before the builder takes it: the builder refuses a secret at once.
        FleetOptions.PASSWORD.check(password, null, WORDS);
      }
      FleetOutbox.Builder b =
          FleetOutbox.builder(name)
              .user(OptionFlags.given(parsed, FleetOptions.USER))
              .password(password)
              .publisher(provider.name())
              .publisherSettings(settings)
              .enabled(!Boolean.TRUE.equals(OptionFlags.given(parsed, FleetOptions.DISABLED)))
              .slotName(OptionFlags.given(parsed, FleetOptions.SLOT_NAME));
      String url = OptionFlags.given(parsed, FleetOptions.JDBC_URL);
      if (url != null) {
        b.jdbcUrl(url);
      }
      String schema = OptionFlags.given(parsed, FleetOptions.SCHEMA);
      if (schema != null) {
        b.schema(schema);
      }
      String tablePrefix = OptionFlags.given(parsed, FleetOptions.TABLE_PREFIX);
      if (tablePrefix != null) {
        b.tablePrefix(tablePrefix);
      }
      String kind = parsed.matchedOptionValue(OptionFlags.flag(FleetOptions.KIND), null);
      if (kind != null) {
        b.kind(KIND.parse(kind));
      }
      Integer weight = OptionFlags.given(parsed, FleetOptions.WEIGHT);
      if (weight != null) {
        b.weight(weight);
      }
      return b.build(WORDS);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }
}

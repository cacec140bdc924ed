package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.RelayOption;
import dev.txoutbox.fleet.FleetOptions;
import dev.txoutbox.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The flags of {@code fleet run} and {@code fleet add} are made from the fleet's option definitions
 * ({@link FleetOptions}): each option with a key is a flag with the definition's {@code --help}
 * line, and a bad value is refused with the definition's rule in the words of the flags, not by
 * rewriting a builder's message.
 */
class FleetOptionFlagsTest {

  private static TestDatabase db;

  @BeforeAll
  static void setUp() {
    db = TestDatabase.create("cli_fleet_option_flags");
  }

  @AfterAll
  static void tearDown() {
    db.execute("DROP SCHEMA IF EXISTS " + control() + " CASCADE");
    db.close();
  }

  private static String control() {
    return db.schema() + "_control";
  }

  private static CommandLine fleet(String command) {
    PrintStream none = new PrintStream(new ByteArrayOutputStream());
    return Cli.commandLine(new TxoutboxCommand(new CliContext(Map.of(), none, none, t -> true)))
        .getSubcommands()
        .get("fleet")
        .getSubcommands()
        .get(command);
  }

  @Test
  void everyNodeOptionWithAKeyIsAFlagOfFleetRunWithTheDefinitionsHelp() {
    CommandLine run = fleet("run");
    for (RelayOption<?> option : FleetRunCommand.NODE_OPTIONS) {
      assertHelpIsTheDefinitions(run, option);
    }
    assertThat(FleetRunCommand.NODE_OPTIONS)
        .containsAll(
            FleetOptions.node().stream()
                .filter(o -> o.key() != null && o != FleetOptions.POOL_SIZE)
                .toList());
    assertThat(help(run, "--lease-ttl"))
        .isEqualTo(
            "How long a lease and a heartbeat last unrenewed: with the scan interval, the longest"
                + " a dead node's outboxes stay unserved: at least 1s. Default: 15s.");
    assertThat(help(run, "--renew-interval"))
        .isEqualTo(
            "How often the node renews its leases and its heartbeat: positive, at most a third of"
                + " --lease-ttl. Default: a third of the lease TTL.");
    assertThat(help(run, "--node-id"))
        .endsWith("Default: the host name and six random hex digits.");
  }

  @Test
  void everyEntryFieldWithAKeyIsAFlagOfFleetAddWithTheDefinitionsHelp() {
    CommandLine add = fleet("add");
    for (RelayOption<?> option : FleetAddCommand.ENTRY_FLAGS) {
      assertHelpIsTheDefinitions(add, option);
    }
    assertThat(FleetAddCommand.ENTRY_FLAGS)
        .containsAll(
            FleetOptions.entry().stream()
                .filter(o -> o.key() != null && o != FleetOptions.PUBLISHER)
                .toList());
    assertThat(help(add, "--weight"))
        .isEqualTo(
            "The outbox's share of a node when balancing (give a busy outbox more): 1 to 1000000."
                + " Default: 1.");
    assertThat(String.join(" ", add.getCommandSpec().positionalParameters().get(0).description()))
        .startsWith("The outbox's name in the fleet, unique in the registry: 1 to 24 characters");
  }

  private static void assertHelpIsTheDefinitions(CommandLine command, RelayOption<?> option) {
    String d = option.description();
    assertThat(help(command, "--" + option.key()))
        .as(option.name())
        .startsWith(Character.toUpperCase(d.charAt(0)) + d.substring(1))
        .endsWith(
            option == FleetOptions.JDBC_URL
                ? " Required."
                : " Default: "
                    + (option.type() == RelayOption.Type.SWITCH ? "off" : option.defaultText())
                    + ".");
  }

  private static String help(CommandLine command, String flag) {
    CommandLine.Model.OptionSpec option = command.getCommandSpec().findOption(flag);
    assertThat(option).as("the flag " + flag).isNotNull();
    return String.join(" ", option.description());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--node-id a.b | --node-id must be 1 to 31 characters of [A-Za-z0-9_-] but was 'a.b'",
        "--lease-ttl 500ms | --lease-ttl must be at least 1s but was 500ms",
        "--lease-ttl 3s --renew-interval 2s | --renew-interval must be positive and at most a"
            + " third of --lease-ttl (1s) but was 2s",
        "--renew-interval 6s | --renew-interval must be positive and at most a third of"
            + " --lease-ttl (5s) but was 6s",
        "--scan-interval 0ms | --scan-interval must be positive but was 0ms",
        "--wal-sweep-interval 0ms | --wal-sweep-interval must be positive but was 0ms",
        "--on-control-loss panic | --on-control-loss must be one of stop-all, keep-polling but"
            + " was 'panic'",
      })
  void aBadNodeValueIsRefusedByTheDefinitionsRuleInTheWordsOfTheFlags(
      String flags, String message) {
    List<String> args = new ArrayList<>(List.of("run"));
    args.addAll(List.of(flags.trim().split(" ")));
    CliRunner.Result r = fleetCommand(args);

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).isEqualTo(message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Billing --outbox-url jdbc:postgresql://db/app | NAME must be 1 to 24 characters of"
            + " [a-z0-9_-], starting with a letter or digit but was 'Billing'",
        "billing | --outbox-url must be given but was not",
        "billing --outbox-url jdbc:mysql://db/app | --outbox-url must start with"
            + " jdbc:postgresql: but was jdbc:mysql://db/app",
        "billing --outbox-url jdbc:postgresql://db/app --weight 0 | --weight must be between 1"
            + " and 1000000 but was 0",
        "billing --outbox-url jdbc:postgresql://db/app --slot s1 | --slot must be given only for"
            + " --kind wal but --kind was polling",
        "billing --outbox-url jdbc:postgresql://db/app --kind wal --slot S-1 | --slot must be 1"
            + " to 63 characters of a-z, 0-9 and _ but was 'S-1'",
        "billing --outbox-url jdbc:postgresql://db/app --outbox-schema Bad | --outbox-schema"
            + " must be a lower-case identifier of 1 to 54 characters [a-z0-9_], not starting with"
            + " a digit but was 'Bad'",
        "billing --outbox-url jdbc:postgresql://db/app --kind kafka | --kind must be one of"
            + " polling, wal but was 'kafka'",
      })
  void aBadEntryValueIsRefusedByTheDefinitionsRuleInTheWordsOfTheFlags(String flags, String message)
      throws SQLException {
    List<String> args = new ArrayList<>(List.of("add"));
    args.addAll(List.of(flags.trim().split(" ")));
    args.addAll(List.of("--publisher", "fake"));
    CliRunner.Result r = fleetCommand(args);

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).isEqualTo(message);
    // refused before anything was written: the registry does not exist
    assertThat(controlSchemaExists()).isFalse();
  }

  private static boolean controlSchemaExists() throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT count(*) FROM pg_namespace WHERE nspname = ?")) {
      s.setString(1, control());
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  @Test
  void aUrlWithAPasswordIsRefusedNamingThePasswordFlagWithoutShowingIt() {
    CliRunner.Result r =
        fleetCommand(
            List.of(
                "add",
                "billing",
                "--publisher",
                "fake",
                "--outbox-url",
                "jdbc:postgresql://db/app?password=hunter2-s3cret"));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0))
        .startsWith(
            "--outbox-url must not carry a password, which the registry never stores; give"
                + " --outbox-password env:NAME or file:/path instead but was jdbc:postgresql:")
        .doesNotContain("hunter2");
  }

  private static CliRunner.Result fleetCommand(List<String> args) {
    List<String> all =
        new ArrayList<>(List.of("fleet", args.get(0), "--control-schema", control()));
    all.addAll(args.subList(1, args.size()));
    return new CliRunner()
        .withArgs("--jdbc-url", TestDatabase.jdbcUrl(), "--user", "postgres")
        .run(all.toArray(String[]::new));
  }
}

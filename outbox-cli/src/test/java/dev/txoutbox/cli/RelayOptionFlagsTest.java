package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The relay's flags are made from the relay options' definitions: each option with a key is a flag
 * of {@code relay}, its {@code --help} line is the definition's, and a bad value is refused with
 * the definition's rule in the words of the flags, not by rewriting a builder's message.
 */
class RelayOptionFlagsTest {

  private static TestDatabase db;

  @BeforeAll
  static void setUp() {
    db = TestDatabase.create("cli_option_flags");
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  @Test
  void everyDefinedOptionWithAKeyIsAFlagOfTheRelayWithTheDefinitionsHelp() {
    PrintStream none = new PrintStream(new ByteArrayOutputStream());
    CommandLine relay =
        Cli.commandLine(new TxoutboxCommand(new CliContext(Map.of(), none, none, t -> true)))
            .getSubcommands()
            .get("relay");
    for (RelayOption<?> option : RelayOptions.all()) {
      if (option.key() == null) {
        continue;
      }
      CommandLine.Model.OptionSpec flag = relay.getCommandSpec().findOption("--" + option.key());
      assertThat(flag).as("the flag of " + option).isNotNull();
      String help = String.join(" ", flag.description());
      assertThat(help)
          .as(option.name())
          .startsWith(
              Character.toUpperCase(option.description().charAt(0))
                  + option.description().substring(1))
          .endsWith(
              " Default: "
                  + (option.type() == RelayOption.Type.SWITCH ? "off" : option.defaultText())
                  + ".");
    }
    assertThat(String.join(" ", relay.getCommandSpec().findOption("--batch-size").description()))
        .isEqualTo("Events claimed and published per cycle: 1 to 10000. Default: 100.");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--batch-size 10001 | --batch-size must be between 1 and 10000 but was 10001",
        "--relay-name a/b | --relay-name must be 1 to 64 characters of [A-Za-z0-9_.-] but was"
            + " 'a/b'",
        "--min-poll-interval 2s | --max-poll-interval must be at least --min-poll-interval (2s)"
            + " but was 1s",
        "--min-poll-interval 0ms | --min-poll-interval must be positive but was 0ms",
        "--max-attempts 1001 | --max-attempts must be between 1 and 1000 but was 1001",
        "--backoff-multiplier 0.5 | --backoff-multiplier must be at least 1 but was 0.5",
        "--vacuum-interval 0ms | --vacuum-interval must be positive but was 0ms",
      })
  void aBadValueIsRefusedByTheDefinitionsRuleInTheWordsOfTheFlags(String flags, String message) {
    String[] args = concat(new String[] {"relay", "--publisher", "fake"}, flags.trim().split(" "));
    CliRunner.Result r = CliRunner.forDatabase(db).run(args);

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).isEqualTo(message);
  }

  @Test
  void theVacuumIntervalReachesTheRelaysConfiguration() {
    PrintStream none = new PrintStream(new ByteArrayOutputStream());
    CommandLine txoutbox =
        Cli.commandLine(new TxoutboxCommand(new CliContext(Map.of(), none, none, t -> true)));
    RelayConfig.Builder b = RelayConfig.builder();

    RelayFlags.of(
            txoutbox
                .parseArgs("relay", "--publisher", "fake", "--vacuum-interval", "5s")
                .subcommand())
        .applyTo(b);

    assertThat(b.build().vacuumInterval()).isEqualTo(java.time.Duration.ofSeconds(5));
    assertThat(RelayConfig.defaults().vacuumInterval()).as("none by default").isNull();
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}

package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.RelayOption;
import dev.txoutbox.wal.WalOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The WAL relay's flags are made from its options' definitions ({@link WalOptions}), as the shared
 * relay flags are from theirs: each option with a key is a flag of {@code relay} in its {@code
 * Source:} section, its {@code --help} line is the definition's, and no builder message is
 * rewritten into flag names. (Bad values, refused in the words of the flags: {@code
 * WalCommandsTest}.)
 */
class WalOptionFlagsTest {

  private static CommandLine relay() {
    PrintStream none = new PrintStream(new ByteArrayOutputStream());
    return Cli.commandLine(new TxoutboxCommand(new CliContext(Map.of(), none, none, t -> true)))
        .getSubcommands()
        .get("relay");
  }

  @Test
  void everyWalOptionWithAKeyIsAFlagOfTheRelayWithTheDefinitionsHelp() {
    CommandLine relay = relay();
    for (RelayOption<?> option : WalOptions.all()) {
      if (option.flag() == null) {
        continue;
      }
      CommandLine.Model.OptionSpec flag = relay.getCommandSpec().findOption(option.flag());
      assertThat(flag).as("the flag of " + option).isNotNull();
      assertThat(flag.group()).as(option.name()).isNotNull();
      assertThat(flag.group().heading()).as(option.name()).contains("Source:");
      assertThat(String.join(" ", flag.description()))
          .as(option.name())
          .startsWith(
              Character.toUpperCase(option.description().charAt(0))
                  + option.description().substring(1));
    }
    assertThat(help(relay, "--concurrent-batches")).endsWith(": 1 to 8. Default: 1.");
    assertThat(help(relay, "--min-batch-interval")).endsWith(": 0 to 1s. Default: 1ms.");
    assertThat(help(relay, "--slot"))
        .endsWith(
            ": 1 to 63 characters of a-z, 0-9 and _. Default: txoutbox_<table prefix><schema>.");
    assertThat(help(relay, "--sweep-interval")).endsWith(": positive. Default: 30s.");
  }

  @Test
  void aSwitchOnByDefaultIsTurnedOffByItsNoFlag() {
    CommandLine relay = relay();
    assertThat(relay.getCommandSpec().findOption("--create-slot")).isNull();
    assertThat(help(relay, "--no-create-slot"))
        .startsWith("The start creates a missing publication and slot")
        .endsWith(". This flag turns it off. Default: on.");
  }

  @Test
  void theReplicationUrlDefaultsToTheDatabasesOwnUrl() {
    assertThat(help(relay(), "--replication-url"))
        .contains(": a JDBC URL starting with jdbc:postgresql:.")
        .endsWith("The same user and password as --jdbc-url. Default: --jdbc-url.");
  }

  private static String help(CommandLine relay, String flag) {
    return String.join(" ", relay.getCommandSpec().findOption(flag).description());
  }
}

package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/** The relay's publisher flags, made from the providers on the class path. */
class PublisherOptionsTest {

  private static final PublisherCatalog CATALOG = PublisherCatalog.load();

  @Test
  void everySettingOfEveryProviderIsOneFlagOfTheRelay() {
    CommandSpec relay = relay().getCommandSpec();

    for (String flag :
        new String[] {
          "--bootstrap-servers",
          "--topic-prefix",
          "--topic",
          "--producer",
          "--sqs-region",
          "--sqs-endpoint",
          "--queue",
          "--amqp-uri",
          "--exchange",
          "--declare-exchange",
          "--unroutable-is-permanent",
          "--fake-endpoint",
          "--fake-token",
          "--fake-header",
          "--fake-quiet"
        }) {
      assertThat(relay.findOption(flag)).as(flag).isNotNull();
    }
    // Declared by kafka, sqs, rabbit and fake alike: one flag.
    assertThat(relay.options().stream().filter(o -> o.longestName().equals("--send-timeout")))
        .hasSize(1);
  }

  @Test
  void flagsOverrideTheFileAndMapFlagsBecomePrefixedSettings(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("kafka.properties"),
            "bootstrap-servers = k1:9092\n"
                + "send-timeout=9s\n"
                + "topic.invoice=invoices\n"
                + "topic.order=from-file\n"
                + "producer.acks=all\n");

    Map<String, String> given =
        given(
            file,
            "--publisher",
            "kafka",
            "--topic",
            "order=orders",
            "--producer",
            "linger.ms=5",
            "--send-timeout",
            "3s");

    assertThat(given)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "bootstrap-servers", "k1:9092",
                "send-timeout", "3s",
                "topic.invoice", "invoices",
                "topic.order", "orders",
                "producer.acks", "all",
                "producer.linger.ms", "5"));
    PublisherSettings settings =
        PublisherSettings.of(CATALOG.find("kafka"), "txoutbox-relay-test", given);
    assertThat(settings.map("topic")).containsOnlyKeys("invoice", "order");
    assertThat(settings.duration("send-timeout")).hasValue(java.time.Duration.ofSeconds(3));
  }

  @Test
  void aFlagSettingIsTrueWhenGivenAndAbsentOtherwise() {
    assertThat(given(null, "--publisher", "rabbit", "--unroutable-is-permanent"))
        .containsExactly(Map.entry("unroutable-is-permanent", "true"));
    assertThat(given(null, "--publisher", "rabbit")).isEmpty();
  }

  @Test
  void anUnreadableFileIsRejected(@TempDir Path dir) {
    Path missing = dir.resolve("missing.properties");

    assertThatThrownBy(() -> given(missing, "--publisher", "kafka"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--publisher-config must name a readable file but ")
        .hasMessageEndingWith("missing.properties could not be read (NoSuchFileException)");
  }

  @Test
  void helpShowsEachPublishersFlagsWithTheirOwnDefaultsAfterTheRelaysOptions() {
    String help = new CliRunner().run("relay", "--help").out();

    int relayOptions = help.indexOf("--metrics-port");
    int kafka = help.indexOf("--publisher kafka:");
    int sqs = help.indexOf("--publisher sqs:");
    int fake = help.indexOf("--publisher fake:");
    assertThat(relayOptions).isPositive();
    assertThat(fake).isGreaterThan(relayOptions);
    assertThat(help.indexOf("--publisher rabbit:")).isGreaterThan(kafka);
    assertThat(sqs).isGreaterThan(kafka);
    assertThat(help.indexOf("--bootstrap-servers")).isGreaterThan(kafka);
    assertThat(help.substring(fake, kafka))
        .contains("--fake-token=TOKEN")
        .contains("--fake-header=NAME=VALUE")
        .contains("--fake-quiet")
        .contains("The fake broker's access token.")
        .contains("How long the fake broker may take. Default: 5s.")
        .doesNotContain("Default: false");
    assertThat(help.substring(sqs)).contains("--send-timeout=DURATION").contains("Default: 10s.");
  }

  @Test
  void anUnknownPublisherNamesThoseFound() throws Exception {
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x")
            .runUntilWaitingForTheDatabase("relay", "--publisher", "carrier-pigeon");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0))
        .isEqualTo("--publisher must be one of fake, kafka, rabbit, sqs but was 'carrier-pigeon'");
  }

  @Test
  void aPublisherIsNamedInAnyCase() {
    assertThat(CATALOG.find(" Kafka ").name()).isEqualTo("kafka");
  }

  @Test
  void anotherPublishersFlagIsRejected() throws Exception {
    CliRunner.Result r =
        relayRun("rabbit", "--amqp-uri", "amqp://h", "--exchange", "x", "--bootstrap-servers", "k");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0))
        .startsWith("a setting of publisher rabbit must be one of amqp-uri, exchange,")
        .endsWith(" but was 'bootstrap-servers'");
  }

  @Test
  void aProvidersErrorNamesTheFlagOfACamelCaseOption() throws Exception {
    CliRunner.Result r = relayRun("fake", "--fake-endpoint", "http://h", "--fake-fail", "argument");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).isEqualTo("--fake-endpoint http://h refused token -");
  }

  @Test
  void aProvidersOtherErrorsNameThePublisher() throws Exception {
    CliRunner.Result r = relayRun("fake", "--fake-endpoint", "http://h", "--fake-fail", "state");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).isEqualTo("--publisher fake: no fake broker at http://h");
    assertThat(r.err()).doesNotContain("starting");
  }

  @Test
  void aProvidersDurationIsCheckedByItsSettingsNamingTheFlag() throws Exception {
    CliRunner.Result r = relayRun("fake", "--send-timeout", "soon");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0))
        .isEqualTo(
            "--send-timeout must be a duration such as 500ms, 30s, 4m 5s, 12h, 7d or ISO-8601"
                + " (PT30M) but was 'soon'");
  }

  @Test
  void aSettingNamedLikeARelayFlagIsRefused() {
    PublisherCatalog clash =
        PublisherCatalog.of(
            java.util.List.of(
                new FakePublisherProvider(),
                new PublisherCatalogTest.Named(
                    "x", PublisherSetting.text("workers", "N", "Clashes."))));
    CommandLine relay = new CommandLine(new RelayCommand(new TxoutboxCommand(context()), clash));

    assertThatThrownBy(() -> PublisherOptions.install(relay, clash))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "a publisher setting must not be named like a relay flag but 'workers' is --workers");
  }

  /** The publisher settings the relay command reads from {@code args} and {@code file}. */
  private static Map<String, String> given(Path file, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "relay";
    System.arraycopy(args, 0, all, 1, args.length);
    ParseResult parsed =
        Cli.commandLine(new TxoutboxCommand(context())).parseArgs(all).subcommand();
    return PublisherOptions.given(parsed, file, CATALOG);
  }

  /**
   * The relay against an unreachable database: a refused argument ends it; one that passes would
   * leave it waiting for the database, and it is then stopped (exit 0, failing the test).
   */
  private static CliRunner.Result relayRun(String publisher, String... args) throws Exception {
    String[] all = new String[args.length + 3];
    all[0] = "relay";
    all[1] = "--publisher";
    all[2] = publisher;
    System.arraycopy(args, 0, all, 3, args.length);
    return new CliRunner()
        .env("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x")
        .runUntilWaitingForTheDatabase(all);
  }

  private static CommandLine relay() {
    return Cli.commandLine(new TxoutboxCommand(context())).getSubcommands().get("relay");
  }

  private static CliContext context() {
    PrintStream none = new PrintStream(new ByteArrayOutputStream());
    return new CliContext(Map.of(), none, none, t -> true);
  }
}

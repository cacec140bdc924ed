package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.Layout;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.testing.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One masking rule, {@link SecretMasking}, for everything the CLI writes: a secret given in a
 * publisher setting, one in a URI and one in an exception's message are hidden alike on stderr, on
 * stdout and in log lines as the CLI's own {@code logback.xml} renders them. Each secret occurs
 * nowhere else.
 */
class MaskingTest {

  private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/x";

  /** A setting the fake provider declares secret; no shape of secret the rule would know. */
  private static final String TOKEN = "Tk5Opaque77";

  /** The password of a URI in a setting that is not secret itself. */
  private static final String URI_PASSWORD = "Ur1Secret9";

  private static final String ENDPOINT = "http://app:" + URI_PASSWORD + "@broker.example:8080/";

  /** Given as a plain header, quoted by the provider's exception as a password. */
  private static final String EXCEPTION_PASSWORD = "Ex3Hidden8";

  /** The CLI's log layout: its logback.xml, pattern and masking converters. */
  private static final Layout<ILoggingEvent> CLI_LOG = cliLogLayout();

  private ListAppender<ILoggingEvent> relayLog;

  @BeforeEach
  void captureTheRelaysLog() {
    relayLog = new ListAppender<>();
    relayLog.start();
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).addAppender(relayLog);
  }

  @AfterEach
  void release() {
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).detachAppender(relayLog);
  }

  @Test
  void secretsInSettingsAndUrisAreMaskedInTheStartLine() throws Exception {
    CliRunner.Result r =
        relay("--fake-token", TOKEN, "--fake-endpoint", ENDPOINT, "--fake-header", "a=b");

    // Every argument passed: the relay waited for the unreachable database until stopped.
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
    List<String> starting =
        relayLog.list.stream()
            .filter(e -> e.getMessage().contains("starting"))
            .map(CLI_LOG::doLayout)
            .toList();
    assertThat(starting)
        .singleElement()
        .asString()
        .contains("publisher fake{")
        .contains("fake-token=****")
        .contains("fake-endpoint=http://app:****@broker.example:8080/")
        .contains("fake-header.a=b");
    assertNoSecret(starting.get(0));
    List<String> waiting =
        relayLog.list.stream()
            .filter(e -> e.getFormattedMessage().contains(CliRunner.WAITING_FOR_THE_DATABASE))
            .map(CLI_LOG::doLayout)
            .toList();
    assertThat(waiting).singleElement().asString().contains("cannot reach the database");
    assertNoSecret(waiting.get(0));
    assertNoSecret(r.err());
  }

  @Test
  void aProvidersErrorQuotingASecretSettingOrAUriIsMaskedOnStderrAndInTheLog() throws Exception {
    CliRunner.Result r =
        relay("--fake-token", TOKEN, "--fake-endpoint", ENDPOINT, "--fake-fail", "argument");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0))
        .isEqualTo("--fake-endpoint http://app:****@broker.example:8080/ refused token ****");
    assertNoSecret(r.err());
    // The same text in a log line of any library, once the CLI has read the settings.
    String logged = log("client error: token " + TOKEN + " rejected at " + ENDPOINT, null);
    assertThat(logged).contains("token **** rejected at http://app:****@broker.example:8080/");
    assertNoSecret(logged);
  }

  @Test
  void aSecretInAnExceptionsMessageIsMaskedOnStderrAndInTheLogsStackTrace() throws Exception {
    CliRunner.Result r =
        relay(
            "--verbose",
            "--fake-endpoint",
            ENDPOINT,
            "--fake-header",
            "note=" + EXCEPTION_PASSWORD,
            "--fake-fail",
            "io");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.errLines().get(0))
        .isEqualTo(
            "txoutbox: UncheckedIOException: java.io.IOException: the fake broker answered 401"
                + " to password=**** at http://app:****@broker.example:8080/");
    assertThat(r.err()).contains("\tat ").contains(SecretMasking.MASK); // --verbose: the trace
    assertNoSecret(r.err());
    String logged =
        log(
            "publisher failed",
            new UncheckedIOException(
                new IOException("401 for password=" + EXCEPTION_PASSWORD + " at " + ENDPOINT)));
    assertThat(logged).contains("401 for password=**** at http://app:****@broker.example:8080/");
    assertNoSecret(logged);
  }

  @Test
  void storedErrorsAreMaskedOnStdoutInTablesAndJson() {
    try (TestDatabase db = TestDatabase.create("cli_masking")) {
      OutboxFixture outbox = new OutboxFixture(db);
      outbox.deadLetters("order.rejected", 1);
      outbox.execute(
          "update ${schema}.outbox_events set last_error = 'connect to "
              + ENDPOINT
              + " failed: password="
              + EXCEPTION_PASSWORD
              + "'");
      CliRunner cli = CliRunner.forDatabase(db);

      for (String[] args :
          new String[][] {
            {"dead-letters", "list"},
            {"dead-letters", "list", "--json"},
            {"dead-letters", "groups", "--json"}
          }) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out())
            .as(String.join(" ", args))
            .contains("connect to http://app:****@broker.example:8080/ failed: password=****");
        assertNoSecret(r.out());
      }
    }
  }

  /** The relay against an unreachable database, stopped once it waits for it. */
  private static CliRunner.Result relay(String... args) throws Exception {
    String[] all = new String[args.length + 3];
    all[0] = "relay";
    all[1] = "--publisher";
    all[2] = "fake";
    System.arraycopy(args, 0, all, 3, args.length);
    return new CliRunner().env("OUTBOX_JDBC_URL", UNREACHABLE).runUntilWaitingForTheDatabase(all);
  }

  /** {@code message} and {@code thrown} as the CLI's logback.xml writes them. */
  private static String log(String message, Throwable thrown) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    LoggingEvent event =
        new LoggingEvent(
            MaskingTest.class.getName(),
            context.getLogger("some.library"),
            Level.WARN,
            message,
            thrown,
            null);
    return CLI_LOG.doLayout(event);
  }

  private static void assertNoSecret(String text) {
    for (String secret : List.of(TOKEN, URI_PASSWORD, EXCEPTION_PASSWORD)) {
      assertThat(text).doesNotContain(secret);
    }
  }

  private static Layout<ILoggingEvent> cliLogLayout() {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    try {
      configurator.doConfigure(MaskingTest.class.getResource("/logback.xml"));
    } catch (Exception e) {
      throw new IllegalStateException("the CLI's logback.xml must load but did not", e);
    }
    ConsoleAppender<ILoggingEvent> stderr =
        (ConsoleAppender<ILoggingEvent>)
            context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
    return ((PatternLayoutEncoder) stderr.getEncoder()).getLayout();
  }
}

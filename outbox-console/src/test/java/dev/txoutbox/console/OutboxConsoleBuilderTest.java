package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.schema.OutboxTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder's checks, each naming the option and the limit. */
class OutboxConsoleBuilderTest {

  @TempDir Path dir;

  @Test
  void aConsoleWithoutAnOutboxIsRefused() {
    assertThatThrownBy(() -> OutboxConsole.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("outboxes must hold at least one outbox (outbox(name, tables)) but held none");
  }

  @Test
  void anOutboxWithoutADataSourceIsRefused() {
    assertThatThrownBy(
            () -> OutboxConsole.builder().outbox("billing", OutboxTables.in("billing")).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outbox 'billing' must have a data source");
  }

  @Test
  void badNamesPortsAndTimeoutsAreRefusedNamingTheOption() {
    OutboxConsole.Builder b = OutboxConsole.builder();
    assertThatThrownBy(() -> b.outbox("Bad Name", OutboxTables.defaults()))
        .hasMessageStartingWith("outbox name must be 1 to 40 characters");
    b.outbox("main", OutboxTables.defaults());
    assertThatThrownBy(() -> b.outbox("main", OutboxTables.in("other")))
        .hasMessage("outbox name must be unique but 'main' was given twice");
    assertThatThrownBy(() -> b.port(70_000))
        .hasMessage("port must be between 0 and 65535 but was 70000");
    assertThatThrownBy(() -> b.statementTimeout(Duration.ZERO))
        .hasMessage("statementTimeout must be between 1ms and 5m but was PT0S");
    assertThatThrownBy(() -> b.statementTimeout(Duration.ofMinutes(6)))
        .hasMessage("statementTimeout must be between 1ms and 5m but was PT6M");
    assertThatThrownBy(() -> b.bindAddress(" "))
        .hasMessage("bindAddress must not be blank but was ' '");
  }

  @Test
  void theCredentialComesFromAFileOrTheEnvironmentAndIsNeverShown() throws Exception {
    Path file = Files.writeString(dir.resolve("secret"), "  correct-horse-battery-staple\n");
    AdminCredential fromFile = AdminCredential.fromFile(file);
    AdminCredential fromEnv =
        AdminCredential.fromEnvironment(
            "CONSOLE_SECRET", Map.of("CONSOLE_SECRET", "correct-horse-battery-staple")::get);

    assertThat(fromFile.matches("correct-horse-battery-staple")).isTrue();
    assertThat(fromFile.matches("correct-horse-battery-stapl")).isFalse();
    assertThat(fromEnv.matches("correct-horse-battery-staple")).isTrue();
    assertThat(fromFile.toString())
        .isEqualTo("adminCredential file " + file)
        .doesNotContain("horse");
    assertThat(fromEnv.toString()).isEqualTo("adminCredential environment variable CONSOLE_SECRET");
  }

  @Test
  void aShortMissingOrUnreadableCredentialIsRefused() throws Exception {
    Path shortSecret = Files.writeString(dir.resolve("short"), "tooshort");
    assertThatThrownBy(() -> AdminCredential.fromFile(shortSecret))
        .hasMessage(
            "adminCredential file "
                + shortSecret
                + " must hold a secret of 16 to 1024 characters"
                + " but held 8");
    assertThatThrownBy(() -> AdminCredential.fromEnvironment("NOPE", Map.<String, String>of()::get))
        .hasMessage("adminCredential environment variable NOPE must be set but is not");
    assertThatThrownBy(() -> AdminCredential.fromFile(dir.resolve("missing")))
        .hasMessageStartingWith(
            "adminCredential file " + dir.resolve("missing") + " must be a readable file");
  }
}

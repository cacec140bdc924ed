package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.OutboxTestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A page of another site whose name resolves to the console's address (DNS rebinding) names its own
 * host: refused, reads included, unless the host is allowed.
 */
class AllowedHostsTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @Test
  void aLoopbackConsoleAnswersOnlyToLoopbackNames() {
    OutboxConsole console = RunningConsole.builder(db).build();

    assertThat(overview(console, "evil.example:8089").status()).isEqualTo(403);
    assertThat(overview(console, "evil.example:8089").text())
        .contains(
            "Host must be one of [127.0.0.1, ::1, localhost] (allowedHosts) but was 'evil.example:8089'");
    assertThat(overview(console, null).status()).isEqualTo(403);
    assertThat(overview(console, "localhost:8089").status()).isEqualTo(200);
    assertThat(overview(console, "127.0.0.1:8089").status()).isEqualTo(200);
    assertThat(overview(console, "[::1]:8089").status()).isEqualTo(200);
  }

  @Test
  void theAllowedHostsAreConfigurableAndNoneTurnsTheCheckOff() {
    OutboxConsole named = RunningConsole.builder(db).allowedHosts("Console.Example.org").build();
    OutboxConsole any = RunningConsole.builder(db).allowedHosts().build();

    assertThat(overview(named, "console.example.org").status()).isEqualTo(200);
    assertThat(overview(named, "localhost").status()).isEqualTo(403);
    assertThat(overview(any, "whatever.example").status()).isEqualTo(200);
    assertThatThrownBy(() -> OutboxConsole.builder().allowedHosts("console.example.org:443"))
        .hasMessageStartingWith("allowedHosts must hold host names without a port");
  }

  private static ConsoleResponse overview(OutboxConsole console, String host) {
    return console.handle(
        new ConsoleRequest(
            "GET",
            "",
            "/api/o/main/overview",
            "",
            host == null ? Map.of() : Map.of("Host", host),
            new byte[0],
            "127.0.0.1"));
  }
}

package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How the relay's start line describes the database: the password's presence, never its value. */
class DatabaseTargetTest {

  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/app";

  @ParameterizedTest
  @ValueSource(
      strings = {
        URL + "?password=Xq9secretWv",
        URL + "?user=app&password=Xq9secretWv&ssl=false",
        URL + "?password=Xq9secret%26Wv"
      })
  void aPasswordInTheUrlIsReportedGivenNotNone(String url) {
    String shown = resolve(url, null, Map.of()).toString();

    assertThat(shown).contains(", password given,").doesNotContain("Xq9secret");
  }

  @Test
  void aUserInTheUrlIsTheUserShown() {
    assertThat(resolve(URL + "?user=app&password=pw12", null, Map.of()).toString())
        .contains(", user=app,");
  }

  @Test
  void aPasswordFromTheEnvironmentOrAFileIsReportedGiven(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("pw"), "Xq9secretWv\n");

    assertThat(resolve(URL, null, Map.of(DatabaseTarget.ENV_PASSWORD, "Xq9secretWv")).toString())
        .contains(", password given,")
        .doesNotContain("Xq9secret");
    assertThat(resolve(URL, file, Map.of()).toString())
        .contains(", password given,")
        .doesNotContain("Xq9secret");
  }

  @Test
  void withoutAPasswordAnywhereItIsReportedNone() {
    assertThat(resolve(URL + "?user=app", null, Map.of()).toString()).contains(", password none,");
  }

  private static DatabaseTarget resolve(String url, Path passwordFile, Map<String, String> env) {
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    TxoutboxCommand options = new TxoutboxCommand(new CliContext(env, none, none, t -> true));
    options.jdbcUrl = url;
    options.passwordFile = passwordFile;
    return DatabaseTarget.resolve(options, env);
  }
}

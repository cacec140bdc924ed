package dev.txoutbox.cli;

import static dev.txoutbox.cli.DatabaseTarget.ENV_USER;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.testing.TestDatabase;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * How the relay's start line describes the database (the password's presence, never its value), and
 * the connection defaults each connection gets where its URL does not set them.
 */
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

  @Test
  void theRelaysConnectionsGetTheDefaultsItsUrlDoesNotSet() throws Exception {
    DatabaseTarget target = resolve(TestDatabase.jdbcUrl(), null, Map.of(ENV_USER, "postgres"));
    try (HikariDataSource pool = target.pool("defaults-test", 1, null);
        Connection c = pool.getConnection()) {
      // pgjdbc's socketTimeout is the socket's read timeout, in ms.
      assertThat(c.getNetworkTimeout()).isEqualTo(60_000);
      assertThat(pool.getDataSourceProperties())
          .containsEntry("connectTimeout", "10")
          .containsEntry("socketTimeout", "60")
          .containsEntry("tcpKeepAlive", "true");
    }
    assertThat(target.replicationProperties(TestDatabase.jdbcUrl()))
        .containsEntry("connectTimeout", "10")
        .containsEntry("socketTimeout", "60")
        .containsEntry("tcpKeepAlive", "true");
    assertThat(target.relayDefaults())
        .isEqualTo("connectTimeout=10&socketTimeout=60&tcpKeepAlive=true");
  }

  @Test
  void theUrlsOwnConnectionPropertiesWin() throws Exception {
    String url = TestDatabase.jdbcUrl() + "?socketTimeout=7&tcpKeepAlive=false";
    DatabaseTarget target = resolve(url, null, Map.of(ENV_USER, "postgres"));
    try (HikariDataSource pool = target.pool("defaults-test", 1, null);
        Connection c = pool.getConnection()) {
      assertThat(c.getNetworkTimeout()).isEqualTo(7_000);
      assertThat(pool.getDataSourceProperties())
          .containsEntry("connectTimeout", "10")
          .doesNotContainKeys("socketTimeout", "tcpKeepAlive");
    }
    String off = TestDatabase.jdbcUrl() + "?socketTimeout=0&connectTimeout=3";
    assertThat(target.replicationProperties(off))
        .doesNotContainKeys("socketTimeout", "connectTimeout")
        .containsEntry("tcpKeepAlive", "true");
    assertThat(target.relayDefaults()).isEqualTo("connectTimeout=10");
    PGSimpleDataSource command =
        (PGSimpleDataSource) resolve(off, null, Map.of(ENV_USER, "postgres")).connect();
    assertThat(command.getConnectTimeout()).isEqualTo(3);
    assertThat(command.getSocketTimeout()).isZero();
  }

  @Test
  void aCommandsConnectionIsBoundedWhileItConnectsButNotWhileItsStatementsRun() throws Exception {
    DataSource ds = resolve(TestDatabase.jdbcUrl(), null, Map.of(ENV_USER, "postgres")).connect();
    PGSimpleDataSource command = (PGSimpleDataSource) ds;
    assertThat(command.getConnectTimeout()).isEqualTo(10);
    assertThat(command.getLoginTimeout()).isEqualTo(30);
    assertThat(command.getTcpKeepAlive()).isTrue();
    try (Connection c = ds.getConnection()) {
      // A concurrent index build or a large cleanup may rightly take longer than any bound.
      assertThat(c.getNetworkTimeout()).isZero();
    }
  }

  private static DatabaseTarget resolve(String url, Path passwordFile, Map<String, String> env) {
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    TxoutboxCommand options = new TxoutboxCommand(new CliContext(env, none, none, t -> true));
    options.jdbcUrl = url;
    options.passwordFile = passwordFile;
    return DatabaseTarget.resolve(options, env);
  }
}

package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FailureSourceTest {

  private static RuntimeException fromServer(String state) {
    return new DataAccessException("SQL [select ...]; ERROR", new SQLException("ERROR", state));
  }

  @ParameterizedTest
  @ValueSource(strings = {"22P02", "22021", "22003", "54000", "XX001"})
  void errorsOfTheRowsDataMakeItUnreadable(String state) {
    assertThat(FailureSource.of(fromServer(state))).isEqualTo(FailureSource.ROW_DATA);
    assertThat(FailureSource.isUnreadableRow(fromServer(state))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "57014", "08006", "08001", "57P01", "57P03", "53200", "55P03", "25P02", "XX000", "42P01"
      })
  void everyOtherStateIsTheDatabasesAndNeverMakesARowUnreadable(String state) {
    assertThat(FailureSource.of(fromServer(state))).isEqualTo(FailureSource.DATABASE);
    assertThat(FailureSource.isUnreadableRow(fromServer(state))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"40001", "40P01"})
  void aConflictWithAnotherTransactionNeverMakesARowUnreadable(String state) {
    assertThat(FailureSource.of(fromServer(state))).isEqualTo(FailureSource.CONFLICT);
    assertThat(FailureSource.isUnreadableRow(fromServer(state))).isFalse();
  }

  @Test
  void aPoolTimeoutWithoutAStateIsTheDatabases() {
    RuntimeException e =
        new DataAccessException("no connection", new SQLTransientConnectionException("timeout"));
    assertThat(FailureSource.isUnreadableRow(e)).isFalse();
  }

  @Test
  void aFailureWithoutAnSqlExceptionIsTheRelaysDecodingOfTheRow() {
    RuntimeException e = new IllegalArgumentException("headers must be a JSON object");
    assertThat(FailureSource.of(e)).isEqualTo(FailureSource.CODE);
    assertThat(FailureSource.isUnreadableRow(e)).isTrue();
  }
}

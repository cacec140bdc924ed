package dev.txoutbox.fleet;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A data source the test can cut off, as a network partition from the control database would. */
final class CuttableDataSource implements DataSource {

  private final DataSource target;
  private volatile boolean cut;

  CuttableDataSource(DataSource target) {
    this.target = target;
  }

  void cut() {
    cut = true;
  }

  void restore() {
    cut = false;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (cut) {
      throw new SQLException("connection refused (cut by the test)", "08001");
    }
    return target.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return getConnection();
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
